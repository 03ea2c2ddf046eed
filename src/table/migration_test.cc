// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Migration on its own (table/migration.cc, paper listing 2): a LeveledTable
// on a small simulated pool (d = 2, a = b = 1: 4 DRAM entries of 32 slots,
// two children per entry), driven through its writer interface. Entries
// are read back from the media by their documented layout (docs/format.md
// §4), and the order in which a migration makes them durable is watched at
// every persist point of the simulator.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "table/leveled_table.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::table {
namespace {

using test::Word;

// Payload references for indirect slots: ref -> key; live unless killed,
// and unexpired unless expired.
class FakeResolver final : public PayloadResolver {
 public:
  std::map<uint64_t, std::string> keys;
  std::set<uint64_t> dead;
  std::set<uint64_t> expired;

  bool Live(uint64_t ref) const {
    return keys.count(ref) != 0 && dead.count(ref) == 0;
  }
  RefMatch RefHasKey(uint64_t ref, std::string_view key) const override {
    if (!Live(ref)) return RefMatch::kDangling;
    return keys.at(ref) == key ? RefMatch::kYes : RefMatch::kNo;
  }
  RefMatch ReadValue(uint64_t ref, std::string_view key, std::string* value,
                     uint64_t* = nullptr) const override {
    const RefMatch m = RefHasKey(ref, key);
    if (m == RefMatch::kYes && expired.count(ref) != 0)
      return RefMatch::kExpired;
    if (m == RefMatch::kYes) *value = "value of " + keys.at(ref);
    return m;
  }
  void PrefetchEntry(uint64_t) const override {}
  uint64_t chunk_frees_started() const override { return dead.size(); }
  bool RefsHaveSameKey(uint64_t a, uint64_t b) const override {
    return Live(a) && Live(b) && keys.at(a) == keys.at(b);
  }
  RefState StateOfRef(uint64_t ref, uint64_t* = nullptr) const override {
    if (!Live(ref)) return RefState::kDangling;
    return expired.count(ref) != 0 ? RefState::kExpired : RefState::kLive;
  }
  bool ReadKey(uint64_t ref, std::string* key) const override {
    if (!Live(ref)) return false;
    *key = keys.at(ref);
    return true;
  }
  bool EntryIsIntact(uint64_t ref, uint64_t, uint64_t) const override {
    return Live(ref);
  }
};

class MigrationTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kDram = 3;  // the DRAM entry the tests fill
  static constexpr unsigned kCapacity = 32;

  void SetUp() override { Open(Options::SmallProfile()); }
  void TearDown() override {
    table_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }
  void Open(const Options& options) {
    bool created = false;
    ASSERT_OK(
        pool::Pool::Open(options, test::SimDevices(), path_, &pool_, &created));
    ASSERT_OK(LeveledTable::Open(pool_.get(), &table_));
    table_->set_resolver(&resolver_);
    ASSERT_EQ(table_->capacity(), kCapacity);
    device_ = media::SimMedia::Find(path_);
  }

  uint64_t HashOf(uint64_t key) const {
    return table_->hasher().InlineHash(key);
  }
  // `n` fresh 8-byte keys whose hashes end in the `bits` low bits of `low`:
  // bits 0-1 pick the DRAM entry, bit 2 its child on level 1, bit 3 the
  // grandchild on level 2.
  std::vector<uint64_t> Keys(uint64_t low, unsigned bits, size_t n) {
    std::vector<uint64_t> keys;
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    while (keys.size() < n) {
      const uint64_t k = next_key_++;
      if ((HashOf(k) & mask) == (low & mask)) keys.push_back(k);
    }
    return keys;
  }

  void Insert(const Slot& slot, uint64_t hash) {
    const uint64_t d = table_->DramIndex(hash);
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    ASSERT_FALSE(table_->DramFull(d)) << "the test overfilled DRAM entry " << d;
    table_->InsertDram(d, hash, slot, /*logged=*/true, /*expires_at_ms=*/0);
    lock.unlock();
  }
  void Put(uint64_t key, uint64_t value) {
    Insert({key, value, false, false}, HashOf(key));
  }
  void Delete(uint64_t key) { Insert({key, 0, true, false}, HashOf(key)); }
  // Hands out every byte the pool (max_pool_size) has left.
  void FillThePool() {
    uint64_t offset = 0;
    for (const uint64_t size : {64 << 10, 256}) {
      while (pool_->allocator().Allocate(size, 256, &offset).ok()) {
      }
    }
  }
  Status Migrate(uint64_t d = kDram) {
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    const Status s = table_->MigrateDram(d);
    lock.unlock();
    return s;
  }
  // What a lookup of the key finds: kValue (and its value), kTombstone or
  // kAbsent.
  Found Get(uint64_t key, uint64_t* value = nullptr) {
    const std::string bytes = Word(key);
    Slot slot;
    const Found f = table_->Lookup(LookupKey::For(bytes, HashOf(key)), &slot);
    if (value != nullptr) *value = slot.value;
    return f;
  }

  // ---- Reading entries of PMem levels as they are on the media ------------

  uint64_t EntryOffset(unsigned level, uint64_t index) const {
    const uint64_t offset = table_->EntryOffset(level, index);
    EXPECT_NE(offset, 0u) << "level " << level << " entry " << index
                          << " has no block";
    return offset;
  }
  const DirectoryEntry& Entry(unsigned level, uint64_t index) const {
    return *pool_->media().At<DirectoryEntry>(EntryOffset(level, index));
  }
  DirectoryEntry& MutableEntry(unsigned level, uint64_t index) {
    return *pool_->media().At<DirectoryEntry>(EntryOffset(level, index));
  }
  // (An entry whose unit has no block on the level was never written.)
  EntryState State(unsigned level, uint64_t index) const {
    if (table_->EntryOffset(level, index) == 0) return EntryState{};
    return EntryState::Decode(Entry(level, index).state);
  }
  // The entry's occupied slots, oldest first.
  std::vector<Slot> Slots(unsigned level, uint64_t index) const {
    const DirectoryEntry& e = Entry(level, index);
    std::vector<Slot> slots;
    for (unsigned pos = 0; pos < EntryState::Decode(e.state).size; ++pos) {
      const Bucket& b =
          *pool_->media().At<Bucket>(e.bucket[pos / kSlotsPerBucket]);
      slots.push_back({b.keys[pos % 16], b.values[pos % 16],
                       TestBit(e.tombstone, pos), TestBit(e.indirect, pos)});
    }
    return slots;
  }
  std::vector<uint64_t> SlotKeys(unsigned level, uint64_t index) const {
    std::vector<uint64_t> keys;
    for (const Slot& s : Slots(level, index)) keys.push_back(s.key);
    return keys;
  }

  // ---- Persist points
  // ---------------------------------------------------------

  // Runs `body`, keeping the durable image after each of its persist points.
  std::vector<std::vector<uint64_t>> DurableImagesDuring(
      const std::function<void()>& body) {
    std::vector<std::vector<uint64_t>> images;
    device_->SetPersistObserver(
        [&] { images.push_back(device_->DurableImage()); });
    body();
    device_->SetPersistObserver(nullptr);
    return images;
  }
  // Whether the words of an entry that a migration writes before publishing
  // it (filter, flags, bucket references, the occupied slots) are in
  // `image` as they are now.
  bool DataAsNow(const std::vector<uint64_t>& image, unsigned level,
                 uint64_t index) const {
    const DirectoryEntry& e = Entry(level, index);
    const uint64_t at = EntryOffset(level, index) / 8;
    auto same = [&](uint64_t word_index, uint64_t now) {
      return image[word_index] == now;
    };
    for (unsigned w = 0; w < kFilterBytes / 8; ++w)
      if (!same(at + w, e.filter[w])) return false;
    const unsigned size = EntryState::Decode(e.state).size;
    const uint64_t flags = at + offsetof(DirectoryEntry, tombstone) / 8;
    for (unsigned w = 0; w < 8; ++w)  // tombstone and indirect words
      if (!same(flags + w, (&e.tombstone[0])[w])) return false;
    const uint64_t refs = at + offsetof(DirectoryEntry, bucket) / 8;
    for (unsigned pos = 0; pos < size; ++pos) {
      const unsigned b = pos / kSlotsPerBucket;
      if (!same(refs + b, e.bucket[b])) return false;
      const Bucket& bucket = *pool_->media().At<Bucket>(e.bucket[b]);
      const uint64_t slot = e.bucket[b] / 8 + pos % kSlotsPerBucket;
      if (!same(slot, bucket.keys[pos % 16]) ||
          !same(slot + 16, bucket.values[pos % 16]))
        return false;
    }
    return true;
  }
  uint64_t StateIn(const std::vector<uint64_t>& image, unsigned level,
                   uint64_t index) const {
    return image[(EntryOffset(level, index) + offsetof(DirectoryEntry, state)) /
                 8];
  }
  // The first persist point (1-based) whose image satisfies `pred`; 0 if
  // none does.
  static size_t FirstPoint(
      const std::vector<std::vector<uint64_t>>& images,
      const std::function<bool(const std::vector<uint64_t>&)>& pred) {
    for (size_t i = 0; i < images.size(); ++i)
      if (pred(images[i])) return i + 1;
    return 0;
  }

  const std::string path_ = "sim:migration_test";
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<LeveledTable> table_;
  std::shared_ptr<media::SimMedia> device_;
  FakeResolver resolver_;
  uint64_t next_key_ = 1;
};

TEST_F(MigrationTest, FullDramEntryMovesEachRecordToTheChildOfItsNextHashBit) {
  const std::vector<uint64_t> keys = Keys(kDram, 2, kCapacity);
  for (const uint64_t k : keys) Put(k, k * 10);
  EXPECT_TRUE(table_->DramFull(kDram));
  ASSERT_OK(Migrate());
  EXPECT_EQ(table_->level_count(), 2u) << "level 1 created on demand";
  EXPECT_EQ(table_->DramState(kDram).size, 0u);
  EXPECT_EQ(table_->DramState(kDram).epoch, 2u) << "the DRAM epoch advances";
  // Children 6 (bit 2 = 0) and 7 (bit 2 = 1), each in the order the
  // records were written (newest last).
  std::vector<uint64_t> expected[2];
  for (const uint64_t k : keys) expected[(HashOf(k) >> 2) & 1].push_back(k);
  EXPECT_EQ(SlotKeys(1, 6), expected[0]);
  EXPECT_EQ(SlotKeys(1, 7), expected[1]);
  for (const uint64_t j : {6u, 7u}) {
    for (const Slot& s : Slots(1, j)) {
      EXPECT_EQ(s.value, s.key * 10);
      EXPECT_FALSE(s.tombstone);
      EXPECT_FALSE(s.indirect);
    }
  }
  for (const uint64_t k : keys) {
    uint64_t v = 0;
    ASSERT_EQ(Get(k, &v), Found::kValue) << "key " << k;
    EXPECT_EQ(v, k * 10);
  }
  EXPECT_EQ(table_->migrations(), 1u);
}

// Recovery compares log records with the children's epochs: every child of
// a DRAM entry takes its epoch, with records or without.
TEST_F(MigrationTest, EveryChildTakesTheDramEpochEvenWithoutRecords) {
  for (const uint64_t k : Keys(kDram, 3, 5)) Put(k, 1);  // all to child 6
  ASSERT_OK(Migrate());
  EXPECT_EQ(State(1, 6).epoch, 1u);
  EXPECT_EQ(State(1, 6).size, 5u);
  EXPECT_EQ(State(1, 7).epoch, 1u) << "the empty child kept epoch 0";
  EXPECT_EQ(State(1, 7).size, 0u);
  ASSERT_OK(Migrate());  // an empty DRAM entry migrates too (log recycling)
  EXPECT_EQ(State(1, 6).epoch, 2u);
  EXPECT_EQ(State(1, 6).size, 5u);
  EXPECT_EQ(State(1, 7).epoch, 2u);
  EXPECT_EQ(table_->DramState(kDram).epoch, 3u);
  EXPECT_EQ(State(1, 4).epoch, 0u) << "another DRAM entry's child";
}

TEST_F(MigrationTest, NewestVersionOfAKeyWinsWithinTheEntry) {
  const uint64_t key = Keys(kDram | 0 << 2, 3, 1)[0];
  const std::vector<uint64_t> others = Keys(kDram, 3, 3);
  Put(key, 1);
  Put(others[0], 100);
  Put(key, 2);
  Put(others[1], 100);
  Put(others[0], 101);
  Put(key, 3);
  Put(others[2], 100);
  ASSERT_OK(Migrate());
  // One version of each key, in the order of their newest versions.
  EXPECT_EQ(SlotKeys(1, 6),
            (std::vector<uint64_t>{others[1], others[0], key, others[2]}));
  uint64_t v = 0;
  ASSERT_EQ(Get(key, &v), Found::kValue);
  EXPECT_EQ(v, 3u);
  ASSERT_EQ(Get(others[0], &v), Found::kValue);
  EXPECT_EQ(v, 101u);
}

// A newer version in a child's parent only shadows the older one in the
// child; the child keeps both until it migrates itself, which merges them.
TEST_F(MigrationTest, VersionsOnTwoLevelsMergeWhenTheChildMigrates) {
  const uint64_t key = Keys(kDram, 3, 1)[0];  // child 6
  Put(key, 1);
  ASSERT_OK(Migrate());
  Put(key, 2);
  ASSERT_OK(Migrate());
  EXPECT_EQ(SlotKeys(1, 6), (std::vector<uint64_t>{key, key}));
  uint64_t v = 0;
  ASSERT_EQ(Get(key, &v), Found::kValue);
  EXPECT_EQ(v, 2u);
  // Fill child 6 so that the next migration into it migrates it first.
  for (const uint64_t k : Keys(kDram, 3, kCapacity - 2)) Put(k, 7);
  ASSERT_OK(Migrate());
  ASSERT_EQ(State(1, 6).size, kCapacity);
  for (const uint64_t k : Keys(kDram, 3, 1)) Put(k, 8);
  ASSERT_OK(Migrate());
  ASSERT_EQ(table_->level_count(), 3u);
  const uint64_t grandchild = 12 | ((HashOf(key) >> 3) & 1);
  std::vector<Slot> slots = Slots(2, grandchild);
  EXPECT_EQ(std::count_if(slots.begin(), slots.end(),
                          [&](const Slot& s) { return s.key == key; }),
            1)
      << "the older version survived the merge";
  ASSERT_EQ(Get(key, &v), Found::kValue);
  EXPECT_EQ(v, 2u);
}

TEST_F(MigrationTest, TombstoneWithNothingBelowIsDropped) {
  const std::vector<uint64_t> keys = Keys(kDram, 3, 2);
  Delete(keys[0]);  // never written
  Put(keys[1], 5);
  ASSERT_OK(Migrate());
  EXPECT_EQ(SlotKeys(1, 6), std::vector<uint64_t>{keys[1]});
  EXPECT_EQ(Get(keys[0]), Found::kAbsent);
}

TEST_F(MigrationTest, TombstoneAndTheVersionItShadowsInTheSameEntryCancel) {
  const std::vector<uint64_t> keys = Keys(kDram, 3, 2);
  Put(keys[0], 1);
  Put(keys[1], 5);
  Delete(keys[0]);
  ASSERT_OK(Migrate());
  EXPECT_EQ(SlotKeys(1, 6), std::vector<uint64_t>{keys[1]});
  EXPECT_EQ(Get(keys[0]), Found::kAbsent);
}

TEST_F(MigrationTest, TombstoneOverAnOlderVersionBelowIsKept) {
  const uint64_t key = Keys(kDram, 3, 1)[0];
  Put(key, 1);
  ASSERT_OK(Migrate());
  Delete(key);
  ASSERT_OK(Migrate());
  const std::vector<Slot> slots = Slots(1, 6);
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_FALSE(slots[0].tombstone);
  EXPECT_TRUE(slots[1].tombstone) << "the tombstone is the newer slot";
  EXPECT_EQ(Get(key), Found::kTombstone);
}

// A tombstone below already hides everything older: a second one is
// dropped (inline tombstones; one in a payload chunk could be compacted
// away, see the next test). Builds: level 2 holds the value, level 1 a
// tombstone over it, and a new tombstone arrives from DRAM.
TEST_F(MigrationTest, TombstoneOverATombstoneBelowIsDropped) {
  const uint64_t key = Keys(kDram, 3, 1)[0];  // child 6
  Put(key, 1);
  for (const uint64_t k : Keys(kDram, 3, kCapacity - 1)) Put(k, 2);
  ASSERT_OK(Migrate());
  ASSERT_EQ(State(1, 6).size, kCapacity);
  Delete(key);
  const uint64_t filler = Keys(kDram, 3, 1)[0];
  Put(filler, 3);
  ASSERT_OK(Migrate());  // child 6 migrates to level 2 first
  ASSERT_EQ(table_->level_count(), 3u);
  EXPECT_EQ(SlotKeys(1, 6), (std::vector<uint64_t>{key, filler}))
      << "the tombstone shadows the value now on level 2: kept";
  EXPECT_EQ(Get(key), Found::kTombstone);
  Delete(key);
  ASSERT_OK(Migrate());
  EXPECT_EQ(SlotKeys(1, 6), (std::vector<uint64_t>{key, filler}))
      << "a second tombstone over the first was kept";
  EXPECT_EQ(Get(key), Found::kTombstone);
}

TEST_F(MigrationTest, TombstoneOverAPayloadTombstoneBelowIsKept) {
  // An indirect tombstone on level 1 (a key that is not 8 bytes long)...
  const std::string key = "a longer key";
  const uint64_t hash = (table_->hasher().Hash(key) & ~uint64_t{7}) | kDram;
  resolver_.keys[1] = key;
  Insert({hash, 1, false, true}, hash);
  ASSERT_OK(Migrate());
  resolver_.keys[2] = key;
  Insert({hash, 2, true, true}, hash);
  ASSERT_OK(Migrate());
  ASSERT_EQ(Slots(1, 6).size(), 2u);
  // ...does not stand in for a new one: compaction may free its chunk.
  resolver_.keys[3] = key;
  Insert({hash, 3, true, true}, hash);
  ASSERT_OK(Migrate());
  const std::vector<Slot> slots = Slots(1, 6);
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[2].value, 3u);
  EXPECT_TRUE(slots[2].tombstone);
}

TEST_F(MigrationTest, DanglingPayloadReferencesAreDropped) {
  for (uint64_t ref = 1; ref <= 4; ++ref) {
    const std::string key = "key number " + std::to_string(ref);
    resolver_.keys[ref] = key;
    const uint64_t hash = (ref << 8) | kDram;  // child 6: bit 2 clear
    Insert({hash, ref, false, true}, hash);
  }
  resolver_.dead = {2, 3};  // their chunks were compacted
  ASSERT_OK(Migrate());
  std::vector<uint64_t> refs;
  for (const Slot& s : Slots(1, 6)) {
    EXPECT_TRUE(s.indirect);
    refs.push_back(s.value);
  }
  EXPECT_EQ(refs, (std::vector<uint64_t>{1, 4}));
}

TEST_F(MigrationTest, FullChildMigratesToTheNextLevelFirst) {
  const std::vector<uint64_t> first = Keys(kDram, 3, kCapacity);  // child 6
  for (const uint64_t k : first) Put(k, 1);
  ASSERT_OK(Migrate());
  ASSERT_EQ(State(1, 6).size, kCapacity);
  const std::vector<uint64_t> second = Keys(kDram, 3, kCapacity);
  for (const uint64_t k : second) Put(k, 2);
  ASSERT_OK(Migrate());
  EXPECT_EQ(table_->level_count(), 3u);
  EXPECT_EQ(table_->migrations(), 3u);
  EXPECT_EQ(SlotKeys(1, 6), second);
  std::vector<uint64_t> expected[2];
  for (const uint64_t k : first) expected[(HashOf(k) >> 3) & 1].push_back(k);
  EXPECT_EQ(SlotKeys(2, 12), expected[0]);
  EXPECT_EQ(SlotKeys(2, 13), expected[1]);
  // A PMem source keeps its epoch: its refill brings a larger one.
  EXPECT_EQ(State(2, 12).epoch, 1u);
  EXPECT_EQ(State(1, 6).epoch, 2u);
  for (const uint64_t k : first) ASSERT_EQ(Get(k), Found::kValue) << k;
  for (const uint64_t k : second) ASSERT_EQ(Get(k), Found::kValue) << k;
}

// Persist order (leveled_table.h): records, filters and flags of every
// target (one fence), then the targets' state words (one more), so that a
// crash never publishes a record that is not durable.
TEST_F(MigrationTest, ChildrenArePublishedOnlyAfterTheirRecordsAreDurable) {
  Put(Keys(kDram, 2, 1)[0], 0);
  ASSERT_OK(Migrate());  // level 1 exists, with buckets
  for (const uint64_t k : Keys(kDram, 2, kCapacity)) Put(k, k);
  const auto images = DurableImagesDuring([&] { ASSERT_OK(Migrate()); });
  for (const uint64_t child : {6u, 7u}) {
    const size_t data = FirstPoint(
        images, [&](const auto& img) { return DataAsNow(img, 1, child); });
    const uint64_t now = Entry(1, child).state;
    const size_t state = FirstPoint(
        images, [&](const auto& img) { return StateIn(img, 1, child) == now; });
    ASSERT_NE(data, 0u) << "child " << child << ": records never durable";
    ASSERT_NE(state, 0u) << "child " << child << ": state never durable";
    EXPECT_LT(data, state) << "child " << child
                           << ": published no later than its records";
  }
}

// From a PMem source: the grandchildren's records, then their state words,
// then the source's clear, each at a later persist point; a crash between
// the last two leaves records on both levels, never on neither.
TEST_F(MigrationTest, PmemSourceIsClearedOnlyAfterItsChildrenArePublished) {
  for (const uint64_t k : Keys(kDram, 3, kCapacity)) Put(k, 1);
  ASSERT_OK(Migrate());
  for (const uint64_t k : Keys(kDram, 3, kCapacity)) Put(k, 2);
  const uint64_t source_before = Entry(1, 6).state;
  const auto images = DurableImagesDuring([&] { ASSERT_OK(Migrate()); });
  ASSERT_EQ(table_->level_count(), 3u);
  size_t published = 0;
  for (const uint64_t child : {12u, 13u}) {
    const size_t data = FirstPoint(
        images, [&](const auto& img) { return DataAsNow(img, 2, child); });
    const uint64_t now = Entry(2, child).state;
    const size_t state = FirstPoint(
        images, [&](const auto& img) { return StateIn(img, 2, child) == now; });
    ASSERT_NE(data, 0u);
    ASSERT_NE(state, 0u);
    EXPECT_LT(data, state) << "grandchild " << child;
    published = std::max(published, state);
  }
  const uint64_t cleared =
      EntryState{EntryState::Decode(source_before).epoch, 0}.Encode();
  const size_t clear = FirstPoint(
      images, [&](const auto& img) { return StateIn(img, 1, 6) == cleared; });
  ASSERT_NE(clear, 0u) << "the source's clear was never durable";
  EXPECT_LT(published, clear) << "cleared before its records were published";
  // And the refill of the source from DRAM follows its clear.
  const size_t refill = FirstPoint(images, [&](const auto& img) {
    return StateIn(img, 1, 6) == Entry(1, 6).state;
  });
  EXPECT_LT(clear, refill);
}

TEST_F(MigrationTest, MigrationWithoutSpaceMovesNothing) {
  TearDown();
  Options o = Options::SmallProfile();
  o.max_pool_size = 4 << 20;
  Open(o);
  Put(Keys(kDram, 3, 1)[0], 0);
  ASSERT_OK(Migrate());  // level 1 and one bucket of child 6
  FillThePool();
  const std::vector<uint64_t> keys = Keys(kDram, 2, kCapacity);
  for (const uint64_t k : keys) Put(k, 9);
  const EntryState dram = table_->DramState(kDram);
  const uint64_t child6 = Entry(1, 6).state;
  const uint64_t child7 = Entry(1, 7).state;
  const Status s = Migrate();
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message().substr(0, 19), "pool is full: needs") << s.ToString();
  EXPECT_EQ(table_->DramState(kDram).size, dram.size);
  EXPECT_EQ(table_->DramState(kDram).epoch, dram.epoch);
  EXPECT_EQ(Entry(1, 6).state, child6);
  EXPECT_EQ(Entry(1, 7).state, child7);
  for (const uint64_t k : keys) ASSERT_EQ(Get(k), Found::kValue) << k;
}

// The first migration of a unit into a level allocates the unit's
// directory block there: without room for it, NoSpace says so and nothing
// moves.
TEST_F(MigrationTest, UnitWithoutRoomForItsBlockMigratesNothing) {
  TearDown();
  Options o = Options::SmallProfile();
  o.max_pool_size = 4 << 20;
  Open(o);
  Put(Keys(kDram, 3, 1)[0], 0);
  ASSERT_OK(Migrate());  // level 1, and unit 3's block on it
  FillThePool();
  const uint64_t other = 1;  // a unit without a block on level 1
  ASSERT_EQ(table_->EntryOffset(1, other << 1), 0u);
  const std::vector<uint64_t> keys = Keys(other, 2, 5);
  for (const uint64_t k : keys) Put(k, 9);
  const EntryState dram = table_->DramState(other);
  const Status s = Migrate(other);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message().substr(0, 80),
            "allocating the directory block of unit 1 on level 1 (4096 bytes): "
            "pool is full: ")
      << s.ToString();
  EXPECT_EQ(table_->DramState(other).size, dram.size);
  EXPECT_EQ(table_->DramState(other).epoch, dram.epoch);
  EXPECT_EQ(table_->EntryOffset(1, other << 1), 0u);
  for (const uint64_t k : keys) ASSERT_EQ(Get(k), Found::kValue) << k;
}

TEST_F(MigrationTest, ChildLargerThanItsCapacityIsCorruption) {
  Put(Keys(kDram, 3, 1)[0], 0);
  ASSERT_OK(Migrate());
  MutableEntry(1, 6).state = EntryState{1, kCapacity + 1}.Encode();
  Put(Keys(kDram, 3, 1)[0], 0);
  const Status s = Migrate();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.message(), "level 1 entry 6: size exceeds capacity");
  EXPECT_EQ(table_->DramState(kDram).size, 1u) << "the records stay in DRAM";
}

// A damaged bucket reference must not be written through: into nowhere, or
// into a directory block (other entries' state words).
TEST_F(MigrationTest, ChildWithADamagedBucketReferenceIsCorruption) {
  Put(Keys(kDram, 3, 1)[0], 0);
  ASSERT_OK(Migrate());
  const uint64_t directory = EntryOffset(1, 6) & ~uint64_t{4095};  // its block
  for (const uint64_t bad : {uint64_t{12345}, directory}) {
    MutableEntry(1, 6).bucket[0] = bad;
    Put(Keys(kDram, 3, 1)[0], 0);
    const Status s = Migrate();
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), "level 1 entry 6: bucket reference 0 (" +
                               std::to_string(bad) + ") is invalid");
  }
}

}  // namespace
}  // namespace plush::table
