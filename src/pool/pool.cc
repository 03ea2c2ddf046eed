// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool/pool.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "media/sim_media.h"
#include "plush/limits.h"
#include "pool/range_boundaries_region.h"
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

// The heap's first bytes: a range pool's boundaries, if it has them.
uint64_t BoundariesBytesFor(const PoolParams& p) {
  return p.range_boundaries
             ? AlignUp(RangeBoundariesRegionBytes(*p.range_boundaries),
                       kPageSize)
             : 0;
}

uint64_t MinimumSizeFor(const PoolParams& p) {
  return AlignUp(HeapOffsetFor(p) + BoundariesBytesFor(p) +
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
  if (!o.range_key_sample.empty() && o.dram_directory_bits <= 24) {
    p.range_boundaries = std::make_shared<const RangeBoundaries>(
        RangeBoundaries::FromSample(o.range_key_sample, o.dram_directory_bits));
  }
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
  if (range_boundaries && partitioning != Partitioning::kRange) {
    return bad(
        "range_key_sample applies to range partitioning only "
        "(Options::partitioning = kRange)");
  }
  if (dram_directory_bits > 24)
    return bad("dram_directory_bits must be at most 24");
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

Pool::Pool(std::shared_ptr<media::Media> media, const Options& options)
    : media_(std::move(media)), max_pool_size_(options.max_pool_size) {}

Pool::~Pool() {
  if (media_) media_->ReleaseLock();
}

Status Pool::Open(const Options& options, const InternalOptions& internal,
                  const std::string& path, std::unique_ptr<Pool>* pool,
                  bool* created, const FormatFn& format_new) {
  const bool sim = internal.simulated;
  struct stat st {};
  const bool exists = sim ? media::SimMedia::Find(path) != nullptr
                          : stat(path.c_str(), &st) == 0;
  if (!exists && !options.create_if_missing) {
    return Status::InvalidArgument(
        "pool '" + path + "' does not exist and create_if_missing is false");
  }
  if (exists && options.error_if_exists) {
    return Status::InvalidArgument(
        "pool '" + path + "' already exists and error_if_exists is true");
  }
  const PoolParams params = PoolParams::FromOptions(options);
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

  std::shared_ptr<media::Media> media;
  if (sim) {
    std::shared_ptr<media::SimMedia> device;
    Status s = media::SimMedia::Open(
        path, !exists, create_size,
        std::min<uint64_t>(options.max_pool_size, 16ull << 30), &device);
    if (!s.ok()) return s;
    media = std::move(device);
  } else {
    media::FileMediaOptions fo;
    fo.backend = options.backend;
    fo.required_granularity = options.required_granularity;
    fo.emulate_pmem_costs = internal.emulate_pmem_costs;
    fo.create = !exists;
    fo.create_size = create_size;
    fo.max_size = AlignUp(std::max(options.max_pool_size, create_size),
                          media::Media::kGrowAlignment);
    std::unique_ptr<media::Media> file;
    Status s = media::OpenFileMedia(path, fo, &file);
    if (!s.ok()) return s;
    media = std::move(file);
  }
  std::unique_ptr<Pool> p(new Pool(std::move(media), options));
  if (internal.model_media_write_amp) {
    p->write_amp_probe_ =
        std::make_unique<media::WriteAmpProbe>(p->media_.get());
  }
  Status s;
  if (!exists) {
    p->params_ = params;
    s = p->Create(format_new);
  } else {
    s = p->Load();
  }
  if (!s.ok()) return s.WithContext("pool '" + path + "'");
  *created = !exists;
  *pool = std::move(p);
  return Status::OK();
}

Status Pool::Create(const FormatFn& format_new) {
  heap_offset_ = HeapOffsetFor(params_);
  if (params_.range_boundaries)
    WriteRangeBoundaries(media_.get(), heap_offset_, *params_.range_boundaries);
  RootPage* r = root();
  r->alloc_high_water = heap_offset_ + BoundariesBytesFor(params_);
  r->level_count = 0;
  r->payload_chunk_table = 0;
  media_->Flush(r, sizeof(RootPage));
  // The layers that own regions (the recovery logs) format them.
  if (format_new) format_new(*this);
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
                       : params_.range_boundaries ? kRangeByBoundaries
                                                  : kRangeByKeyBits;
  fresh.range_boundaries_offset = params_.range_boundaries ? heap_offset_ : 0;
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

  allocator_ = std::make_unique<Allocator>(media_.get(), r, max_pool_size_);
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
  if (sb.format_version > kFormatVersion) {
    return Status::NotSupported("pool has format version " +
                                std::to_string(sb.format_version) +
                                "; this library reads versions up to " +
                                std::to_string(kFormatVersion));
  }
  if (sb.format_version == 0 || sb.superblock_bytes != sizeof(Superblock)) {
    return Status::Corruption("superblock header is damaged");
  }
  if (sb.checksum != SuperblockChecksum(sb)) {
    // An upgrade from version 1 writes the version and the checksum in two
    // stores: a crash between them leaves a superblock that is exactly the
    // old or the new one with the other's checksum. Nothing of version 2
    // was written yet then: it is a version 1 pool.
    Superblock other = sb;
    other.format_version = sb.format_version == 1 ? kFormatVersion : 1;
    if (sb.format_version > 2 || sb.checksum != SuperblockChecksum(other))
      return Status::Corruption("superblock checksum mismatch");
    sb.format_version = 1;
  }
  stored_version_ = sb.format_version;
  params_.partitioning =
      sb.partitioning == kRangeByBoundaries
          ? Partitioning::kRange
          : static_cast<Partitioning>(sb.partitioning);
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
  if (sb.partitioning == kRangeByBoundaries) {
    if (sb.range_boundaries_offset != heap_offset_) {
      return Status::Corruption("superblock: range boundaries at " +
                                std::to_string(sb.range_boundaries_offset) +
                                ", not at the start of the heap");
    }
    s = ReadRangeBoundaries(*media_, heap_offset_, root()->alloc_high_water,
                            params_.dram_directory_bits,
                            &params_.range_boundaries);
    if (!s.ok()) return s;
  }
  std::string report;
  if (Verify(&report) != 0)
    return Status::Corruption(report.substr(0, report.find('\n')));
  allocator_ =
      std::make_unique<Allocator>(media_.get(), root(), max_pool_size_);
  return Status::OK();
}

void Pool::UpgradeFormat() {
  if (stored_version_ == kFormatVersion) return;
  Superblock* sb = media_->At<Superblock>(kSuperblockOffset);
  sb->format_version = kFormatVersion;
  sb->checksum = SuperblockChecksum(*sb);
  media_->Persist(sb, sizeof(Superblock));
  stored_version_ = kFormatVersion;
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

uint64_t Pool::Verify(std::string* report) const {
  uint64_t problems = 0;
  auto problem = [&](const std::string& what) {
    ++problems;
    if (report != nullptr) *report += what + "\n";
  };
  const RootPage* r = root();
  const uint64_t mark = r->alloc_high_water;
  if (mark < heap_offset_ || mark > media_->size()) {
    problem("root page @" + std::to_string(kRootOffset) + ": allocation mark " +
            std::to_string(mark) + " outside heap [" +
            std::to_string(heap_offset_) + ", " +
            std::to_string(media_->size()) + "]");
  }
  const uint64_t levels = r->level_count;
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
    if (d.entry_count == 0 || d.directory_offset % 512 != 0 ||
        !in_heap(d.directory_offset, d.directory_bytes)) {
      problem(where + ": directory [" + std::to_string(d.directory_offset) +
              ", +" + std::to_string(d.directory_bytes) +
              ") is not inside the allocated heap");
    }
    if (d.bucket_area_bytes != 0 &&
        !in_heap(d.bucket_area_offset, d.bucket_area_bytes)) {
      problem(where +
              ": preallocated bucket area is not inside the allocated heap");
    }
  }
  return problems;
}

}  // namespace plush::pool
