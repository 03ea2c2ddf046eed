// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool/pool.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "media/sim_media.h"
#include "placement/range_map_region.h"
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

// A range map region's capacity: a power of two, at least a page.
uint64_t RangeMapCapacity(uint64_t bytes) {
  return std::max<uint64_t>(kPageSize, std::bit_ceil(bytes));
}

// The heap's first bytes: a new range pool's map.
uint64_t RangeMapBytesFor(const PoolParams& p) {
  return p.partitioning == Partitioning::kRange
             ? RangeMapCapacity(RangeMapRegionBytes(p.range_layout))
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
    // The recovery logs back their chunks as they fill them
    // (RecoveryLogs): a small pool stays small on disk.
    fo.unbacked_offset = kLogRegionOffset;
    fo.unbacked_size = params.log_region_size();
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
    // A pool whose creation failed has no superblock: no pool to keep.
    if (!s.ok() && !sim) {
      p.reset();
      unlink(path.c_str());
    }
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
  RootPage* r = root();
  r->range_map = 0;
  r->range_map_spare = 0;
  r->range_map_log = 0;
  r->range_map_log_state = 0;
  if (params_.partitioning == Partitioning::kRange) {
    const uint64_t capacity = RangeMapBytesFor(params_);
    WriteRangeMap(media_.get(), heap_offset_, params_.dram_directory_bits,
                  /*generation=*/0, params_.range_layout);
    r->range_map =
        RangeMapRef{heap_offset_, static_cast<unsigned>(std::countr_zero(capacity))}
            .Encode();
    range_map_ = std::make_shared<RangeMap>(params_.dram_directory_bits,
                                            params_.range_layout);
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
    s = LoadRangeMap();
    if (!s.ok()) return s;
  }
  std::string report;
  if (Verify(&report) != 0)
    return Status::Corruption(report.substr(0, report.find('\n')));
  allocator_ =
      std::make_unique<Allocator>(media_.get(), root(), heap_offset_,
                                  max_pool_size_);
  return Status::OK();
}

KeyHasher Pool::key_hasher() const {
  return range_map_ ? KeyHasher(range_map_) : KeyHasher();
}

namespace {

// The smallest change log: a few thousand changes before a new base.
constexpr uint64_t kMinRangeLogBytes = 64 << 10;

}  // namespace

Status Pool::CheckRangeMapRef(const char* name, uint64_t word,
                              RangeMapRef* ref) const {
  *ref = RangeMapRef::Decode(word);
  const uint64_t mark = root()->alloc_high_water;
  // A region reference is checked before anything is read or written
  // through it: aligned, a sane capacity, inside the allocated heap.
  if ((word & 0xFC0) != 0 || ref->capacity_bits < 12 ||
      ref->capacity_bits > 40 || ref->offset < heap_offset_ ||
      ref->offset > mark || mark - ref->offset < ref->capacity()) {
    return Status::Corruption(std::string("range map: the root page's ") +
                              name + " reference (" + std::to_string(word) +
                              ") is not a region inside the allocated heap");
  }
  return Status::OK();
}

Status Pool::LoadRangeMap() {
  const RootPage* r = root();
  RangeMapRef active;
  Status s = CheckRangeMapRef("active", r->range_map, &active);
  if (!s.ok()) return s;
  uint64_t generation = 0;
  s = ReadRangeMap(*media_, active.offset, active.offset + active.capacity(),
                   params_.dram_directory_bits, &generation,
                   &params_.range_layout);
  if (!s.ok()) return s;
  range_base_generation_ = generation;
  // A crash between a new base's two root stores leaves the spare naming
  // the base in use: there is no spare then.
  range_map_spare_ = RangeMapRef{};
  if (r->range_map_spare != 0 && r->range_map_spare != r->range_map) {
    s = CheckRangeMapRef("spare", r->range_map_spare, &range_map_spare_);
    if (!s.ok()) return s;
    if (range_map_spare_.offset < active.offset + active.capacity() &&
        active.offset < range_map_spare_.offset + range_map_spare_.capacity()) {
      return Status::Corruption(
          "range map: the spare region overlaps the region in use");
    }
  }
  // The changes since the base, if the log belongs to it.
  const RangeLogState state = RangeLogState::Decode(r->range_map_log_state);
  range_log_ = RangeMapRef{};
  range_log_count_ = 0;
  if (r->range_map_log != 0) {
    s = CheckRangeMapRef("change log", r->range_map_log, &range_log_);
    if (!s.ok()) return s;
    for (const RangeMapRef& base : {active, range_map_spare_}) {
      if (base.offset != 0 &&
          range_log_.offset < base.offset + base.capacity() &&
          base.offset < range_log_.offset + range_log_.capacity()) {
        return Status::Corruption(
            "range map: the change log overlaps a base region");
      }
    }
  }
  range_log_end_ = range_log_.offset;
  if (state.base_generation == generation && state.count > 0) {
    if (range_log_.offset == 0) {
      return Status::Corruption("range map: " + std::to_string(state.count) +
                                " changes counted, and no change log");
    }
    std::vector<RangeMap::Change> changes;
    s = ReadRangeChanges(*media_, range_log_.offset, range_log_.capacity(),
                         generation, state.count, &changes, &range_log_end_);
    if (!s.ok()) return s;
    for (size_t i = 0; i < changes.size(); ++i) {
      const std::string wrong = RangeMap::ApplyTo(params_.dram_directory_bits,
                                                changes[i],
                                                &params_.range_layout);
      if (!wrong.empty()) {
        return Status::Corruption("range map: change " + std::to_string(i) +
                                  " of " + std::to_string(changes.size()) +
                                  ": " + wrong);
      }
    }
    range_log_count_ = state.count;
  }
  range_map_ = std::make_shared<RangeMap>(params_.dram_directory_bits,
                                          params_.range_layout);
  return Status::OK();
}

uint64_t Pool::range_map_generation() const {
  MutexLock lock(&range_map_mu_);
  return range_base_generation_ + range_log_count_;
}

void Pool::StoreRootWord(uint64_t* word, uint64_t value) {
  std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_relaxed);
  media_->Persist(word, sizeof(uint64_t));
}

Status Pool::AllocateRangeMapRegion(uint64_t bytes, RangeMapRef* ref) {
  const uint64_t capacity = RangeMapCapacity(bytes);
  uint64_t offset = 0;
  Status s = allocator_->Allocate(capacity, kPageSize, &offset);
  if (!s.ok()) return s.WithContext("allocating a range map region");
  *ref = RangeMapRef{offset, static_cast<unsigned>(std::countr_zero(capacity))};
  return Status::OK();
}

Status Pool::SwitchRangeMap(const RangeMap::Change& change) {
  MutexLock lock(&range_map_mu_);
  const std::string wrong = range_map_->Check(change);
  if (!wrong.empty())
    return Status::InvalidArgument("range map change: " + wrong);
  RootPage* r = root();
  const uint64_t bytes = RangeChangeBytes(change);
  if (range_log_.offset == 0 && range_log_count_ == 0) {
    // The first change: no log yet. Naming one is safe while it holds no
    // change of the base in use.
    Status s = AllocateRangeMapRegion(
        std::max(kMinRangeLogBytes, 2 * RangeMapRegionBytes(params_.range_layout)),
        &range_log_);
    if (!s.ok()) return s;
    StoreRootWord(&r->range_map_log, range_log_.Encode());
    range_log_end_ = range_log_.offset;
  }
  if (range_log_end_ + bytes <= range_log_.offset + range_log_.capacity()) {
    WriteRangeChange(media_.get(), range_log_end_, range_base_generation_,
                     range_log_count_, change);
    media_->Drain();
    StoreRootWord(&r->range_map_log_state,
                  RangeLogState{range_base_generation_, range_log_count_ + 1}
                      .Encode());
    range_log_end_ += bytes;
    ++range_log_count_;
  } else {
    RangeMap::Layout next = range_map_->Read();
    RangeMap::ApplyTo(params_.dram_directory_bits, change, &next);
    Status s = WriteRangeMapBase(next);
    if (!s.ok()) return s;
  }
  range_map_->Apply(change);
  return Status::OK();
}

// The change log is full: the map with its changes becomes a new base, in
// the spare region (allocated, or grown, first), named by the root in one
// atomic store; then the log starts over (a bigger one if the base grew).
// A crash before that store leaves the old base with its changes, after it
// the new base, whose generation the log's state then does not match.
Status Pool::WriteRangeMapBase(const RangeMap::Layout& layout) {
  RootPage* r = root();
  const uint64_t bytes = RangeMapRegionBytes(layout);
  if (range_map_spare_.offset == 0 || range_map_spare_.capacity() < bytes) {
    // Twice what is needed, so that a region is rarely replaced. The one
    // replaced is left behind (the allocator frees nothing); capacities
    // double, so the regions ever left take less than the last one.
    Status s = AllocateRangeMapRegion(2 * bytes, &range_map_spare_);
    if (!s.ok()) return s;
    StoreRootWord(&r->range_map_spare, range_map_spare_.Encode());
  }
  const uint64_t generation = range_base_generation_ + range_log_count_ + 1;
  WriteRangeMap(media_.get(), range_map_spare_.offset,
                params_.dram_directory_bits, generation, layout);
  media_->Drain();
  const uint64_t previous = r->range_map;
  StoreRootWord(&r->range_map, range_map_spare_.Encode());
  if (range_log_.capacity() < bytes) {
    RangeMapRef bigger;
    if (AllocateRangeMapRegion(std::max(kMinRangeLogBytes, 2 * bytes), &bigger)
            .ok()) {
      range_log_ = bigger;
      StoreRootWord(&r->range_map_log, range_log_.Encode());
    }
  }
  StoreRootWord(&r->range_map_log_state, RangeLogState{generation, 0}.Encode());
  StoreRootWord(&r->range_map_spare, previous);
  range_map_spare_ = RangeMapRef::Decode(previous);
  range_base_generation_ = generation;
  range_log_count_ = 0;
  range_log_end_ = range_log_.offset;
  return Status::OK();
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
