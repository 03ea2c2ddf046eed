// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reading a DRAM entry's whole subtree for ordered scans (range
// partitioning, db/unit_iterator.h).

#include <cassert>
#include <algorithm>

#include "table/leveled_table.h"

namespace plush::table {
namespace {

// Whether any of the `count` slots of `e` from `first` on is inline.
// REQUIRES: they lie in one 64-slot word of the bitmap.
bool AnyInline(const DirectoryEntry& e, unsigned first, unsigned count) {
  const uint64_t indirect = LoadRelaxed(e.indirect[first / 64]) >> (first % 64);
  const uint64_t mask = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
  return (~indirect & mask) != 0;
}

}  // namespace

Status LeveledTable::CollectSubtree(uint64_t dram_index,
                                    std::vector<Slot>* slots) const {
  assert(DramLocked(dram_index));
  const unsigned levels = level_count();
  for (unsigned l = 0; l < levels; ++l) {
    const Level& level = levels_[l];
    // The subtree's entries on level l are contiguous: the entry's index
    // followed by the child digits of every level above.
    const unsigned shift = level.index_bits - levels_[0].index_bits;
    const uint64_t first = dram_index << shift;
    const uint64_t end = (dram_index + 1) << shift;
    // A unit's records lie in its entries' buckets, which were allocated
    // one by one, anywhere in the pool: start loading every line an entry
    // a few places ahead will read, so that the misses overlap. The key
    // word of an indirect slot (its key's hash) is read only in pools
    // where it holds a fingerprint (range pools), which scans filter by: no
    // reader of a subtree needs the hash, and a pool of long keys then
    // reads half the lines.
    const bool fingerprints = hasher_.range();
    constexpr uint64_t kAhead = 2;
    auto size_of = [&](const DirectoryEntry& e) {
      return std::min(EntryState::Decode(LoadRelaxed(e.state)).size,
                      capacity_);
    };
    if (l > 0 && !HasBlock(level, first)) continue;  // nothing there yet
    auto prefetch = [&](uint64_t i) {
      const DirectoryEntry& e = EntryAt(level, i);
      const unsigned size = size_of(e);
      for (unsigned b = 0; b * kSlotsPerBucket < size; ++b) {
        const Bucket* bucket = BucketAt(level, i, e, b);
        if (bucket == nullptr) return;  // reported when the entry is read
        const unsigned used =
            std::min(size - b * kSlotsPerBucket, kSlotsPerBucket);
        for (unsigned s = 0; s < used; s += 8) {  // 8 words a line
          if (fingerprints ||
              AnyInline(e, b * kSlotsPerBucket + s, std::min(used - s, 8u)))
            __builtin_prefetch(&bucket->keys[s]);
          __builtin_prefetch(&bucket->values[s]);
        }
      }
    };
    for (uint64_t i = first; i < std::min(end, first + kAhead); ++i)
      prefetch(i);
    for (uint64_t i = first; i < end; ++i) {
      if (i + kAhead < end) prefetch(i + kAhead);
      const DirectoryEntry& e = EntryAt(level, i);
      const unsigned size = size_of(e);
      for (unsigned b = (size + kSlotsPerBucket - 1) / kSlotsPerBucket; b-- > 0;) {
        const Bucket* bucket = BucketAt(level, i, e, b);
        if (bucket == nullptr) {
          return Status::Corruption("level " + std::to_string(l) + " entry " +
                                    std::to_string(i) +
                                    ": damaged bucket reference");
        }
        for (unsigned pos = std::min(size, (b + 1) * kSlotsPerBucket);
             pos-- > b * kSlotsPerBucket;) {
          const unsigned s = pos % kSlotsPerBucket;
          const bool indirect = TestBit(e.indirect, pos);
          slots->push_back({indirect && !fingerprints
                                ? 0
                                : LoadRelaxed(bucket->keys[s]),
                            LoadRelaxed(bucket->values[s]),
                            TestBit(e.tombstone, pos), indirect});
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace plush::table
