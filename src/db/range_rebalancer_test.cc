// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RangeRebalancer on its own (db/range_rebalancer.h), on the engine's
// layers opened by hand (tests/engine_layers.h) over a range pool of 8
// units (the small profile with 3 DRAM directory bits; the map starts
// with unit p holding the keys whose first byte lies in [0x20 p,
// 0x20 (p + 1))). No background thread: every move is the test's.
//
//   * a heavy unit is split at its median key: both halves move to units
//     freed for them, every record is kept (newest versions, deletions
//     too) and each half holds about half of them; a unit that holds
//     several means is cut into as many pieces at once;
//   * units are freed by merging the lightest neighbours, the upper into
//     the lower, whose range keeps its lower bound; or, where neighbours
//     hold nothing, by merging the run of them into its first unit;
//   * a unit whose keys keep growing (falling) keeps them: a freed unit
//     takes the keys above (below) them, and nothing is copied;
//   * what the re-balancer cannot do, and why.

#include "db/range_rebalancer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine_layers.h"
#include "testutil.h"

namespace plush {
namespace {

using test::DescribeKey;
using test::FirstDifference;
using Model = std::map<std::string, std::string>;

Options EightUnits() {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 3;
  o.partitioning = Partitioning::kRange;
  return o;
}

// An 8-byte key whose first byte is `first`, then `n` big-endian.
std::string KeyIn(uint8_t first, uint64_t n) {
  const uint64_t word = __builtin_bswap64(n & 0x00FFFFFFFFFFFFFFull) |
                        uint64_t{first};
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

class RangeRebalancerTest : public ::testing::Test {
 protected:
  void Open(const Options& options) {
    ASSERT_OK(layers_.Open(options));
    rebalancer_ = std::make_unique<RangeRebalancer>(
        layers_.pool().range_map_store(), &layers_.table(), &layers_.payload(),
        &layers_.rewriter(), layers_.tails(), layers_.closed(),
        /*empty=*/false);
  }
  void TearDown() override { rebalancer_.reset(); }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_OK(layers_.Put(key, value)) << DescribeKey(key);
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_OK(layers_.Delete(key)) << DescribeKey(key);
    model_.erase(key);
  }
  // `n` records in the range of unit `unit` (as the map starts), in an
  // order that does not grow: inline ones, and every fifth a long key
  // with a long value.
  void Fill(unsigned unit, int n, uint64_t seed) {
    std::vector<uint64_t> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = (static_cast<uint64_t>(i) + 1) * 7919;
    std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed));
    for (int i = 0; i < n; ++i) {
      const std::string key =
          KeyIn(static_cast<uint8_t>(0x20 * unit + 1), ids[i]);
      if (i % 5 == 4) {
        Put(key + "/long", "a value of some length " + std::to_string(ids[i]));
      } else {
        Put(key, test::Word(ids[i] * 3));
      }
      if (HasFatalFailure()) return;
    }
  }
  // Every record as the model says: by Get, and by a scan.
  void ExpectAllRecords(const std::string& when) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : model_) keys.push_back(k);
    keys.insert(keys.end(), deleted_.begin(), deleted_.end());
    for (const std::string& key : keys) {
      std::string value;
      const Status s = layers_.Get(key, &value);
      auto it = model_.find(key);
      if (it == model_.end()) {
        ASSERT_TRUE(s.IsNotFound()) << when << ": deleted " << DescribeKey(key)
                                    << " reads " << s.ToString();
      } else {
        ASSERT_OK(s) << when << ": " << DescribeKey(key);
        ASSERT_EQ(value, it->second) << when << ": " << DescribeKey(key);
      }
    }
    Model got;
    ASSERT_OK(layers_.Scan(&got)) << when;
    EXPECT_TRUE(got == model_) << when << ": the scan's first difference: "
                               << FirstDifference(got, model_);
  }
  // The stored versions of every unit, counted from the levels.
  std::vector<uint64_t> Stored() {
    return layers_.table().CountRecords().per_unit;
  }
  RangeMap& map() { return *layers_.pool().range_map_store()->map(); }
  uint64_t generation() {
    return layers_.pool().range_map_store()->generation();
  }

  test::EngineLayers layers_{"sim:range_rebalancer_test"};
  std::unique_ptr<RangeRebalancer> rebalancer_;
  Model model_;
  std::vector<std::string> deleted_;
};

TEST_F(RangeRebalancerTest, HeavyUnitIsSplitAtItsMedianKeepingEveryRecord) {
  Open(EightUnits());
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Unit 0 heavy; its neighbours light, in pairs of distinct weights.
  Fill(0, 600, 1);
  const int light[8] = {0, 5, 6, 7, 8, 40, 40, 40};
  for (unsigned u = 1; u < 8; ++u) Fill(u, light[u], u);
  if (HasFatalFailure()) return;
  // Overwrites and deletions in unit 0: only newest versions move, and
  // deleted keys stay deleted.
  int overwritten = 0;
  for (auto it = model_.begin(); it != model_.end() && overwritten < 60; ++it) {
    if (static_cast<uint8_t>(it->first[0]) != 0x01) continue;
    if (overwritten % 3 == 0) {
      deleted_.push_back(it->first);
    } else if (it->first.size() == 8) {
      it->second = test::Word(overwritten);
    } else {
      it->second = "overwritten";
    }
    ++overwritten;
  }
  for (const std::string& key : deleted_) Delete(key);
  for (const auto& [k, v] : model_) {
    if (static_cast<uint8_t>(k[0]) == 0x01) Put(k, v);
    if (HasFatalFailure()) return;
  }
  ASSERT_OK(layers_.MigrateAll());
  ExpectAllRecords("before");
  if (HasFatalFailure()) return;

  EXPECT_FALSE(rebalancer_->Heavy(0)) << "nothing is heavy before the count";
  rebalancer_->CountUnits();
  EXPECT_TRUE(rebalancer_->Heavy(0));
  EXPECT_TRUE(rebalancer_->SplitDue(0));
  for (unsigned u = 1; u < 8; ++u) EXPECT_FALSE(rebalancer_->Heavy(u)) << u;
  uint64_t live0 = 0;
  for (const auto& [k, v] : model_) live0 += static_cast<uint8_t>(k[0]) < 0x20;
  const RangeMap::Range before1 = *map().RangeOfUnit(1);
  const RangeMap::Range before2 = *map().RangeOfUnit(2);
  const RangeMap::Range before3 = *map().RangeOfUnit(3);
  const RangeMap::Range before4 = *map().RangeOfUnit(4);

  uint64_t moves = 0;
  const std::string written = std::next(model_.begin(), 300)->first;
  ASSERT_OK(rebalancer_->Rebalance(0, written, &moves));
  // Two merges free units 2 and 4 (the lightest disjoint pairs: 1+2 and
  // 3+4); unit 2 takes the upper half of unit 0's keys, unit 4 the lower.
  EXPECT_EQ(moves, 4u) << "merge, split, merge, reassignment";
  EXPECT_EQ(generation(), 4u);
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{4, 2, 1, 3, 5, 6, 7}));
  // The merges kept the lower unit, whose range kept its lower bound.
  EXPECT_EQ(map().RangeOfUnit(1)->lower, before1.lower);
  EXPECT_EQ(map().RangeOfUnit(1)->upper, before2.upper);
  EXPECT_EQ(map().RangeOfUnit(3)->lower, before3.lower);
  EXPECT_EQ(map().RangeOfUnit(3)->upper, before4.upper);
  // The halves: unit 0's range, cut once.
  const RangeMap::Range lower = *map().RangeOfUnit(4);
  const RangeMap::Range upper = *map().RangeOfUnit(2);
  EXPECT_EQ(lower.lower, "");
  EXPECT_EQ(lower.upper, upper.lower);
  EXPECT_EQ(upper.upper, before1.lower);
  EXPECT_FALSE(map().RangeOfUnit(0).has_value()) << "unit 0 is free";

  ExpectAllRecords("after the split");
  if (HasFatalFailure()) return;
  // Spread: each half holds about half of unit 0's records (its newest
  // versions only), unit 0 nothing.
  uint64_t below = 0;
  for (const auto& [k, v] : model_) below += k < upper.lower;
  EXPECT_GE(below, live0 * 2 / 5);
  EXPECT_LE(below, live0 * 3 / 5);
  const std::vector<uint64_t> stored = Stored();
  EXPECT_EQ(stored[0], 0u) << "the unit split is cleared";
  EXPECT_EQ(stored[4], below);
  EXPECT_EQ(stored[2], live0 - below);
  // Copied: unit 0's live records, and the two merged units'.
  EXPECT_EQ(rebalancer_->records_copied(),
            live0 + static_cast<uint64_t>(light[2] + light[4]));

  // Writes go where the map says now.
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x01, 1)), 4u);
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x1f, 1)), 2u);
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x41, 1)), 1u);
  Put(KeyIn(0x1f, 5), test::Word(5));
  Put(KeyIn(0x41, 5), "a long value for a merged range");
  ExpectAllRecords("after writes");
}

// Neighbours that hold nothing are merged into the first of their run, in
// one change, which frees the others.
TEST_F(RangeRebalancerTest, EmptyNeighboursAreMergedIntoTheFirst) {
  Open(EightUnits());
  Fill(0, 400, 2);
  if (HasFatalFailure()) return;
  ASSERT_OK(layers_.MigrateAll());
  rebalancer_->CountUnits();
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, std::next(model_.begin(), 100)->first,
                                   &moves));
  EXPECT_EQ(moves, 3u) << "merge of seven positions, split, reassignment";
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{3, 2, 1}));
  EXPECT_EQ(map().RangeOfUnit(1)->lower, std::string(1, '\x20'));
  EXPECT_EQ(map().RangeOfUnit(1)->upper, std::nullopt);
  EXPECT_EQ(rebalancer_->records_copied(), model_.size())
      << "empty units copy nothing";
  ExpectAllRecords("after");
}

// A unit that holds the keys several units should share (four means) is
// cut into that many pieces in one split: each key is copied once, where
// halving it twice would copy each twice.
TEST_F(RangeRebalancerTest, UnitOfManyMeansIsCutIntoAsManyPieces) {
  Open(EightUnits());
  Fill(0, 120, 3);
  Fill(7, 60, 4);
  if (HasFatalFailure()) return;
  ASSERT_OK(layers_.MigrateAll());
  rebalancer_->CountUnits();
  ASSERT_TRUE(rebalancer_->Heavy(0));
  ASSERT_FALSE(rebalancer_->Heavy(7));
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, std::next(model_.begin(), 30)->first,
                                   &moves));
  EXPECT_EQ(moves, 5u)
      << "merge of six empty positions, three splits, reassignment";
  // Units 2, 3, 4 and 5, freed by the merge into unit 1, take the pieces
  // from the top down; unit 0 is free.
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{5, 4, 3, 2, 1, 7}));
  EXPECT_EQ(map().RangeOfUnit(5)->lower, "");
  EXPECT_EQ(map().RangeOfUnit(2)->upper, std::string(1, '\x20'));
  const std::vector<uint64_t> stored = Stored();
  EXPECT_EQ(stored[0], 0u) << "the unit split is cleared";
  for (const uint32_t u : {5u, 4u, 3u, 2u}) {
    EXPECT_GE(stored[u], 120u / 4 - 2) << "unit " << u;
    EXPECT_LE(stored[u], 120u / 4 + 2) << "unit " << u;
  }
  EXPECT_EQ(rebalancer_->records_copied(), 120u) << "each key once";
  ExpectAllRecords("after");
}

// Keys that keep growing: the unit keeps them all and a freed unit takes
// the keys above them; nothing moves.
TEST_F(RangeRebalancerTest, UnitOfGrowingKeysKeepsThemAndNothingIsCopied) {
  Open(EightUnits());
  for (uint64_t i = 0; i < 300; ++i) {
    Put(KeyIn(0x02, 1000 + i), test::Word(i));
    if (HasFatalFailure()) return;
  }
  rebalancer_->CountUnits();
  ASSERT_TRUE(layers_.tails()->Growing(0));
  EXPECT_TRUE(rebalancer_->SplitDue(0));
  const uint64_t records = layers_.table().UnitRecords(0);
  const uint64_t dram = layers_.table().DramState(0).size;
  ASSERT_GT(dram, 0u);
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, KeyIn(0x02, 1299), &moves));
  EXPECT_EQ(moves, 2u) << "the merge of the empty units, and the split";
  EXPECT_EQ(rebalancer_->records_copied(), 0u);
  EXPECT_EQ(layers_.table().UnitRecords(0), records) << "unit 0 kept its keys";
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(map().RangeOfUnit(2)->lower,
            KeyIn(0x02, 1299) + std::string(1, '\0'))
      << "right above the largest key";
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x02, 1300)), 2u) << "the next key";
  ExpectAllRecords("after");
  // Unit 0 keeps its records where they were (its DRAM entry's too: it is
  // written no more, and migrating it would only take space), and unit 2,
  // which holds nothing yet, takes no directory block.
  EXPECT_EQ(layers_.table().DramState(0).size, dram)
      << "the split migrated the unit it retired";
  EXPECT_TRUE(rebalancer_->Retired(0));
  EXPECT_FALSE(rebalancer_->Retired(2));
  const uint64_t children = uint64_t{1} << EightUnits().first_level_fanout_bits;
  EXPECT_EQ(layers_.table().EntryOffset(1, 2 * children), 0u)
      << "unit 2 took a block for holding nothing";
  // It still takes writes below its largest key (an update, a writer's
  // key that raced the split), and stays retired: its writer migrates it
  // when they fill it.
  Put(KeyIn(0x02, 1000), test::Word(7));
  EXPECT_TRUE(rebalancer_->Retired(0));
  ExpectAllRecords("after a write into the retired unit");
}

// Keys that keep falling: the unit keeps them all and a freed unit takes
// the keys below them; nothing moves. The unit's range then begins at its
// smallest key, and its records keep the fingerprints taken on its old
// lower bound, by which scans from inside its range read it.
TEST_F(RangeRebalancerTest, UnitOfFallingKeysKeepsThemAndNothingIsCopied) {
  Open(EightUnits());
  auto value = [](uint64_t i) {
    return "a value of a falling key, " + std::to_string(i);
  };
  for (uint64_t i = 0; i < 300; ++i) {
    Put(KeyIn(0x02, 5000 - i), value(i));
    if (HasFatalFailure()) return;
  }
  rebalancer_->CountUnits();
  ASSERT_TRUE(layers_.tails()->Falling(0));
  EXPECT_TRUE(rebalancer_->SplitDue(0));
  const uint64_t records = layers_.table().UnitRecords(0);
  const uint64_t dram = layers_.table().DramState(0).size;
  ASSERT_GT(dram, 0u);
  ASSERT_LT(dram, records) << "some of its records are on PMem";
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, KeyIn(0x02, 4701), &moves));
  EXPECT_EQ(moves, 2u) << "the merge of the empty units, and the split";
  EXPECT_EQ(rebalancer_->records_copied(), 0u);
  EXPECT_EQ(layers_.table().UnitRecords(0), records) << "unit 0 kept its keys";
  ASSERT_EQ(map().Units(), (std::vector<uint32_t>{2, 0, 1}));
  EXPECT_EQ(map().RangeOfUnit(0)->lower, KeyIn(0x02, 4701))
      << "right at the smallest key";
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x02, 4700)), 2u) << "the next key";
  EXPECT_EQ(layers_.table().DramState(0).size, dram)
      << "the split migrated the unit it retired";
  EXPECT_TRUE(rebalancer_->Retired(0));
  ExpectAllRecords("after");
  std::string report;
  EXPECT_EQ(layers_.table().Verify(&report), 0u) << report;
  // Scans from inside the unit's range leave out what lies below where
  // they start by the fingerprints: taken on the base, they are right.
  for (const uint64_t from : {4702u, 4850u, 4999u}) {
    Model got;
    ASSERT_OK(layers_.Scan(&got, KeyIn(0x02, from)));
    const Model want(model_.lower_bound(KeyIn(0x02, from)), model_.end());
    EXPECT_TRUE(got == want) << "from " << from << ": the first difference: "
                             << FirstDifference(got, want);
  }
  // The keys go on falling into unit 2, which is split the same way.
  for (uint64_t i = 300; i < 600; ++i) {
    Put(KeyIn(0x02, 5000 - i), value(i));
    if (HasFatalFailure()) return;
  }
  EXPECT_TRUE(layers_.tails()->Falling(2));
  ASSERT_OK(rebalancer_->Rebalance(2, KeyIn(0x02, 4401), &moves));
  EXPECT_EQ(rebalancer_->records_copied(), 0u);
  EXPECT_EQ(layers_.UnitOf(KeyIn(0x02, 4400)), 3u);
  ExpectAllRecords("after the second split");
  EXPECT_EQ(layers_.table().Verify(&report), 0u) << report;
}

// Once no unit is free for nothing (every unit named and holding records),
// a split of growing keys frees its unit by merging light neighbours,
// which copies: units of growing keys then grow to twice the mean (plus
// half an entry) before they are due, not the mean.
TEST_F(RangeRebalancerTest, GrowingUnitsGrowFurtherOnceNoUnitIsFree) {
  Open(EightUnits());
  // Few records in each other unit: two neighbours merge below 3/4 of the
  // growing unit (which FindFree asks).
  for (unsigned unit = 1; unit < 8; ++unit) {
    Fill(unit, 8, unit);
    if (HasFatalFailure()) return;
  }
  const uint64_t half_entry = layers_.table().capacity() / 2;
  auto mean = [&] {
    uint64_t total = 0;
    for (uint64_t u = 0; u < 8; ++u)
      total += layers_.table().UnitRecords(u);
    return total / 8;
  };
  uint64_t next = 1000;
  // Growing keys into `unit` until it holds more than `factor` times the
  // mean plus half an entry, plus `more`.
  auto grow = [&](uint64_t unit, uint64_t factor, uint64_t more) {
    while (layers_.table().UnitRecords(unit) <=
           factor * mean() + half_entry + more) {
      Put(KeyIn(0x02, next), test::Word(next));
      ++next;
      if (HasFatalFailure()) return;
    }
  };
  rebalancer_->CountUnits();
  // Due above the mean plus half an entry while units may be free for
  // nothing (not known before a split looks).
  grow(0, 1, 0);
  ASSERT_TRUE(layers_.tails()->Growing(0));
  EXPECT_TRUE(rebalancer_->SplitDue(0));
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, KeyIn(0x02, next - 1), &moves));
  ASSERT_EQ(moves, 2u) << "a merge of light neighbours, and the split";
  EXPECT_GT(rebalancer_->records_copied(), 0u) << "the merge copies";
  const uint64_t grower = layers_.UnitOf(KeyIn(0x02, next));
  ASSERT_NE(grower, 0u);
  // The unit that took the keys above: not due above the mean plus half
  // an entry any more, only above twice the mean.
  grow(grower, 1, 0);
  // (SplitDue reads the mean as a split or a heavy unit last took it.)
  ASSERT_OK(rebalancer_->Rebalance(grower, KeyIn(0x02, next - 1), &moves));
  EXPECT_EQ(moves, 0u);
  EXPECT_FALSE(rebalancer_->SplitDue(grower));
  grow(grower, 2, 0);
  EXPECT_TRUE(rebalancer_->SplitDue(grower));
  ExpectAllRecords("after");
}

// A unit retired by a split of growing keys is split at its median, like
// any other, once it is heavy: its DRAM entry, which still holds its last
// keys, does not make it look like a unit of growing keys again (splits
// above its largest key would move nothing, for ever).
TEST_F(RangeRebalancerTest, RetiredUnitThatIsHeavyIsSplitAtItsMedian) {
  Open(EightUnits());
  for (uint64_t i = 0; i < 1200; ++i) {
    Put(KeyIn(0x02, 1000 + i), test::Word(i));
    if (HasFatalFailure()) return;
  }
  rebalancer_->CountUnits();
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, KeyIn(0x02, 2199), &moves));
  ASSERT_TRUE(rebalancer_->Retired(0));
  ASSERT_GT(layers_.table().DramState(0).size, 0u);
  ASSERT_OK(rebalancer_->RebalanceAll(&moves));
  EXPECT_GT(rebalancer_->records_copied(), 0u) << "no median split";
  std::vector<uint64_t> stored = Stored();
  EXPECT_LT(*std::max_element(stored.begin(), stored.end()), 1200u);
  ExpectAllRecords("after");
}

// A unit heavy only with the versions its DRAM entry holds of keys written
// again is rewritten without them, not split: a split would copy its
// newest versions only, and leave both halves to fill with versions again.
TEST_F(RangeRebalancerTest, UnitHeavyWithVersionsIsRewrittenNotSplit) {
  Open(EightUnits());
  const uint64_t capacity = layers_.table().capacity();
  Fill(0, static_cast<int>(capacity), 1);
  if (HasFatalFailure()) return;
  ASSERT_OK(layers_.MigrateAll());
  // An eighth of the keys written six times over: three quarters of the
  // DRAM entry are versions of them.
  std::vector<std::string> hot;
  for (auto it = model_.begin(); hot.size() < capacity / 8; ++it) {
    hot.push_back(it->first);
  }
  for (int round = 0; round < 6; ++round) {
    for (const std::string& key : hot) {
      Put(key, key.size() == 8 ? test::Word(round) : "version " +
                                                         std::to_string(round));
      if (HasFatalFailure()) return;
    }
  }
  ASSERT_EQ(layers_.table().DramState(0).size, 6 * hot.size());
  rebalancer_->CountUnits();
  ASSERT_TRUE(rebalancer_->Heavy(0));
  uint64_t moves = 0;
  ASSERT_OK(rebalancer_->Rebalance(0, hot[1], &moves));
  EXPECT_EQ(moves, 0u);
  EXPECT_EQ(rebalancer_->records_copied(), 0u);
  EXPECT_EQ(map().Units(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(layers_.table().DramState(0).size, hot.size())
      << "the DRAM entry was not rewritten";
  EXPECT_FALSE(rebalancer_->Heavy(0));
  ExpectAllRecords("after");
}

// A unit is heavy against the mean of every unit's records, the ones in
// DRAM entries too: units whose records all lie in DRAM (keys that keep
// growing leave them there) count as much as units whose records migrated.
TEST_F(RangeRebalancerTest, RecordsInDramCountTowardsTheMean) {
  Open(EightUnits());
  const uint64_t capacity = layers_.table().capacity();
  for (unsigned unit = 1; unit < 8; ++unit) {
    Fill(unit, static_cast<int>(capacity / 2), unit);
    if (HasFatalFailure()) return;
    ASSERT_EQ(layers_.table().UnitPmemRecords(unit), 0u);
  }
  Fill(0, static_cast<int>(2 * capacity), 0);
  if (HasFatalFailure()) return;
  rebalancer_->CountUnits();
  // Over all eight: (2 + 7 / 2) / 8 of an entry each, which makes a unit
  // heavy above 2 * 0.69 + 1 entries: not unit 0's 2. (By its PMem records
  // alone, the mean is below a quarter of an entry, and unit 0 is heavy.)
  EXPECT_FALSE(rebalancer_->Heavy(0));
  Fill(0, static_cast<int>(4 * capacity), 0);  // 2 more entries' worth
  if (HasFatalFailure()) return;
  EXPECT_TRUE(rebalancer_->Heavy(0));
}

TEST_F(RangeRebalancerTest, WhatCannotBeRebalancedSaysWhy) {
  // A hash pool has no units to move.
  {
    test::EngineLayers hash("sim:range_rebalancer_test_hash");
    ASSERT_OK(hash.Open(Options::SmallProfile()));
    RangeRebalancer r(hash.pool().range_map_store(), &hash.table(),
                      &hash.payload(), &hash.rewriter(), hash.tails(),
                      hash.closed(), /*empty=*/true);
    EXPECT_FALSE(r.enabled());
    uint64_t moves = 7;
    const Status s = r.RebalanceAll(&moves);
    EXPECT_EQ(s.ToString(),
              "NotSupported: re-balancing needs a range pool (this one is "
              "hash-partitioned)");
    EXPECT_EQ(moves, 0u);
    EXPECT_FALSE(r.Heavy(0));
  }
  Open(EightUnits());
  EXPECT_TRUE(rebalancer_->enabled());
  // Balanced: nothing to do.
  for (unsigned u = 0; u < 8; ++u) Fill(u, 30, u);
  if (HasFatalFailure()) return;
  uint64_t moves = 9;
  ASSERT_OK(rebalancer_->RebalanceAll(&moves));
  EXPECT_EQ(moves, 0u);
  EXPECT_EQ(generation(), 0u);

  // A closed DB: the first move refuses, the map stays.
  Fill(0, 500, 9);
  if (HasFatalFailure()) return;
  ASSERT_OK(layers_.MigrateAll());
  rebalancer_->CountUnits();
  ASSERT_TRUE(rebalancer_->Heavy(0));
  layers_.MarkClosed();
  const Status s = rebalancer_->Rebalance(0, model_.begin()->first, &moves);
  EXPECT_EQ(s.ToString(), "InvalidArgument: the DB is closed");
  EXPECT_EQ(moves, 0u);
  EXPECT_EQ(map().Units(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace plush
