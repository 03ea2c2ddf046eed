// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A pool: one file (or test device) holding everything persistent of
// a DB. Pool owns the media mapping and the file lock, validates or writes
// the superblock and root page, hands out space (Allocator) and records new
// hash-table levels. It knows nothing about records.
//
// Thread safety: AddLevel() must be serialized by the caller; the rest is
// thread-safe.

#ifndef PLUSH_POOL_POOL_H_
#define PLUSH_POOL_POOL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "media/media.h"
#include "media/media_factory.h"
#include "placement/key_hasher.h"
#include "placement/range_map.h"
#include "placement/range_map_store.h"
#include "plush/options.h"
#include "plush/status.h"
#include "pool/allocator.h"
#include "pool/pool_format.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush::pool {

// The creation parameters of a pool, as recorded in its superblock.
struct PoolParams {
  Partitioning partitioning = Partitioning::kHash;
  uint32_t dram_directory_bits = 0;
  uint32_t fanout_bits = 0;
  uint32_t first_level_fanout_bits = 0;
  uint32_t preallocated_levels = 0;
  uint32_t dram_filter_levels = 0;
  uint32_t log_count = 0;
  uint32_t log_chunk_size = 0;
  uint32_t log_chunks_per_log = 0;
  uint32_t payload_log_count = 0;
  uint32_t payload_chunk_size = 0;
  // Range pools: the map a new pool is created with (an opened pool's is
  // its RangeMapStore's).
  RangeMap::Layout range_layout;
  // Options::range_key_sample was given (only range pools take one).
  bool has_range_key_sample = false;

  static PoolParams FromOptions(const Options& options);
  // InvalidArgument (from options) or Corruption (from a superblock) with a
  // message naming the bad field.
  Status Validate() const;
  uint64_t log_region_size() const {
    return uint64_t{log_count} * log_chunks_per_log * log_chunk_size;
  }
};

// The most DRAM directory bits of a range pool with a range map: the map
// keeps ~100 bytes of DRAM per unit (2^20 units: ~100 MiB).
inline constexpr unsigned kMaxRangeMapBits = 20;

class Pool {
 public:
  // Formats the regions of a new pool that other layers own (the recovery
  // logs): it flushes what it writes; the pool fences before it writes the
  // superblock, so a pool exists only once its regions are formatted. Its
  // error (no space to back a region) fails the creation.
  using FormatFn = std::function<Status(Pool&)>;

  // Opens or creates the pool at `path` according to `options`, its media
  // through `media_factory` (media::DefaultMediaFactory(): pmem or file).
  // *created tells which happened; a new pool is formatted by `format_new`.
  // Its keys are placed with `key_hash` in place of KeyHash if not null
  // (EngineSeams::key_hash).
  static Status Open(const Options& options,
                     media::MediaFactory& media_factory,
                     const std::string& path, std::unique_ptr<Pool>* pool,
                     bool* created, const FormatFn& format_new = {},
                     KeyHashFunction key_hash = nullptr);
  ~Pool();

  media::Media& media() const { return *media_; }
  const PoolParams& params() const { return params_; }
  RootPage* root() const { return media_->At<RootPage>(kRootOffset); }
  Allocator& allocator() { return *allocator_; }
  uint64_t heap_offset() const { return heap_offset_; }

  // The placement of keys on DRAM directory entries (its map is shared by
  // every copy: a re-balance changes it for all).
  KeyHasher key_hasher() const;
  // Range pools: the range map, kept in the pool's regions; hash pools:
  // null.
  RangeMapStore* range_map_store() const { return range_map_store_.get(); }

  // End of the heap space handed out so far (the allocation mark): every
  // valid reference into the heap points below it. (A DRAM mirror of the
  // root page's word: Allocator::mark.)
  uint64_t allocated_end() const { return allocator_->mark(); }

  // Number of PMem levels recorded in the root page.
  uint64_t level_count() const;
  const LevelDescriptor& level(unsigned i) const { return root()->levels[i]; }
  // Persists `descriptor` as the next level, then the new level count.
  Status AddLevel(LevelDescriptor descriptor);

  // The format version the superblock holds (kFormatVersion: Load refuses
  // any other).
  uint32_t format_version() const { return stored_version_; }

  // Checks superblock, root page and level table; appends problems to
  // *report (one per line). Returns the number of problems found.
  uint64_t Verify(std::string* report) const;

  // How much of the space past the allocation mark Open checks is zero.
  static constexpr uint64_t kZeroPastMarkChecked = 1 << 20;

 private:
  Pool(std::shared_ptr<media::Media> media, const Options& options,
       KeyHashFunction key_hash);
  Status Create(const FormatFn& format_new);
  Status Load();
  // Load's checks of the two root words that carry no checksum, against
  // what a crash can leave: at most one valid level descriptor past the
  // level count, whose block table is still zero; and zeros past the
  // allocation mark (its first kZeroPastMarkChecked bytes, more than a
  // crash leaks: a mark lowered into the data written last). A lowered
  // count or mark would otherwise drop levels, or hand out live space
  // again.
  Status CheckRootCounters() const;
  // Orders the media's barriers if an earlier opening made the pool
  // power-fail safe; records that this one did (RootPage::power_fail_safe).
  void KeepBarrierOrder();
  // The store of a range pool's map, on the root page's words; it
  // allocates its regions from the heap.
  std::unique_ptr<RangeMapStore> NewRangeMapStore();

  std::shared_ptr<media::Media> media_;
  const uint64_t max_pool_size_;
  PoolParams params_;
  uint64_t heap_offset_ = 0;
  uint32_t stored_version_ = 0;
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<RangeMapStore> range_map_store_;
  const KeyHashFunction key_hash_;  // null: KeyHash
};

}  // namespace plush::pool

#endif  // PLUSH_POOL_POOL_H_
