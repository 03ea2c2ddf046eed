// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reading a DRAM entry's whole subtree for ordered scans (range
// partitioning, db/unit_iterator.h).

#include <cassert>
#include <algorithm>

#include "table/leveled_table.h"

namespace plush::table {

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
    // Deep levels hold a unit's records a few per entry, each entry's in
    // buckets elsewhere: start loading an entry's last bucket (the first
    // read) a few entries ahead, so that the misses overlap.
    constexpr uint64_t kAhead = 4;
    auto last_bucket = [&](uint64_t i) -> const Bucket* {
      const DirectoryEntry& e = level.entries[i];
      const unsigned size =
          std::min(EntryState::Decode(LoadRelaxed(e.state)).size, capacity_);
      return size == 0 ? nullptr
                       : BucketAt(level, i, e, (size - 1) / kSlotsPerBucket);
    };
    for (uint64_t i = first; i < end; ++i) {
      if (i + kAhead < end) {
        if (const Bucket* ahead = last_bucket(i + kAhead)) {
          __builtin_prefetch(ahead->keys);
          __builtin_prefetch(ahead->values);
        }
      }
      const DirectoryEntry& e = level.entries[i];
      const unsigned size =
          std::min(EntryState::Decode(LoadRelaxed(e.state)).size, capacity_);
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
          slots->push_back({LoadRelaxed(bucket->keys[s]),
                            LoadRelaxed(bucket->values[s]),
                            TestBit(e.tombstone, pos),
                            TestBit(e.indirect, pos)});
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace plush::table
