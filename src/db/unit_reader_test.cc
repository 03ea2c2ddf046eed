// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// UnitReader on its own (db/unit_reader.h), on the engine's layers opened
// by hand (tests/engine_layers.h), read through the iterator it feeds
// (db/unit_iterator.h): the versions a unit holds across the DRAM entry
// and the PMem levels come back as each key's newest version, once, with
// deleted keys hidden; a range pool's ranges are read from any key on,
// end where the map says, and yield only the keys of their ranges (a unit
// may hold copies of keys the map gave to another); positions and their
// starts follow the map; damage and a closed DB are reported.

#include "db/unit_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
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

Options RangeOptions() {
  Options o = Options::SmallProfile();  // 4 units: "", "\x40", "\x80", "\xc0"
  o.partitioning = Partitioning::kRange;
  return o;
}

class UnitReaderTest : public ::testing::Test {
 protected:
  void Open(const Options& options) { ASSERT_OK(layers_.Open(options)); }
  UnitReader& reader() { return layers_.unit_reader(); }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_OK(layers_.Put(key, value)) << DescribeKey(key);
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_OK(layers_.Delete(key)) << DescribeKey(key);
    model_.erase(key);
  }
  // Random keys of 1..24 bytes over the whole key space (8-byte keys with
  // 8-byte values inline, the rest in the payload logs), overwritten and
  // deleted, with every unit migrated now and then: versions on every
  // level.
  void WriteRandomly(int ops, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> keys;
    for (int i = 0; i < ops; ++i) {
      const uint64_t r = rng() % 10;
      if (r < 6 || keys.empty()) {
        keys.push_back(test::RandomBytes(rng, 1 + rng() % 24));
        if (rng() % 3 == 0) keys.back().resize(8);
        const size_t value_size = rng() % 3 == 0 ? 8 : rng() % 40;
        Put(keys.back(), test::RandomBytes(rng, value_size));
      } else if (r < 8) {
        Put(keys[rng() % keys.size()], test::RandomBytes(rng, 8));
      } else {
        Delete(keys[rng() % keys.size()]);
      }
      if (HasFatalFailure()) return;
      if (i % 400 == 399) {
        ASSERT_OK(layers_.MigrateAll());
      }
    }
  }
  // The level-1 entry of some unit that holds records, and its unit.
  table::DirectoryEntry* SomeFirstLevelEntry(uint64_t* index, uint64_t* unit) {
    table::LeveledTable& t = layers_.table();
    for (uint64_t i = 0; i < t.entry_count(1); ++i) {
      if (t.StateOf(1, i).size == 0) continue;
      *index = i;
      *unit = t.UnitOfEntry(1, i);
      return layers_.pool().media().At<table::DirectoryEntry>(
          t.EntryOffset(1, i));
    }
    return nullptr;
  }

  test::EngineLayers layers_{"sim:unit_reader_test"};
  Model model_;
};

TEST_F(UnitReaderTest, RangePoolYieldsNewestVersionsInKeyOrder) {
  Open(RangeOptions());
  WriteRandomly(2000, 1);
  if (HasFatalFailure()) return;
  ASSERT_GE(layers_.table().level_count(), 3u);
  Model got;
  ASSERT_OK(layers_.Scan(&got));
  EXPECT_EQ(got.size(), model_.size());
  EXPECT_TRUE(got == model_) << "first difference: "
                             << FirstDifference(got, model_);
  // Each unit's range on its own.
  for (uint64_t p = 0; p < reader().unit_count(); ++p) {
    SCOPED_TRACE("range " + std::to_string(p));
    const std::optional<std::string> start = reader().RangeStart(p);
    ASSERT_TRUE(start.has_value());
    const std::optional<std::string> end = reader().RangeStart(p + 1);
    UnitIterator it(&reader(), /*ordered=*/true, end);
    it.Seek(*start);
    test::ExpectRecords(&it, model_.lower_bound(*start),
                        end ? model_.lower_bound(*end) : model_.end(),
                        model_.size() + 1, "range " + std::to_string(p));
  }
}

TEST_F(UnitReaderTest, HashPoolYieldsEveryLiveKeyOnce) {
  Open(Options::SmallProfile());
  WriteRandomly(2000, 2);
  if (HasFatalFailure()) return;
  ASSERT_GE(layers_.table().level_count(), 3u);
  Model got;
  ASSERT_OK(layers_.Scan(&got));  // a map: order does not matter
  EXPECT_TRUE(got == model_) << "first difference: "
                             << FirstDifference(got, model_);
  // Unordered, each key once.
  UnitIterator it(&reader(), /*ordered=*/false);
  size_t n = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next()) ++n;
  ASSERT_OK(it.status());
  EXPECT_EQ(n, model_.size());
}

TEST_F(UnitReaderTest, SeekReadsFromItsKeyOn) {
  Open(RangeOptions());
  WriteRandomly(1500, 3);
  if (HasFatalFailure()) return;
  std::vector<std::string> targets = {"", std::string(1, '\x40'),
                                      std::string(1, '\x80'),
                                      std::string(1, '\xc0'), "\xff\xff"};
  std::mt19937_64 rng(4);
  for (int i = 0; i < 40; ++i) {
    auto it = model_.begin();
    std::advance(it, static_cast<long>(rng() % model_.size()));
    targets.push_back(it->first);  // an existing key
    targets.push_back(test::RandomBytes(rng, 1 + rng() % 12));
  }
  for (const std::string& target : targets) {
    UnitIterator it(&reader(), /*ordered=*/true);
    it.Seek(target);
    test::ExpectRecords(&it, model_.lower_bound(target), model_.end(), 40,
                        "seek to " + DescribeKey(target));
    if (HasFatalFailure()) return;
  }
}

TEST_F(UnitReaderTest, RangesEndWhereTheMapSays) {
  Open(RangeOptions());
  EXPECT_EQ(reader().unit_count(), 4u);
  EXPECT_EQ(reader().RangeStart(0), std::string());
  EXPECT_EQ(reader().RangeStart(1), std::string(1, '\x40'));
  EXPECT_EQ(reader().RangeStart(3), std::string(1, '\xc0'));
  EXPECT_EQ(reader().RangeStart(4), std::nullopt);
  EXPECT_EQ(reader().PositionOf(""), 0u);
  EXPECT_EQ(reader().PositionOf("\x3f\xff"), 0u);
  EXPECT_EQ(reader().PositionOf("\x40"), 1u);
  EXPECT_EQ(reader().PositionOf("\xff\xff"), 3u);

  ScanBatch batch;
  std::optional<std::string> upper;
  ASSERT_OK(reader().ReadRange("\x41", std::nullopt, 0, &batch, &upper));
  EXPECT_EQ(upper, std::string(1, '\x80'));
  ASSERT_OK(reader().ReadRange("", std::nullopt, 0, &batch, &upper));
  EXPECT_EQ(upper, std::string(1, '\x40'));
  ASSERT_OK(reader().ReadRange("\xc5", std::nullopt, 0, &batch, &upper));
  EXPECT_EQ(upper, std::nullopt) << "the last range";

  // Many long keys in one range: a read that wants few of them may end
  // early, and says where.
  for (int i = 0; i < 300; ++i) {
    Put(std::string("\x50" "long key ") + std::to_string(1000 + i), "value");
    if (HasFatalFailure()) return;
  }
  ASSERT_OK(layers_.MigrateAll());
  batch.Clear();
  ASSERT_OK(reader().ReadRange("\x50", std::nullopt, 5, &batch, &upper));
  ASSERT_TRUE(upper.has_value());
  EXPECT_GT(*upper, "\x50");
  EXPECT_LE(*upper, "\x80");
  // A stop inside the range ends the batch there (the keys above it are
  // left out by their fingerprints, unread).
  const std::string stop = "\x50long key 1100";
  batch.Clear();
  ASSERT_OK(reader().ReadRange("\x50", stop, 0, &batch, &upper));
  EXPECT_EQ(upper, stop);
  UnitIterator bounded(&reader(), /*ordered=*/true, stop);
  bounded.Seek("\x50");
  test::ExpectRecords(&bounded, model_.lower_bound("\x50"),
                      model_.lower_bound(stop), model_.size() + 1,
                      "scan of the long keys below the stop");
  UnitIterator it(&reader(), /*ordered=*/true);
  it.Seek("\x50");
  test::ExpectRecords(&it, model_.lower_bound("\x50"), model_.end(),
                      model_.size() + 1, "scan of the long keys");
}

// A unit may hold versions of keys whose range the map gave to another
// unit (copies a re-balance leaves behind): they are not its keys.
TEST_F(UnitReaderTest, KeysOutsideTheirUnitsRangeAreLeftOut) {
  Open(RangeOptions());
  for (int i = 0; i < 40; ++i) {
    // Unit 0 (below "\x40"), below and above "\x20"; inline and long.
    const char first = static_cast<char>(i % 2 == 0 ? 0x10 : 0x30);
    Put(std::string(1, first) + "key" + std::to_string(i),
        std::to_string(i * 7));
    Put(std::string(1, first) + "8bytes" + static_cast<char>('A' + i),
        test::Word(i));
    Put(std::string("\x90" "in unit 2 ") + std::to_string(i), "w");
    if (HasFatalFailure()) return;
    if (i == 20) {
      ASSERT_OK(layers_.MigrateAll());
    }
  }
  // The map changes under the records: positions 2 and 3 merge into unit
  // 2, and unit 3 takes the keys of unit 0 from "\x20" on (without them:
  // no re-balance copied them).
  RangeMap::Change merge;
  merge.kind = RangeMap::Change::Kind::kMerge;
  merge.position = 2;
  merge.unit = 2;
  merge.count = 2;
  ASSERT_OK(layers_.pool().range_map_store()->Switch(merge));
  RangeMap::Change split;
  split.kind = RangeMap::Change::Kind::kSplit;
  split.position = 0;
  split.unit = 3;
  split.separator = "\x20";
  ASSERT_OK(layers_.pool().range_map_store()->Switch(split));
  EXPECT_EQ(reader().RangeStart(1), std::string(1, '\x20'));
  EXPECT_EQ(reader().RangeStart(2), std::string(1, '\x40'));
  EXPECT_EQ(reader().RangeStart(3), std::string(1, '\x80'));
  EXPECT_EQ(reader().RangeStart(4), std::nullopt);
  EXPECT_EQ(reader().PositionOf("\x30"), 1u);
  EXPECT_EQ(reader().PositionOf("\xd0"), 3u);

  Model expected = model_;
  expected.erase(expected.lower_bound("\x20"), expected.lower_bound("\x40"));
  Model got;
  ASSERT_OK(layers_.Scan(&got));
  EXPECT_TRUE(got == expected) << "first difference: "
                               << FirstDifference(got, expected);
  ScanBatch batch;
  std::optional<std::string> upper;
  ASSERT_OK(reader().ReadRange("\x10", std::nullopt, 0, &batch, &upper));
  EXPECT_EQ(upper, std::string(1, '\x20'));
  UnitIterator it(&reader(), /*ordered=*/true);
  it.Seek("\x10");
  test::ExpectRecords(&it, expected.lower_bound("\x10"), expected.end(),
                      expected.size() + 1, "after the split");
}

TEST_F(UnitReaderTest, DamageAndClosingAreReported) {
  Open(RangeOptions());
  WriteRandomly(1000, 5);
  if (HasFatalFailure()) return;
  ASSERT_OK(layers_.MigrateAll());
  uint64_t index = 0;
  uint64_t unit = 0;
  table::DirectoryEntry* entry = SomeFirstLevelEntry(&index, &unit);
  ASSERT_NE(entry, nullptr);
  const uint64_t saved = entry->bucket[0];
  entry->bucket[0] = saved + 8;  // not a bucket's offset
  const std::string damage = "Corruption: level 1 entry " +
                             std::to_string(index) +
                             ": damaged bucket reference";
  UnitIterator it(&reader(), /*ordered=*/true);
  it.SeekToFirst();
  while (it.Valid()) it.Next();
  EXPECT_EQ(it.status().ToString(), damage);
  ScanBatch batch;
  EXPECT_EQ(reader().ReadUnit(unit, &batch).ToString(), damage);
  entry->bucket[0] = saved;
  Model got;
  ASSERT_OK(layers_.Scan(&got));
  EXPECT_TRUE(got == model_);

  layers_.MarkClosed();
  std::optional<std::string> upper;
  EXPECT_EQ(reader().ReadRange("", std::nullopt, 0, &batch, &upper).ToString(),
            "InvalidArgument: the DB is closed");
  EXPECT_EQ(reader().ReadUnit(0, &batch).ToString(),
            "InvalidArgument: the DB is closed");
  UnitIterator closed(&reader(), /*ordered=*/true);
  closed.SeekToFirst();
  EXPECT_FALSE(closed.Valid());
  EXPECT_EQ(closed.status().ToString(), "InvalidArgument: the DB is closed");
}

}  // namespace
}  // namespace plush
