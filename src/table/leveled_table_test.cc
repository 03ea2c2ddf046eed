// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// LeveledTable on its own: lookups of indirect slots against a scripted
// PayloadResolver, so that races with payload compaction (a reference that
// dangles while a lookup reads it) can be replayed deterministically; and
// directory blocks taken only by the units whose subtrees reach a level.

#include "table/leveled_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::table {
namespace {

constexpr uint64_t kRef = 0x1234;
const std::string kKey = "a key that is not 8 bytes";
const std::string kValue = "its value";

// One payload entry, kRef = (kKey, kValue), that can pretend to be
// dangling for a number of calls: each such answer stands for a compaction
// that freed the entry's chunk just then (and, with `progress`, counts as
// a started chunk free, as PayloadLogs does).
class ScriptedResolver final : public PayloadResolver {
 public:
  mutable std::atomic<int> dangling_lookups{0};  // RefHasKey: kDangling
  mutable std::atomic<int> dangling_reads{0};    // ReadValue: kDangling
  bool progress = true;

  RefMatch RefHasKey(uint64_t ref, std::string_view key) const override {
    if (Dangle(dangling_lookups)) return RefMatch::kDangling;
    return ref == kRef && key == kKey ? RefMatch::kYes : RefMatch::kNo;
  }
  RefMatch ReadValue(uint64_t ref, std::string_view key, std::string* value,
                     uint64_t* = nullptr) const override {
    if (Dangle(dangling_reads)) return RefMatch::kDangling;
    if (ref != kRef || key != kKey) return RefMatch::kNo;
    *value = kValue;
    return RefMatch::kYes;
  }
  uint64_t chunk_frees_started() const override { return frees_.load(); }
  void PrefetchEntry(uint64_t) const override {}
  bool RefsHaveSameKey(uint64_t a, uint64_t b) const override {
    return a == b;
  }
  RefState StateOfRef(uint64_t ref, uint64_t* = nullptr) const override {
    return ref == kRef ? RefState::kLive : RefState::kDangling;
  }
  bool ReadKey(uint64_t ref, std::string* key) const override {
    if (ref != kRef) return false;
    *key = kKey;
    return true;
  }
  bool EntryIsIntact(uint64_t ref, uint64_t, uint64_t) const override {
    return ref == kRef;
  }

 private:
  bool Dangle(std::atomic<int>& remaining) const {
    if (remaining.load() <= 0) return false;
    --remaining;
    if (progress) ++frees_;
    return true;
  }
  mutable std::atomic<uint64_t> frees_{0};
};

class LeveledTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bool created = false;
    ASSERT_OK(pool::Pool::Open(Options::SmallProfile(), test::SimDevices(),
                               path_, &pool_, &created));
    ASSERT_OK(LeveledTable::Open(pool_.get(), &table_));
    table_->set_resolver(&resolver_);
    key_ = LookupKey::For(kKey, table_->hasher().Hash(kKey));
    const uint64_t d = table_->DramIndex(key_.hash);
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    table_->InsertDram(d, key_.hash, {key_.hash, kRef, false, true},
                       /*logged=*/true, /*expires_at_ms=*/0);
    lock.unlock();
  }
  void TearDown() override {
    table_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }

  const std::string path_ = "sim:leveled_table_test";
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<LeveledTable> table_;
  ScriptedResolver resolver_;
  LookupKey key_;
};

TEST_F(LeveledTableTest, IndirectSlotIsFoundThroughTheResolver) {
  std::string value;
  ASSERT_EQ(table_->Get(key_, &value), Found::kValue);
  EXPECT_EQ(value, kValue);
  const std::string other = "another key";
  EXPECT_EQ(table_->Get(LookupKey::For(other, table_->hasher().Hash(other)),
                        &value),
            Found::kAbsent);
}

// However many compactions race a lookup, each one explains a retry: the
// key is found (regression: after 64 rounds the lookup took the dangling
// reference for another key's and answered NotFound).
TEST_F(LeveledTableTest, LookupRetriesAsLongAsCompactionsExplainDanglingRefs) {
  resolver_.dangling_lookups = 1000;
  Slot slot;
  ASSERT_EQ(table_->Lookup(key_, &slot), Found::kValue);
  EXPECT_EQ(slot.value, kRef);
  EXPECT_EQ(resolver_.dangling_lookups.load(), 0);
}

// The same for the copy of the value after the lookup (regression: after
// 64 attempts Get gave up with Corruption).
TEST_F(LeveledTableTest, GetRetriesAsLongAsCompactionsMoveTheValue) {
  resolver_.dangling_reads = 1000;
  std::string value;
  ASSERT_EQ(table_->Get(key_, &value), Found::kValue);
  EXPECT_EQ(value, kValue);
  EXPECT_EQ(resolver_.dangling_reads.load(), 0);
}

// A reference that dangles although no compaction started is damage: the
// lookup must end (treating it as another key's), not spin.
TEST_F(LeveledTableTest, DanglingRefThatNoCompactionExplainsEndsTheLookup) {
  resolver_.progress = false;
  resolver_.dangling_lookups = 1'000'000'000;
  Slot slot;
  EXPECT_EQ(table_->Lookup(key_, &slot), Found::kAbsent);
  EXPECT_GT(resolver_.dangling_lookups.load(), 1'000'000'000 - 10);
}

// MultiLookup runs the lookups of a group in lockstep: each key still gets
// Lookup's answer, across groups (16 keys), levels, tombstones, absent keys
// and an indirect slot.
TEST_F(LeveledTableTest, MultiLookupAnswersEachKeyAsLookupDoes) {
  std::vector<LookupKey> keys = {key_};
  std::vector<uint64_t> words;
  for (uint64_t i = 0; i < 3000; ++i) words.push_back(i * 0x9E3779B97F4A7C15);
  for (size_t i = 0; i < words.size(); ++i) {
    const uint64_t hash = table_->hasher().InlineHash(words[i]);
    const uint64_t d = table_->DramIndex(hash);
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    const Status s = table_->DramFull(d) ? table_->MigrateDram(d) : Status::OK();
    // Every third key deleted, every other one never written.
    if (s.ok() && i % 2 == 0) {
      table_->InsertDram(d, hash, {words[i], i, i % 3 == 0, false},
                         /*logged=*/true, /*expires_at_ms=*/0);
    }
    lock.unlock();
    ASSERT_OK(s);
  }
  ASSERT_GT(table_->level_count(), 1u);
  for (const uint64_t& w : words) {
    const std::string_view bytes(reinterpret_cast<const char*>(&w), 8);
    keys.push_back(LookupKey::For(bytes, table_->hasher().Hash(bytes)));
  }
  std::vector<Slot> slots(keys.size());
  std::vector<Found> found(keys.size());
  table_->MultiLookup(keys.data(), keys.size(), slots.data(), found.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    Slot slot;
    const Found expected = table_->Lookup(keys[i], &slot);
    ASSERT_EQ(found[i], expected) << "key " << i;
    if (expected != Found::kAbsent) {
      EXPECT_EQ(slots[i].value, slot.value) << "key " << i;
      EXPECT_EQ(slots[i].tombstone, slot.tombstone) << "key " << i;
    }
  }
  EXPECT_EQ(found[0], Found::kValue);
  EXPECT_EQ(slots[0].value, kRef);
}

// A DRAM entry rewritten from its newest versions answers every lookup as
// before, holds one slot per key, and is in its next epoch; the slots it
// held before now count as superseded, and so do the older versions of a
// key until then.
TEST_F(LeveledTableTest, RewriteDramKeepsTheNewestVersionOfEachKey) {
  const uint64_t d = table_->DramIndex(key_.hash);
  std::vector<uint64_t> words;  // keys of entry d
  for (uint64_t i = 1; words.size() < 3; ++i) {
    const uint64_t w = i * 0x9E3779B97F4A7C15;
    if (table_->DramIndex(table_->hasher().InlineHash(w)) == d)
      words.push_back(w);
  }
  SpinLockRef lock = table_->DramLock(d);
  lock.lock();
  // Versions 1..4 of each key, the last of words[2] a tombstone: slots 1..12
  // after the indirect slot of SetUp.
  for (uint64_t v = 1; v <= 4; ++v) {
    for (size_t k = 0; k < words.size(); ++k) {
      table_->InsertDram(d, table_->hasher().InlineHash(words[k]),
                         {words[k], v, v == 4 && k == 2, false},
                         /*logged=*/true, /*expires_at_ms=*/0);
    }
  }
  const EntryState before = table_->DramState(d);
  ASSERT_EQ(before.size, 13u);
  EXPECT_TRUE(table_->DramSlotSuperseded(d, before.epoch, 1, words[0], false));
  EXPECT_FALSE(table_->DramSlotSuperseded(d, before.epoch, 10, words[0], false));
  EXPECT_FALSE(table_->DramSlotSuperseded(d, before.epoch, 0, key_.hash, true));
  std::vector<Slot> slots;
  std::vector<uint64_t> hashes;
  ASSERT_OK(table_->NewestInDram(d, &slots, &hashes));
  ASSERT_EQ(slots.size(), 4u);  // oldest first: the indirect slot first
  EXPECT_TRUE(slots[0].indirect);
  EXPECT_EQ(slots[1].key, words[0]);
  EXPECT_EQ(slots[3].key, words[2]);
  EXPECT_TRUE(slots[3].tombstone);
  table_->RewriteDram(d, slots, hashes);
  lock.unlock();

  const EntryState after = table_->DramState(d);
  EXPECT_EQ(after.epoch, before.epoch + 1);
  EXPECT_EQ(after.size, 4u);
  EXPECT_GE(table_->MaxDramEpoch(), after.epoch);
  EXPECT_TRUE(table_->DramSlotSuperseded(d, before.epoch, 12, words[2], false));
  Slot slot;
  ASSERT_EQ(table_->Lookup(key_, &slot), Found::kValue);
  EXPECT_EQ(slot.value, kRef);
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string_view bytes(reinterpret_cast<const char*>(&words[k]), 8);
    const LookupKey key = LookupKey::For(bytes, table_->hasher().Hash(bytes));
    ASSERT_EQ(table_->Lookup(key, &slot),
              k == 2 ? Found::kTombstone : Found::kValue)
        << k;
    if (k != 2) {
      EXPECT_EQ(slot.value, 4u);
    }
  }
}

// A unit whose subtree grows deep takes directory blocks on the levels it
// reaches and no other unit does: the space of a level follows the units
// that use it (regression: every level was allocated for every unit, and
// one crowded unit made a pool allocate 2^(d + a + k·b) entries).
// A unit's expiry bound is the latest expiry of what went into it since
// it was emptied: raised by every record but tombstones, and pinned by a
// record that never expires. After an open it is 0 for a unit that holds
// nothing and not known for one with records on PMem or replayed from a
// log.
TEST_F(LeveledTableTest, UnitExpiryBoundIsTheLatestExpiryOfWhatWentIn) {
  const uint64_t d = table_->DramIndex(key_.hash);
  const uint64_t other = d ^ 1;
  EXPECT_EQ(table_->UnitExpiryBound(other), 0u) << "it holds nothing";
  SpinLockRef lock = table_->DramLock(other);
  lock.lock();
  auto insert = [&](uint64_t w, bool tombstone, uint64_t expires_at_ms) {
    table_->InsertDram(other, table_->hasher().InlineHash(w),
                       {w, w, tombstone, false}, true, expires_at_ms);
  };
  insert(1, false, 100);
  EXPECT_EQ(table_->UnitExpiryBound(other), 100u);
  EXPECT_TRUE(table_->UnitExpiredAt(other, 101));
  EXPECT_FALSE(table_->UnitExpiredAt(other, 100));
  insert(2, false, 50);
  EXPECT_EQ(table_->UnitExpiryBound(other), 100u) << "an earlier expiry";
  insert(3, true, 0);
  EXPECT_EQ(table_->UnitExpiryBound(other), 100u) << "a tombstone";
  insert(4, false, 0);
  EXPECT_EQ(table_->UnitExpiryBound(other), LeveledTable::kNoExpiryBound)
      << "a record that never expires";
  EXPECT_FALSE(table_->UnitExpiredAt(other, ~uint64_t{0}));
  insert(5, false, 200);
  EXPECT_EQ(table_->UnitExpiryBound(other), LeveledTable::kNoExpiryBound);
  ASSERT_OK(table_->MigrateDram(other));
  table_->ResetUnitExpiryBound(other);  // as if emptied
  lock.unlock();
  EXPECT_EQ(table_->UnitExpiryBound(other), 0u);

  // Reopened: `other` has records on PMem, `d` none (its record was in
  // DRAM only, and comes back from the log).
  table_.reset();
  ASSERT_OK(LeveledTable::Open(pool_.get(), &table_));
  EXPECT_EQ(table_->UnitExpiryBound(other), LeveledTable::kNoExpiryBound);
  EXPECT_EQ(table_->UnitExpiryBound(d), 0u);
  table_->RecoverIntoDram(d, key_.hash, {key_.hash, kRef, false, true});
  EXPECT_EQ(table_->UnitExpiryBound(d), LeveledTable::kNoExpiryBound);
}

TEST_F(LeveledTableTest, OnlyTheUnitsThatReachALevelTakeBlocksThere) {
  const uint64_t crowded = table_->DramIndex(key_.hash) ^ 1;
  uint64_t inserted = 0;
  for (uint64_t w = 1; table_->level_count() < 5; ++w) {
    const uint64_t hash = table_->hasher().InlineHash(w);
    if (table_->DramIndex(hash) != crowded) continue;
    SpinLockRef lock = table_->DramLock(crowded);
    lock.lock();
    const Status s =
        table_->DramFull(crowded) ? table_->MigrateDram(crowded) : Status::OK();
    if (s.ok()) {
      table_->InsertDram(crowded, hash, {w, w, false, false}, true,
                         /*expires_at_ms=*/0);
    }
    lock.unlock();
    ASSERT_OK(s);
    ++inserted;
  }
  for (unsigned l = 1; l < table_->level_count(); ++l) {
    uint64_t with_block = 0;
    for (uint64_t i = 0; i < table_->entry_count(l); ++i) {
      if (table_->EntryOffset(l, i) == 0) continue;
      ++with_block;
      EXPECT_EQ(table_->UnitOfEntry(l, i), crowded) << "level " << l;
    }
    EXPECT_EQ(with_block, table_->entry_count(l) / table_->dram_entries())
        << "level " << l << ": the crowded unit's block, whole";
  }
  // The directory blocks are the crowded unit's alone: a level of every
  // unit would be dram_entries() times larger.
  uint64_t blocks = 0;
  for (unsigned l = 1; l < table_->level_count(); ++l)
    blocks += table_->entry_count(l) / table_->dram_entries() * 512;
  EXPECT_LT(pool_->allocator().used_bytes(),
            pool_->heap_offset() + 2 * blocks + inserted * 64)
      << "directory space beyond the crowded unit's";
  std::string report;
  EXPECT_EQ(table_->Verify(&report), 0u) << report;
  for (uint64_t w = 1, checked = 0; checked < 200; ++w) {
    const uint64_t hash = table_->hasher().InlineHash(w);
    if (table_->DramIndex(hash) != crowded) continue;
    const std::string_view bytes(reinterpret_cast<const char*>(&w), 8);
    Slot slot;
    ASSERT_EQ(table_->Lookup(LookupKey::For(bytes, hash), &slot), Found::kValue)
        << w;
    EXPECT_EQ(slot.value, w);
    ++checked;
  }
}

}  // namespace
}  // namespace plush::table
