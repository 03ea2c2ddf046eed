// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// LeveledTable::CollectSubtree on its own (table/subtree_scan.cc), on a
// simulated pool of the small profile: what the versions written to a unit
// (a DRAM entry) leave across the levels its migrations made, collected
// newest first: the DRAM entry's slots last one first, then the PMem
// levels, where the first version of each key met is its newest; only the
// unit's own keys; every stored version counted. Indirect slots come with
// their key words only where the pool keeps fingerprints in them, and a
// damaged bucket reference is Corruption naming the entry.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "table/leveled_table.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::table {
namespace {

bool SameSlot(const Slot& a, const Slot& b) {
  return a.key == b.key && a.value == b.value && a.tombstone == b.tombstone &&
         a.indirect == b.indirect;
}

std::string Describe(const Slot& s) {
  return "{key " + std::to_string(s.key) + ", value " +
         std::to_string(s.value) + (s.tombstone ? ", tombstone" : "") +
         (s.indirect ? ", indirect" : "") + "}";
}

class SubtreeScanTest : public ::testing::Test {
 protected:
  void TearDown() override {
    table_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }
  void Open(const Options& options) {
    bool created = false;
    ASSERT_OK(pool::Pool::Open(options, test::SimDevices(), path_, &pool_,
                               &created));
    ASSERT_TRUE(created);
    ASSERT_OK(LeveledTable::Open(pool_.get(), &table_));
    dram_.assign(table_->dram_entries(), {});
  }

  uint64_t UnitOf(uint64_t key_word) const {
    return table_->DramIndex(table_->hasher().InlineHash(key_word));
  }

  // Writes an inline version of `key` as the write path does: under the
  // DRAM entry's lock, migrating it first if it is full.
  void Write(uint64_t key, uint64_t value, bool tombstone) {
    const uint64_t hash = table_->hasher().InlineHash(key);
    const uint64_t d = table_->DramIndex(hash);
    const Slot slot{key, tombstone ? 0 : value, tombstone, false};
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    Status s;
    if (table_->DramFull(d)) {
      s = table_->MigrateDram(d);
      if (s.ok()) dram_[d].clear();
    }
    if (s.ok()) {
      table_->InsertDram(d, hash, slot, /*logged=*/true,
                         /*expires_at_ms=*/0);
      dram_[d].push_back(slot);
      newest_[key] = slot;
    }
    lock.unlock();
    ASSERT_OK(s);
  }

  Status Collect(uint64_t d, std::vector<Slot>* slots) {
    slots->clear();
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    const Status s = table_->CollectSubtree(d, slots);
    lock.unlock();
    return s;
  }

  // 3000 versions of 400 keys over 4 units, one in five a tombstone:
  // enough for several PMem levels.
  void WriteManyVersions() {
    std::mt19937_64 rng(29);
    for (uint64_t i = 0; i < 3000; ++i) {
      const uint64_t key = (rng() % 400 + 1) * 0x9E3779B97F4A7C15ull;
      Write(key, i + 1, i % 5 == 4);
      if (HasFatalFailure()) return;
    }
    ASSERT_GE(table_->level_count(), 3u)
        << "the DRAM level and two PMem levels";
  }

  const std::string path_ = "sim:subtree_scan_test";
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<LeveledTable> table_;
  // Each DRAM entry's slots as written since its last migration.
  std::vector<std::vector<Slot>> dram_;
  // The newest version of every key written.
  std::map<uint64_t, Slot> newest_;
};

TEST_F(SubtreeScanTest, EveryUnitYieldsItsNewestVersionsFirst) {
  Open(Options::SmallProfile());
  WriteManyVersions();
  if (HasFatalFailure()) return;
  const LeveledTable::Occupancy occupancy = table_->CountRecords();
  uint64_t collected = 0;
  for (uint64_t d = 0; d < table_->dram_entries(); ++d) {
    SCOPED_TRACE("unit " + std::to_string(d));
    std::vector<Slot> slots;
    ASSERT_OK(Collect(d, &slots));
    collected += slots.size();
    EXPECT_EQ(slots.size(), occupancy.per_unit[d])
        << "every stored version of the unit, once";
    // The DRAM entry first, its last slot first.
    ASSERT_GE(slots.size(), dram_[d].size());
    for (size_t i = 0; i < dram_[d].size(); ++i) {
      const Slot& want = dram_[d][dram_[d].size() - 1 - i];
      ASSERT_TRUE(SameSlot(slots[i], want))
          << "slot " << i << " is " << Describe(slots[i]) << ", expected "
          << Describe(want);
    }
    // Then the PMem levels: the first version of a key is its newest.
    std::set<uint64_t> seen;
    for (size_t i = 0; i < slots.size(); ++i) {
      const Slot& slot = slots[i];
      ASSERT_FALSE(slot.indirect) << "slot " << i;
      ASSERT_EQ(UnitOf(slot.key), d)
          << "slot " << i << " " << Describe(slot) << " is another unit's";
      if (!seen.insert(slot.key).second) continue;
      auto it = newest_.find(slot.key);
      ASSERT_NE(it, newest_.end()) << Describe(slot) << " was never written";
      ASSERT_TRUE(SameSlot(slot, it->second))
          << "slot " << i << ": the first version of its key is "
          << Describe(slot) << ", the newest written " << Describe(it->second);
    }
    // Every key whose newest version is a value is there (a tombstone may
    // have cancelled its key's older versions, and itself, on the way down).
    for (const auto& [key, slot] : newest_) {
      if (UnitOf(key) == d && !slot.tombstone) {
        EXPECT_EQ(seen.count(key), 1u)
            << "missing the newest version " << Describe(slot);
      }
    }
  }
  uint64_t stored = 0;
  for (const uint64_t n : occupancy.per_level) stored += n;
  EXPECT_EQ(collected, stored);
}

// After a migration the DRAM entry is empty: the PMem levels come first,
// and a key written again since comes first again.
TEST_F(SubtreeScanTest, MigratedUnitStartsAtLevelOne) {
  Open(Options::SmallProfile());
  WriteManyVersions();
  if (HasFatalFailure()) return;
  const uint64_t key = newest_.begin()->first;
  const uint64_t d = UnitOf(key);
  SpinLockRef lock = table_->DramLock(d);
  lock.lock();
  Status s = table_->MigrateDram(d);
  lock.unlock();
  ASSERT_OK(s);
  dram_[d].clear();
  std::vector<Slot> slots;
  ASSERT_OK(Collect(d, &slots));
  ASSERT_FALSE(slots.empty());
  EXPECT_EQ(slots.size(), table_->CountRecords().per_unit[d]);
  auto first = std::find_if(slots.begin(), slots.end(),
                            [&](const Slot& slot) { return slot.key == key; });
  if (!newest_[key].tombstone) {
    ASSERT_NE(first, slots.end());
    EXPECT_TRUE(SameSlot(*first, newest_[key])) << Describe(*first);
  }
  Write(key, 123456, false);
  ASSERT_OK(Collect(d, &slots));
  ASSERT_FALSE(slots.empty());
  EXPECT_TRUE(SameSlot(slots[0], Slot{key, 123456, false, false}))
      << Describe(slots[0]);
}

TEST_F(SubtreeScanTest, EmptyUnitYieldsNothing) {
  Open(Options::SmallProfile());
  for (uint64_t d = 0; d < table_->dram_entries(); ++d) {
    std::vector<Slot> slots = {Slot{1, 2, false, false}};
    ASSERT_OK(Collect(d, &slots));
    EXPECT_TRUE(slots.empty()) << "unit " << d;
  }
}

// An indirect slot's key word is the key's hash (which no reader of a
// subtree needs: left out) unless the pool keeps fingerprints in it
// (range pools: scans filter by them).
TEST_F(SubtreeScanTest, IndirectKeyWordsOnlyWhereTheyHoldFingerprints) {
  for (const Partitioning partitioning :
       {Partitioning::kHash, Partitioning::kRange}) {
    SCOPED_TRACE(partitioning == Partitioning::kHash ? "hash" : "range");
    Options options = Options::SmallProfile();
    options.partitioning = partitioning;
    Open(options);
    const std::string key = "a key of more than eight bytes";
    const KeyHasher::Placed placed = table_->hasher().PlaceKey(key);
    ASSERT_EQ(table_->hasher().hash_bits() != ~uint64_t{0},
              partitioning == Partitioning::kRange);
    const uint64_t d = table_->DramIndex(placed.hash);
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    table_->InsertDram(d, placed.hash, {7, 8, false, false}, true,
                       /*expires_at_ms=*/0);
    table_->InsertDram(d, placed.hash,
                       {placed.indirect_word, 0xABC0, true, true}, true,
                       /*expires_at_ms=*/0);
    lock.unlock();
    std::vector<Slot> slots;
    ASSERT_OK(Collect(d, &slots));
    ASSERT_EQ(slots.size(), 2u);
    const uint64_t word =
        partitioning == Partitioning::kRange ? placed.indirect_word : 0;
    EXPECT_TRUE(SameSlot(slots[0], Slot{word, 0xABC0, true, true}))
        << Describe(slots[0]);
    EXPECT_TRUE(SameSlot(slots[1], Slot{7, 8, false, false}))
        << Describe(slots[1]);
    TearDown();
  }
}

TEST_F(SubtreeScanTest, DamagedBucketReferenceIsCorruptionNamingTheEntry) {
  Open(Options::SmallProfile());
  WriteManyVersions();
  if (HasFatalFailure()) return;
  // A level-1 entry that holds records, in the subtree of unit d.
  const unsigned first_level_bits =
      pool_->params().dram_directory_bits +
      pool_->params().first_level_fanout_bits;
  ASSERT_EQ(table_->entry_count(1), uint64_t{1} << first_level_bits);
  uint64_t entry = 0;
  while (entry < table_->entry_count(1) && table_->StateOf(1, entry).size == 0)
    ++entry;
  ASSERT_LT(entry, table_->entry_count(1)) << "level 1 is empty";
  const uint64_t d = table_->UnitOfEntry(1, entry);
  uint64_t& reference =
      pool_->media().At<DirectoryEntry>(table_->EntryOffset(1, entry))->bucket[0];
  const uint64_t saved = reference;
  ASSERT_NE(saved, 0u) << "the level's buckets are not preallocated";
  reference = saved + 1;  // not a bucket's offset
  std::vector<Slot> slots;
  const Status s = Collect(d, &slots);
  EXPECT_EQ(s.ToString(), "Corruption: level 1 entry " + std::to_string(entry) +
                              ": damaged bucket reference");
  for (uint64_t other = 0; other < table_->dram_entries(); ++other) {
    if (other != d) {
      EXPECT_OK(Collect(other, &slots)) << "unit " << other;
    }
  }
  reference = saved;
  EXPECT_OK(Collect(d, &slots));
}

}  // namespace
}  // namespace plush::table
