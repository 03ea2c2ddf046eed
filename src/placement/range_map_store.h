// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A range pool's map on its media (range_map_format.h): a base region,
// a spare region the next base is written to, and a change log, named by
// four words of the pool's root page. It reads and checks the map when
// the pool opens, and persists every change before the map in DRAM
// (range_map.h) installs it: a crash leaves the old map or the new one.

#ifndef PLUSH_PLACEMENT_RANGE_MAP_STORE_H_
#define PLUSH_PLACEMENT_RANGE_MAP_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "media/media.h"
#include "placement/range_map.h"
#include "placement/range_map_format.h"
#include "plush/status.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush {

class RangeMapStore {
 public:
  // The root page's words that name the regions (pool_format.h,
  // RootPage::range_map and the three after it).
  struct RootWords {
    uint64_t* base;
    uint64_t* spare;
    uint64_t* log;
    uint64_t* log_state;
  };
  // Allocates `bytes` (a power of two) of the pool's heap, page-aligned.
  using AllocateFn = std::function<Status(uint64_t bytes, uint64_t* offset)>;

  RangeMapStore(media::Media* media, RootWords root, unsigned unit_bits,
                AllocateFn allocate);

  // The bytes a region of `layout` is given: a power of two, at least a
  // page.
  static uint64_t CapacityFor(const RangeMap::Layout& layout);
  // A new pool: writes `layout` as its base (generation 0) at `offset`
  // (CapacityFor(layout) bytes) and names it in the root words, flushed,
  // not fenced (the pool persists its new root page).
  void Create(uint64_t offset, const RangeMap::Layout& layout);
  // Reads and checks the base, the spare and the change log, whose changes
  // it applies; every region must lie inside [heap_start, heap_end).
  // Corruption naming what is wrong otherwise.
  Status Load(uint64_t heap_start, uint64_t heap_end)
      NO_THREAD_SAFETY_ANALYSIS;  // before any sharing

  // The map (shared with every KeyHasher: a change applies to all).
  const std::shared_ptr<RangeMap>& map() const { return map_; }
  // Changes of the map since the pool was created (persisted).
  uint64_t generation() const EXCLUDES(mu_);
  // Persists `change`, then installs it in map(). The change is appended
  // to the change log and counted in the root page in one atomic store;
  // when the log is full, the whole map is written as a new base instead.
  // NoSpace if a region cannot be allocated, InvalidArgument if the change
  // does not apply (nothing changed then).
  Status Switch(const RangeMap::Change& change) EXCLUDES(mu_);

 private:
  Status CheckRef(const char* name, uint64_t word, uint64_t heap_start,
                  uint64_t heap_end, RangeMapRef* ref) const;
  Status Allocate(uint64_t bytes, RangeMapRef* ref);
  Status WriteBase(const RangeMap::Layout& layout) REQUIRES(mu_);
  // Stores a root word in one atomic store and persists it.
  void StoreRootWord(uint64_t* word, uint64_t value);

  media::Media& media_;
  const RootWords root_;
  const unsigned unit_bits_;
  const AllocateFn allocate_;
  std::shared_ptr<RangeMap> map_;
  // DRAM copies of the root words (offset 0: none).
  mutable Mutex mu_;
  RangeMapRef spare_ GUARDED_BY(mu_);
  RangeMapRef log_ GUARDED_BY(mu_);
  uint64_t log_end_ GUARDED_BY(mu_) = 0;
  uint32_t log_count_ GUARDED_BY(mu_) = 0;
  uint64_t base_generation_ GUARDED_BY(mu_) = 0;
};

}  // namespace plush

#endif  // PLUSH_PLACEMENT_RANGE_MAP_STORE_H_
