// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/range_map_store.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "placement/range_map_region.h"

namespace plush {
namespace {

constexpr uint64_t kPageBytes = 4096;
// The smallest change log: a few thousand changes before a new base.
constexpr uint64_t kMinLogBytes = 64 << 10;

bool Overlap(const RangeMapRef& a, const RangeMapRef& b) {
  return a.offset < b.offset + b.capacity() &&
         b.offset < a.offset + a.capacity();
}

}  // namespace

RangeMapStore::RangeMapStore(media::Media* media, RootWords root,
                             unsigned unit_bits, AllocateFn allocate)
    : media_(*media),
      root_(root),
      unit_bits_(unit_bits),
      allocate_(std::move(allocate)) {}

uint64_t RangeMapStore::CapacityFor(const RangeMap::Layout& layout) {
  return std::max<uint64_t>(kPageBytes,
                            std::bit_ceil(RangeMapRegionBytes(layout)));
}

void RangeMapStore::Create(uint64_t offset, const RangeMap::Layout& layout) {
  WriteRangeMap(&media_, offset, unit_bits_, /*generation=*/0, layout);
  *root_.base = RangeMapRef{offset, static_cast<unsigned>(std::countr_zero(
                                        CapacityFor(layout)))}
                    .Encode();
  *root_.spare = 0;
  *root_.log = 0;
  *root_.log_state = 0;
  map_ = std::make_shared<RangeMap>(unit_bits_, layout);
}

Status RangeMapStore::CheckRef(const char* name, uint64_t word,
                               uint64_t heap_start, uint64_t heap_end,
                               RangeMapRef* ref) const {
  *ref = RangeMapRef::Decode(word);
  // A region reference is checked before anything is read or written
  // through it: aligned, a sane capacity, inside the allocated heap.
  if ((word & 0xFC0) != 0 || ref->capacity_bits < 12 ||
      ref->capacity_bits > 40 || ref->offset < heap_start ||
      ref->offset > heap_end || heap_end - ref->offset < ref->capacity()) {
    return Status::Corruption(std::string("range map: the root page's ") +
                              name + " reference (" + std::to_string(word) +
                              ") is not a region inside the allocated heap");
  }
  return Status::OK();
}

Status RangeMapStore::Load(uint64_t heap_start, uint64_t heap_end) {
  RangeMapRef active;
  Status s = CheckRef("active", *root_.base, heap_start, heap_end, &active);
  if (!s.ok()) return s;
  uint64_t generation = 0;
  RangeMap::Layout layout;
  s = ReadRangeMap(media_, active.offset, active.offset + active.capacity(),
                   unit_bits_, &generation, &layout);
  if (!s.ok()) return s;
  base_generation_ = generation;
  // A crash between a new base's two root stores leaves the spare naming
  // the base in use: there is no spare then.
  spare_ = RangeMapRef{};
  if (*root_.spare != 0 && *root_.spare != *root_.base) {
    s = CheckRef("spare", *root_.spare, heap_start, heap_end, &spare_);
    if (!s.ok()) return s;
    if (Overlap(spare_, active)) {
      return Status::Corruption(
          "range map: the spare region overlaps the region in use");
    }
  }
  // The changes since the base, if the log belongs to it.
  const RangeLogState state = RangeLogState::Decode(*root_.log_state);
  log_ = RangeMapRef{};
  log_count_ = 0;
  if (*root_.log != 0) {
    s = CheckRef("change log", *root_.log, heap_start, heap_end, &log_);
    if (!s.ok()) return s;
    for (const RangeMapRef& base : {active, spare_}) {
      if (base.offset != 0 && Overlap(log_, base)) {
        return Status::Corruption(
            "range map: the change log overlaps a base region");
      }
    }
  }
  log_end_ = log_.offset;
  if (state.base_generation == generation && state.count > 0) {
    if (log_.offset == 0) {
      return Status::Corruption("range map: " + std::to_string(state.count) +
                                " changes counted, and no change log");
    }
    std::vector<RangeMap::Change> changes;
    s = ReadRangeChanges(media_, log_.offset, log_.capacity(), generation,
                         state.count, &changes, &log_end_);
    if (!s.ok()) return s;
    for (size_t i = 0; i < changes.size(); ++i) {
      const std::string wrong =
          RangeMap::ApplyTo(unit_bits_, changes[i], &layout);
      if (!wrong.empty()) {
        return Status::Corruption("range map: change " + std::to_string(i) +
                                  " of " + std::to_string(changes.size()) +
                                  ": " + wrong);
      }
    }
    log_count_ = state.count;
  }
  map_ = std::make_shared<RangeMap>(unit_bits_, layout);
  return Status::OK();
}

uint64_t RangeMapStore::generation() const {
  MutexLock lock(&mu_);
  return base_generation_ + log_count_;
}

void RangeMapStore::StoreRootWord(uint64_t* word, uint64_t value) {
  std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_relaxed);
  media_.Persist(word, sizeof(uint64_t));
}

Status RangeMapStore::Allocate(uint64_t bytes, RangeMapRef* ref) {
  const uint64_t capacity = std::max(kPageBytes, std::bit_ceil(bytes));
  uint64_t offset = 0;
  Status s = allocate_(capacity, &offset);
  if (!s.ok()) return s.WithContext("allocating a range map region");
  *ref = RangeMapRef{offset, static_cast<unsigned>(std::countr_zero(capacity))};
  return Status::OK();
}

Status RangeMapStore::Switch(const RangeMap::Change& change) {
  MutexLock lock(&mu_);
  const std::string wrong = map_->Check(change);
  if (!wrong.empty())
    return Status::InvalidArgument("range map change: " + wrong);
  const uint64_t bytes = RangeChangeBytes(change);
  if (log_.offset == 0 && log_count_ == 0) {
    // The first change: no log yet. Naming one is safe while it holds no
    // change of the base in use.
    Status s = Allocate(
        std::max(kMinLogBytes, 2 * RangeMapRegionBytes(map_->Read())), &log_);
    if (!s.ok()) return s;
    StoreRootWord(root_.log, log_.Encode());
    log_end_ = log_.offset;
  }
  if (log_end_ + bytes <= log_.offset + log_.capacity()) {
    WriteRangeChange(&media_, log_end_, base_generation_, log_count_, change);
    media_.Drain();
    StoreRootWord(root_.log_state,
                  RangeLogState{base_generation_, log_count_ + 1}.Encode());
    log_end_ += bytes;
    ++log_count_;
  } else {
    RangeMap::Layout next = map_->Read();
    RangeMap::ApplyTo(unit_bits_, change, &next);
    Status s = WriteBase(next);
    if (!s.ok()) return s;
  }
  map_->Apply(change);
  return Status::OK();
}

// The change log is full: the map with its changes becomes a new base, in
// the spare region (allocated, or grown, first), named by the root in one
// atomic store; then the log starts over (a bigger one if the base grew).
// A crash before that store leaves the old base with its changes, after it
// the new base, whose generation the log's state then does not match.
Status RangeMapStore::WriteBase(const RangeMap::Layout& layout) {
  const uint64_t bytes = RangeMapRegionBytes(layout);
  if (spare_.offset == 0 || spare_.capacity() < bytes) {
    // Twice what is needed, so that a region is rarely replaced. The one
    // replaced is left behind (the allocator frees nothing); capacities
    // double, so the regions ever left take less than the last one.
    Status s = Allocate(2 * bytes, &spare_);
    if (!s.ok()) return s;
    StoreRootWord(root_.spare, spare_.Encode());
  }
  const uint64_t generation = base_generation_ + log_count_ + 1;
  WriteRangeMap(&media_, spare_.offset, unit_bits_, generation, layout);
  media_.Drain();
  const uint64_t previous = *root_.base;
  StoreRootWord(root_.base, spare_.Encode());
  if (log_.capacity() < bytes) {
    RangeMapRef bigger;
    if (Allocate(std::max(kMinLogBytes, 2 * bytes), &bigger).ok()) {
      log_ = bigger;
      StoreRootWord(root_.log, log_.Encode());
    }
  }
  StoreRootWord(root_.log_state, RangeLogState{generation, 0}.Encode());
  StoreRootWord(root_.spare, previous);
  spare_ = RangeMapRef::Decode(previous);
  base_generation_ = generation;
  log_count_ = 0;
  log_end_ = log_.offset;
  return Status::OK();
}

}  // namespace plush
