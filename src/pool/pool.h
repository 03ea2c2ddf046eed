// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A pool: one file (or simulated device) holding everything persistent of
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

#include "media/internal_options.h"
#include "media/media.h"
#include "media/write_amp_probe.h"
#include "plush/options.h"
#include "plush/status.h"
#include "pool/allocator.h"
#include "pool/pool_format.h"
#include "util/key_hasher.h"

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
  // A range pool's unit boundaries, if it was created with a key sample
  // (Options::range_key_sample); null: units by the keys' leading bits.
  std::shared_ptr<const RangeBoundaries> range_boundaries;

  static PoolParams FromOptions(const Options& options);
  // InvalidArgument (from options) or Corruption (from a superblock) with a
  // message naming the bad field.
  Status Validate() const;
  KeyHasher key_hasher() const {
    return KeyHasher(partitioning == Partitioning::kRange, dram_directory_bits,
                     range_boundaries);
  }
  uint64_t log_region_size() const {
    return uint64_t{log_count} * log_chunks_per_log * log_chunk_size;
  }
};

class Pool {
 public:
  // Formats the regions of a new pool that other layers own (the recovery
  // logs): it flushes what it writes; the pool fences before it writes the
  // superblock, so a pool exists only once its regions are formatted.
  using FormatFn = std::function<void(Pool&)>;

  // Opens or creates the pool at `path` according to `options`.
  // *created tells which happened; a new pool is formatted by `format_new`.
  static Status Open(const Options& options, const InternalOptions& internal,
                     const std::string& path, std::unique_ptr<Pool>* pool,
                     bool* created, const FormatFn& format_new = {});
  ~Pool();

  media::Media& media() const { return *media_; }
  // The write-amplification model, if InternalOptions asked for it.
  const media::WriteAmpProbe* write_amp_probe() const {
    return write_amp_probe_.get();
  }
  const PoolParams& params() const { return params_; }
  RootPage* root() const { return media_->At<RootPage>(kRootOffset); }
  Allocator& allocator() { return *allocator_; }
  uint64_t heap_offset() const { return heap_offset_; }

  // End of the heap space handed out so far (the allocation mark): every
  // valid reference into the heap points below it. (A DRAM mirror of the
  // root page's word: Allocator::mark.)
  uint64_t allocated_end() const { return allocator_->mark(); }

  // Number of PMem levels recorded in the root page.
  uint64_t level_count() const;
  const LevelDescriptor& level(unsigned i) const { return root()->levels[i]; }
  // Persists `descriptor` as the next level, then the new level count.
  Status AddLevel(LevelDescriptor descriptor);

  // The format version the superblock holds (older pools are upgraded by
  // UpgradeFormat before anything of the newer format is written).
  uint32_t format_version() const { return stored_version_; }
  // Makes the pool a pool of this library's format version: version 1
  // pools (docs/format.md, "Versions") become version 2, in place. Call
  // once the pool has been accepted, before the first write.
  void UpgradeFormat();

  // Checks superblock, root page and level table; appends problems to
  // *report (one per line). Returns the number of problems found.
  uint64_t Verify(std::string* report) const;

 private:
  Pool(std::shared_ptr<media::Media> media, const Options& options);
  Status Create(const FormatFn& format_new);
  Status Load();

  std::shared_ptr<media::Media> media_;
  std::unique_ptr<media::WriteAmpProbe> write_amp_probe_;
  const uint64_t max_pool_size_;
  PoolParams params_;
  uint64_t heap_offset_ = 0;
  uint32_t stored_version_ = 0;
  std::unique_ptr<Allocator> allocator_;
};

}  // namespace plush::pool

#endif  // PLUSH_POOL_POOL_H_
