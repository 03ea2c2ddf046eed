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
    for (uint64_t i = first; i < end; ++i) {
      const DirectoryEntry& e = level.entries[i];
      const unsigned size =
          std::min(EntryState::Decode(LoadRelaxed(e.state)).size, capacity_);
      for (unsigned pos = size; pos-- > 0;) {
        const Bucket* bucket = BucketAt(level, i, e, pos / kSlotsPerBucket);
        if (bucket == nullptr) {
          return Status::Corruption("level " + std::to_string(l) + " entry " +
                                    std::to_string(i) +
                                    ": damaged bucket reference");
        }
        const unsigned s = pos % kSlotsPerBucket;
        slots->push_back({LoadRelaxed(bucket->keys[s]),
                          LoadRelaxed(bucket->values[s]),
                          TestBit(e.tombstone, pos), TestBit(e.indirect, pos)});
      }
    }
  }
  return Status::OK();
}

}  // namespace plush::table
