// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool/pool.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "placement/range_map_store.h"
#include "plush/limits.h"
#include "util/hash.h"

namespace plush::pool {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) & ~(alignment - 1);
}

uint64_t HeapOffsetFor(const PoolParams& p) {
  return AlignUp(kLogRegionOffset + p.log_region_size(), kPageSize);
}

uint64_t SuperblockChecksum(const Superblock& sb) {
  return Checksum(&sb, offsetof(Superblock, checksum));
}

uint64_t DescriptorChecksum(const LevelDescriptor& d) {
  return Checksum(&d, offsetof(LevelDescriptor, checksum));
}

bool IsAllZero(const void* p, size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(p);
  return std::all_of(bytes, bytes + n, [](unsigned char b) { return b == 0; });
}

// What a retired Superblock::partitioning (1, 2 or 3) placed keys by.
const char* RetiredPartitioningName(uint8_t partitioning) {
  return partitioning == kRangeByKeyBits      ? "range by key bits"
         : partitioning == kRangeByBoundaries ? "range by fixed boundaries"
                                              : "range without fingerprints";
}

// The heap's first bytes: a new range pool's map.
uint64_t RangeMapBytesFor(const PoolParams& p) {
  return p.partitioning == Partitioning::kRange
             ? RangeMapStore::CapacityFor(p.range_layout)
             : 0;
}

uint64_t MinimumSizeFor(const PoolParams& p) {
  return AlignUp(HeapOffsetFor(p) + RangeMapBytesFor(p) +
                     media::Media::kGrowAlignment,
                 media::Media::kGrowAlignment);
}

}  // namespace
}  // namespace plush::pool

namespace plush {

uint64_t Options::MinimumPoolSize() const {
  return pool::MinimumSizeFor(pool::PoolParams::FromOptions(*this));
}

}  // namespace plush

namespace plush::pool {

PoolParams PoolParams::FromOptions(const Options& o) {
  PoolParams p;
  p.partitioning = o.partitioning;
  p.dram_directory_bits = o.dram_directory_bits;
  p.fanout_bits = o.fanout_bits;
  p.first_level_fanout_bits = o.first_level_fanout_bits;
  p.preallocated_levels = o.preallocated_levels;
  p.dram_filter_levels = o.dram_filter_levels;
  p.log_count = o.log_count;
  p.log_chunk_size = o.log_chunk_size;
  p.log_chunks_per_log = o.log_chunks_per_log;
  p.payload_log_count = o.payload_log_count;
  p.payload_chunk_size = o.payload_chunk_size;
  if (o.partitioning == Partitioning::kRange &&
      o.dram_directory_bits <= kMaxRangeMapBits) {
    p.range_layout =
        o.range_key_sample.empty()
            ? RangeMap::ByLeadingBits(o.dram_directory_bits)
            : RangeMap::FromSample(o.range_key_sample, o.dram_directory_bits);
  }
  p.has_range_key_sample = !o.range_key_sample.empty();
  return p;
}

Status PoolParams::Validate() const {
  auto bad = [](const std::string& what) {
    return Status::InvalidArgument(what);
  };
  if (partitioning != Partitioning::kHash &&
      partitioning != Partitioning::kRange) {
    return bad("partitioning must be kHash or kRange");
  }
  if (has_range_key_sample && partitioning != Partitioning::kRange) {
    return bad(
        "range_key_sample applies to range partitioning only "
        "(Options::partitioning = kRange)");
  }
  if (dram_directory_bits > 24)
    return bad("dram_directory_bits must be at most 24");
  if (partitioning == Partitioning::kRange &&
      dram_directory_bits > kMaxRangeMapBits) {
    return bad("dram_directory_bits of a range pool must be at most " +
               std::to_string(kMaxRangeMapBits) +
               " (its range map takes ~100 bytes of DRAM per unit)");
  }
  if (fanout_bits < 1 || fanout_bits > 4)
    return bad("fanout_bits must be in 1..4");
  if (first_level_fanout_bits > 4)
    return bad("first_level_fanout_bits must be in 0..4");
  if (preallocated_levels > 4)
    return bad("preallocated_levels must be at most 4");
  if (dram_filter_levels > 2)
    return bad("dram_filter_levels must be at most 2");
  if (log_count == 0 || (log_count & (log_count - 1)) != 0) {
    return bad("log_count must be a power of two");
  }
  if (log_count > (1u << dram_directory_bits)) {
    return bad(
        "log_count must not exceed the number of DRAM directory entries");
  }
  if (log_chunk_size < 4096 || log_chunk_size % 4096 != 0 ||
      log_chunk_size > (1u << 30)) {
    return bad("log_chunk_size must be a multiple of 4096 in [4096, 1 GiB]");
  }
  if (log_chunks_per_log < 2 || log_chunks_per_log > 4096) {
    return bad("log_chunks_per_log must be in 2..4096");
  }
  if (payload_log_count > 256)
    return bad("payload_log_count must be at most 256");
  if (payload_log_count > 0 &&
      (payload_chunk_size < (128u << 10) || payload_chunk_size % 4096 != 0 ||
       payload_chunk_size > (4u << 20))) {
    // 128 KiB: every pool takes the largest record the API allows.
    return bad(
        "payload_chunk_size must be a multiple of 4096 in [128 KiB, 4 MiB]");
  }
  return Status::OK();
}

Pool::Pool(std::shared_ptr<media::Media> media, const Options& options,
           KeyHashFunction key_hash)
    : media_(std::move(media)),
      max_pool_size_(options.max_pool_size),
      key_hash_(key_hash) {}

Pool::~Pool() {
  if (media_) media_->ReleaseLock();
}

Status Pool::Open(const Options& options, media::MediaFactory& media_factory,
                  const std::string& path, std::unique_ptr<Pool>* pool,
                  bool* created, const FormatFn& format_new,
                  KeyHashFunction key_hash) {
  const bool exists = media_factory.Exists(path);
  if (!exists && !options.create_if_missing) {
    return Status::InvalidArgument(
        "pool '" + path + "' does not exist and create_if_missing is false");
  }
  if (exists && options.error_if_exists) {
    return Status::InvalidArgument(
        "pool '" + path + "' already exists and error_if_exists is true");
  }
  PoolParams params = PoolParams::FromOptions(options);
  uint64_t create_size = 0;
  if (!exists) {
    Status s = params.Validate();
    if (!s.ok()) return s;
    create_size = AlignUp(std::max(options.initial_pool_size,
                                   MinimumSizeFor(params)),
                          media::Media::kGrowAlignment);
    if (create_size > options.max_pool_size) {
      return Status::InvalidArgument(
          "max_pool_size (" + std::to_string(options.max_pool_size) +
          ") is too small for the logs and the first "
          "allocations (" +
          std::to_string(create_size) + ")");
    }
  }

  media::FileMediaOptions fo;
  fo.backend = options.backend;
  fo.required_granularity = options.required_granularity;
  fo.create = !exists;
  fo.create_size = create_size;
  // The recovery logs back their chunks as they fill them
  // (RecoveryLogs): a small pool stays small on disk.
  fo.unbacked_offset = kLogRegionOffset;
  fo.unbacked_size = params.log_region_size();
  fo.max_size = AlignUp(std::max(options.max_pool_size, create_size),
                        media::Media::kGrowAlignment);
  std::shared_ptr<media::Media> media;
  Status s = media_factory.Open(path, fo, &media);
  if (!s.ok()) return s;
  if (options.power_fail_safe) media->OrderBarriers();
  std::unique_ptr<Pool> p(new Pool(std::move(media), options, key_hash));
  if (!exists) {
    p->params_ = params;
    s = p->Create(format_new);
    // A pool whose creation failed has no superblock: no pool to keep.
    if (!s.ok()) {
      p.reset();
      media_factory.RemoveFailedCreation(path);
    }
  } else {
    s = p->Load();
  }
  if (s.ok()) p->KeepBarrierOrder();
  if (!s.ok()) return s.WithContext("pool '" + path + "'");
  *created = !exists;
  *pool = std::move(p);
  return Status::OK();
}

Status Pool::Create(const FormatFn& format_new) {
  heap_offset_ = HeapOffsetFor(params_);
  RootPage* r = root();
  r->range_map = 0;
  r->range_map_spare = 0;
  r->range_map_log = 0;
  r->range_map_log_state = 0;
  if (params_.partitioning == Partitioning::kRange) {
    range_map_store_ = NewRangeMapStore();
    range_map_store_->Create(heap_offset_, params_.range_layout);
  }
  r->alloc_high_water = heap_offset_ + RangeMapBytesFor(params_);
  r->level_count = 0;
  r->payload_chunk_table = 0;
  r->batch_spill = 0;
  media_->Flush(r, sizeof(RootPage));
  // The layers that own regions (the recovery logs) format them.
  if (format_new) {
    Status s = format_new(*this);
    if (!s.ok()) return s;
  }
  media_->Drain();

  // The superblock goes last: a pool without one was never created.
  Superblock* sb = media_->At<Superblock>(kSuperblockOffset);
  Superblock fresh{};
  std::memcpy(fresh.magic, kMagic, sizeof(kMagic));
  fresh.format_version = kFormatVersion;
  stored_version_ = kFormatVersion;
  fresh.superblock_bytes = sizeof(Superblock);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  fresh.creation_time_ns =
      static_cast<uint64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  fresh.partitioning = params_.partitioning == Partitioning::kHash
                           ? kHashPartitioning
                           : kRangeFingerprinted;
  fresh.dram_directory_bits = static_cast<uint8_t>(params_.dram_directory_bits);
  fresh.fanout_bits = static_cast<uint8_t>(params_.fanout_bits);
  fresh.first_level_fanout_bits =
      static_cast<uint8_t>(params_.first_level_fanout_bits);
  fresh.preallocated_levels = static_cast<uint8_t>(params_.preallocated_levels);
  fresh.dram_filter_levels = static_cast<uint8_t>(params_.dram_filter_levels);
  fresh.log_count = params_.log_count;
  fresh.log_chunk_size = params_.log_chunk_size;
  fresh.log_chunks_per_log = params_.log_chunks_per_log;
  fresh.log_region_offset = kLogRegionOffset;
  fresh.log_region_size = params_.log_region_size();
  fresh.heap_offset = heap_offset_;
  fresh.payload_log_count = params_.payload_log_count;
  fresh.payload_chunk_size =
      params_.payload_log_count > 0 ? params_.payload_chunk_size : 0;
  fresh.checksum = SuperblockChecksum(fresh);
  std::memcpy(sb, &fresh, sizeof(fresh));
  media_->Persist(sb, sizeof(Superblock));
  // On `file` without ordered barriers nothing above is durable yet: a
  // pool that a power failure left without its format would be there, and
  // refused as no pool.
  Status synced = media_->Sync();
  if (!synced.ok()) return synced.WithContext("syncing the new pool");

  allocator_ = std::make_unique<Allocator>(media_.get(), r, heap_offset_,
                                         max_pool_size_);
  return Status::OK();
}

Status Pool::Load() {
  if (media_->size() < kLogRegionOffset) {
    return Status::Corruption("file is too small to be a pool");
  }
  Superblock sb;
  std::memcpy(&sb, media_->At<Superblock>(kSuperblockOffset), sizeof(sb));
  if (IsAllZero(&sb, sizeof(sb))) {
    return Status::Corruption(
        "superblock is all zeros: not a pool, or its creation never finished");
  }
  if (std::memcmp(sb.magic, kMagic, sizeof(kMagic)) != 0) {
    return Status::Corruption("bad magic: not a plush pool");
  }
  if (sb.format_version == 0 || sb.superblock_bytes != sizeof(Superblock)) {
    return Status::Corruption("superblock header is damaged");
  }
  if (sb.checksum != SuperblockChecksum(sb)) {
    return Status::Corruption("superblock checksum mismatch");
  }
  if (sb.format_version != kFormatVersion) {
    // Nothing has been released: earlier formats are retired, not carried.
    return Status::NotSupported(
        "pool has format version " + std::to_string(sb.format_version) +
        "; this library reads version " + std::to_string(kFormatVersion) +
        (sb.format_version < kFormatVersion
             ? " only: copy the pool with plush dump of the version that "
               "wrote it, then plush load of this one"
             : ""));
  }
  stored_version_ = sb.format_version;
  if (sb.partitioning > kRangeFingerprinted) {
    return Status::Corruption(
        "superblock parameters: partitioning must be kHash or kRange (byte " +
        std::to_string(sb.partitioning) + ")");
  }
  if (sb.partitioning != kHashPartitioning &&
      sb.partitioning != kRangeFingerprinted) {
    // Retired range partitionings, like earlier formats, are not carried.
    return Status::NotSupported(
        "pool has partitioning " + std::to_string(sb.partitioning) + " (" +
        RetiredPartitioningName(sb.partitioning) +
        "); this library reads partitioning 0 (hash) and 4 (range) only: "
        "copy the pool with plush dump of the version that wrote it, then "
        "plush load of this one");
  }
  params_.partitioning = sb.partitioning == kHashPartitioning
                             ? Partitioning::kHash
                             : Partitioning::kRange;
  params_.dram_directory_bits = sb.dram_directory_bits;
  params_.fanout_bits = sb.fanout_bits;
  params_.first_level_fanout_bits = sb.first_level_fanout_bits;
  params_.preallocated_levels = sb.preallocated_levels;
  params_.dram_filter_levels = sb.dram_filter_levels;
  params_.log_count = sb.log_count;
  params_.log_chunk_size = sb.log_chunk_size;
  params_.log_chunks_per_log = sb.log_chunks_per_log;
  params_.payload_log_count = sb.payload_log_count;
  params_.payload_chunk_size = sb.payload_chunk_size;
  Status s = params_.Validate();
  if (!s.ok())
    return Status::Corruption("superblock parameters: " +
                              std::string(s.message()));
  heap_offset_ = HeapOffsetFor(params_);
  if (sb.log_region_offset != kLogRegionOffset ||
      sb.log_region_size != params_.log_region_size() ||
      sb.heap_offset != heap_offset_) {
    return Status::Corruption("superblock region table is inconsistent");
  }
  // A file shorter than the space the pool handed out was cut off (a copy
  // that did not finish, a full disk): say so rather than blame a field.
  const uint64_t pool_end = std::max(heap_offset_, root()->alloc_high_water);
  if (pool_end > media_->size()) {
    return Status::Corruption(
        "pool file is shorter than the pool it holds (truncated?): the file "
        "has " +
        std::to_string(media_->size()) +
        " bytes, the pool's root page says it extends to " +
        std::to_string(pool_end) + " bytes");
  }
  if (params_.partitioning == Partitioning::kRange) {
    range_map_store_ = NewRangeMapStore();
    s = range_map_store_->Load(heap_offset_, root()->alloc_high_water);
    if (!s.ok()) return s;
  }
  std::string report;
  if (Verify(&report) != 0)
    return Status::Corruption(report.substr(0, report.find('\n')));
  s = CheckRootCounters();
  if (!s.ok()) return s;
  allocator_ =
      std::make_unique<Allocator>(media_.get(), root(), heap_offset_,
                                  max_pool_size_);
  return Status::OK();
}

void Pool::KeepBarrierOrder() {
  uint64_t& word = root()->power_fail_safe;
  if (word != 0) {
    media_->OrderBarriers();
  } else if (media_->ordered_barriers()) {
    std::atomic_ref<uint64_t>(word).store(1, std::memory_order_relaxed);
    media_->Persist(&word, sizeof(word));
  }
}

KeyHasher Pool::key_hasher() const {
  return range_map_store_ ? KeyHasher(range_map_store_->map(), key_hash_)
                          : KeyHasher(key_hash_);
}

std::unique_ptr<RangeMapStore> Pool::NewRangeMapStore() {
  RootPage* r = root();
  return std::make_unique<RangeMapStore>(
      media_.get(),
      RangeMapStore::RootWords{&r->range_map, &r->range_map_spare,
                               &r->range_map_log, &r->range_map_log_state},
      params_.dram_directory_bits, [this](uint64_t bytes, uint64_t* offset) {
        return allocator_->Allocate(bytes, kPageSize, offset);
      });
}

uint64_t Pool::level_count() const {
  return std::atomic_ref<uint64_t>(root()->level_count)
      .load(std::memory_order_acquire);
}

Status Pool::AddLevel(LevelDescriptor d) {
  RootPage* r = root();
  const uint64_t n = level_count();
  if (n >= kMaxPmemLevels) return Status::NoSpace("too many levels");
  d.checksum = DescriptorChecksum(d);
  r->levels[n] = d;
  media_->Persist(&r->levels[n], sizeof(LevelDescriptor));
  std::atomic_ref<uint64_t>(r->level_count)
      .store(n + 1, std::memory_order_release);
  media_->Persist(&r->level_count, sizeof(uint64_t));
  return Status::OK();
}

Status Pool::CheckRootCounters() const {
  const RootPage* r = root();
  const uint64_t count = r->level_count;  // Verify: at most kMaxPmemLevels
  const uint64_t mark = r->alloc_high_water;  // Verify: inside the file
  const uint64_t table_bytes =
      (uint64_t{1} << params_.dram_directory_bits) * sizeof(uint64_t);
  for (uint64_t i = count; i < kMaxPmemLevels; ++i) {
    const LevelDescriptor& d = r->levels[i];
    if (d.checksum != DescriptorChecksum(d)) continue;  // unwritten or torn
    // A crash between a new level's descriptor and the count leaves one
    // descriptor past the count, whose block table no unit has used yet.
    const bool never_used =
        i == count && d.block_table_offset >= heap_offset_ &&
        d.block_table_offset <= mark - std::min(mark, table_bytes) &&
        IsAllZero(media_->At<uint8_t>(d.block_table_offset), table_bytes);
    if (!never_used) {
      return Status::Corruption(
          "root page: level count " + std::to_string(count) +
          " leaves out level " + std::to_string(i + 1) +
          ", whose descriptor is valid" +
          (i == count ? " and whose units have directory blocks" : ""));
    }
  }
  const uint64_t end = std::min(media_->size(), mark + kZeroPastMarkChecked);
  const auto* past = media_->At<unsigned char>(0);
  const auto* data = std::find_if(past + mark, past + end,
                                  [](unsigned char b) { return b != 0; });
  if (data != past + end) {
    return Status::Corruption(
        "root page: allocation mark " + std::to_string(mark) +
        " is below data (a nonzero byte at " +
        std::to_string(data - past) + "): space past the mark is handed "
        "out as zero");
  }
  return Status::OK();
}

uint64_t Pool::Verify(std::string* report) const {
  uint64_t problems = 0;
  auto problem = [&](const std::string& what) {
    ++problems;
    if (report != nullptr) *report += what + "\n";
  };
  const RootPage* r = root();
  // Online (writers allocate and add levels meanwhile): the level count
  // first, whose release store follows the descriptors it counts, then
  // the allocation mark, which only grows and so covers their tables.
  const uint64_t levels = level_count();
  const uint64_t mark = std::atomic_ref<uint64_t>(root()->alloc_high_water)
                            .load(std::memory_order_acquire);
  if (mark < heap_offset_ || mark > media_->size()) {
    problem("root page @" + std::to_string(kRootOffset) + ": allocation mark " +
            std::to_string(mark) + " outside heap [" +
            std::to_string(heap_offset_) + ", " +
            std::to_string(media_->size()) + "]");
  }
  if (r->power_fail_safe > 1) {
    problem("root page: power_fail_safe word " +
            std::to_string(r->power_fail_safe) + " is neither 0 nor 1");
  }
  if (levels > kMaxPmemLevels) {
    problem("root page: level count " + std::to_string(levels) + " exceeds " +
            std::to_string(kMaxPmemLevels));
    return problems;
  }
  auto in_heap = [&](uint64_t offset, uint64_t bytes) {
    return offset >= heap_offset_ && bytes <= mark && offset <= mark - bytes;
  };
  for (uint64_t i = 0; i < levels; ++i) {
    const LevelDescriptor& d = r->levels[i];
    const std::string where = "level " + std::to_string(i + 1) + " descriptor";
    if (d.checksum != DescriptorChecksum(d)) {
      problem(where + ": checksum mismatch");
      continue;
    }
    const uint64_t table_bytes =
        (uint64_t{1} << params_.dram_directory_bits) * sizeof(uint64_t);
    if (d.entry_count == 0 || d.block_bytes == 0 ||
        d.block_table_offset % 8 != 0 ||
        !in_heap(d.block_table_offset, table_bytes)) {
      problem(where + ": block table [" +
              std::to_string(d.block_table_offset) + ", +" +
              std::to_string(table_bytes) +
              ") is not inside the allocated heap");
    }
  }
  return problems;
}

}  // namespace plush::pool
