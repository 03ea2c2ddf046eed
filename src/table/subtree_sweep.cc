// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The expiry sweep of a unit's subtree on the PMem levels. Records that
// expire after they migrated would otherwise stay there until their entry
// fills and migrates again, keeping its buckets and their payload entries
// (which a compaction can then only replace by a key-only copy, to keep
// hiding the key's older versions). In a range pool, units whose keys
// stopped coming (old timestamps of a cache) never fill again.
//
// Emptying an entry is one store of its state word, the same one that ends
// a migration from it: size 0, same epoch (its next refill brings a larger
// one). Its records are all gone to readers, and none hides a version
// further down, so a reader that sees the entry before or after the store,
// and recovery after a crash on either side of it, find the same keys.

#include <algorithm>
#include <cassert>
#include <limits>

#include "table/leveled_table.h"

namespace plush::table {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

}  // namespace

void LeveledTable::NoteSubtreeExpiry(uint64_t dram_index,
                                     uint64_t expires_at_ms) {
  // Under the unit's lock, as every writer of the word.
  std::atomic<uint64_t>& due = subtree_due_[dram_index];
  if (expires_at_ms < due.load(std::memory_order_relaxed))
    due.store(expires_at_ms, std::memory_order_relaxed);
}

bool LeveledTable::AllGone(unsigned level, uint64_t index, unsigned size,
                           uint64_t* dies_at) const {
  const Level& lv = levels_[level];
  const DirectoryEntry& e = EntryAt(lv, index);
  uint64_t last_expiry = 0;
  *dies_at = kNever;
  for (unsigned pos = 0; pos < size; ++pos) {
    const Bucket* bucket = BucketAt(lv, index, e, pos / kSlotsPerBucket);
    if (bucket == nullptr) return false;  // damage: Verify() reports it
    const unsigned i = pos % kSlotsPerBucket;
    const Slot slot{bucket->keys[i], bucket->values[i],
                    TestBit(e.tombstone, pos), TestBit(e.indirect, pos)};
    uint64_t expires_at_ms = 0;
    RefState state = RefState::kLive;
    if (slot.indirect) {
      if (resolver_ == nullptr) return false;
      state = resolver_->StateOfRef(slot.value, &expires_at_ms);
      // A superseded version: the newer one is above.
      if (state == RefState::kDangling) continue;
    }
    if (slot.tombstone || state == RefState::kExpired) {
      const uint64_t hash = HashInEntry(slot.key, slot.indirect, level, index);
      if (level + 1 < level_count() &&
          ExistsAtOrBelow(level + 1, ChildIndex(level, index, hash), slot,
                          hash)) {
        return false;  // it hides an older version for as long as it is
      }
      continue;
    }
    if (expires_at_ms == 0) return false;
    last_expiry = std::max(last_expiry, expires_at_ms);
  }
  if (last_expiry == 0) return true;
  *dies_at = last_expiry;
  return false;
}

void LeveledTable::SweepSubtree(uint64_t dram_index, SubtreeSweep* sweep) {
  assert(DramLocked(dram_index));
  std::atomic<uint64_t>& due = subtree_due_[dram_index];
  // A migration in between two parts notes what it moved below; the
  // sweep's own finding is added at its end.
  if (sweep->level == 1 && sweep->offset == 0)
    due.store(kNever, std::memory_order_relaxed);
  unsigned read = 0;
  uint64_t emptied = 0;
  for (; sweep->level < level_count() && read < kSweepSlots;
       ++sweep->level, sweep->offset = 0) {
    const Level& level = levels_[sweep->level];
    const uint64_t first = dram_index << level.unit_shift;
    if (!HasBlock(level, first)) continue;
    for (; sweep->offset <= level.unit_mask && read < kSweepSlots;
         ++sweep->offset) {
      const uint64_t i = first | sweep->offset;
      const unsigned size =
          EntryState::Decode(LoadRelaxed(EntryAt(level, i).state)).size;
      if (size == 0 || size > capacity_) continue;
      read += size;
      uint64_t dies_at = kNever;
      if (!AllGone(sweep->level, i, size, &dies_at)) {
        sweep->next_due = std::min(sweep->next_due, dies_at);
        continue;
      }
      ClearSource(sweep->level, i, /*drain=*/false);
      AddUnitRecords(sweep->level, i, -static_cast<int64_t>(size));
      ++emptied;
    }
    if (sweep->offset <= level.unit_mask) break;  // out of budget
  }
  if (emptied > 0) media_.Drain();
  sweep->emptied += emptied;
  sweep->done = sweep->level >= level_count();
  if (sweep->done) NoteSubtreeExpiry(dram_index, sweep->next_due);
}

}  // namespace plush::table
