// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// UnitIterator on its own, over a scripted ScanSource: what it yields from
// the versions a unit holds (newest version of each key, no tombstones, in
// unsigned byte order), how it moves from unit to unit, Seek on ordered and
// unordered sources, and read errors. (The real source, UnitReader, is
// exercised through DB::NewIterator by scan_model_test.cc.)

#include "db/unit_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "testutil.h"

namespace plush {
namespace {

struct Version {
  std::string key;
  std::string value;
  bool tombstone = false;
};

// Units of versions, each unit newest first (as UnitReader hands them out).
class ScriptedSource final : public ScanSource {
 public:
  std::vector<std::vector<Version>> units;
  // The unit of a key (ordered sources: units partition the key space in
  // order). By default the first byte's high bits, for 4 units.
  std::function<uint64_t(std::string_view)> unit_of =
      [](std::string_view key) -> uint64_t {
    return key.empty() ? 0 : static_cast<unsigned char>(key[0]) >> 6;
  };
  // ReadUnit of this unit fails with this status (if not OK).
  uint64_t failing_unit = ~uint64_t{0};
  Status failure;
  // (unit, lower bound) of every ReadUnit.
  std::vector<std::pair<uint64_t, std::string>> reads;
  int positions_asked = 0;
  // Ordered: batches end after `want` keys, as UnitReader's may (else
  // they hold the whole range); the `want` of every ReadRange.
  bool end_batches_early = false;
  std::vector<size_t> wants;
  std::vector<std::string> stops;  // of every ReadRange

  uint64_t unit_count() const override { return units.size(); }
  Status ReadUnit(uint64_t unit, ScanBatch* batch) override {
    return Read(unit, "", std::string(8, '\xff'), batch);
  }
  // Ordered: unit u holds [u << 6, (u + 1) << 6) (first byte).
  Status ReadRange(std::string_view from, std::optional<std::string_view> stop,
                   size_t want, ScanBatch* batch,
                   std::optional<std::string>* upper) override {
    wants.push_back(want);
    stops.push_back(stop ? std::string(*stop) : std::string("(none)"));
    const uint64_t unit = unit_of(from);
    *upper = RangeStart(unit + 1);
    if (end_batches_early && want > 0) {
      std::vector<std::string> keys;
      for (const Version& v : units[unit])
        if (v.key >= from) keys.push_back(v.key);
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      if (keys.size() > want) *upper = keys[want];
    }
    return Read(unit, from, upper->value_or(std::string(8, '\xff')), batch);
  }
  uint64_t PositionOf(std::string_view key) override {
    ++positions_asked;
    return unit_of(key);
  }
  std::optional<std::string> RangeStart(uint64_t position) override {
    if (position >= units.size()) return std::nullopt;
    return position == 0 ? std::string()
                         : std::string(1, static_cast<char>(position << 6));
  }

 private:
  Status Read(uint64_t unit, std::string_view lower_bound,
              std::string_view upper, ScanBatch* batch) {
    reads.emplace_back(unit, std::string(lower_bound));
    if (unit == failing_unit) return failure;
    for (const Version& v : units[unit]) {
      if (v.key >= lower_bound && v.key < upper)
        batch->Add(v.key, v.value, v.tombstone);
    }
    return Status::OK();
  }
};

class UnitIteratorTest : public ::testing::Test {
 protected:
  // (key, value) of every position from where the iterator is to its end.
  std::vector<std::pair<std::string, std::string>> Rest(UnitIterator& it) {
    std::vector<std::pair<std::string, std::string>> out;
    for (; it.Valid(); it.Next()) {
      out.emplace_back(std::string(it.key()), std::string(it.value()));
      if (out.size() > 100000) break;  // a looping iterator
    }
    EXPECT_OK(it.status());
    return out;
  }
  using Pairs = std::vector<std::pair<std::string, std::string>>;

  ScriptedSource source_;
};

TEST_F(UnitIteratorTest, EmptySourceIsNeverValid) {
  UnitIterator it(&source_, /*ordered=*/true);
  it.SeekToFirst();
  EXPECT_FALSE(it.Valid());
  EXPECT_OK(it.status());
  source_.units.resize(4);
  it.SeekToFirst();
  EXPECT_FALSE(it.Valid());
  EXPECT_OK(it.status());
  EXPECT_EQ(it.key(), "");
  EXPECT_EQ(it.value(), "");
  it.Next();  // harmless
  EXPECT_FALSE(it.Valid());
}

TEST_F(UnitIteratorTest, NewestVersionOfEachKeyWinsAndTombstonesHideKeys) {
  source_.units = {{
      {"b", "b3"},      // newest version of b
      {"a", "", true},  // a deleted...
      {"c", "c2"},
      {"b", "b2"},
      {"a", "a1"},      // ...after this version
      {"c", "", true},  // c deleted, then written again (c2)
      {"d", "", true},  // only a tombstone
      {"b", "b1"},
  }};
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), (Pairs{{"b", "b3"}, {"c", "c2"}}));
}

TEST_F(UnitIteratorTest, OrderedSourceYieldsAllKeysInOrderAcrossUnits) {
  source_.units.resize(4);
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    std::string key(1 + rng() % 12, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    const std::string value = std::to_string(i);
    source_.units[source_.unit_of(key)].insert(
        source_.units[source_.unit_of(key)].begin(), {key, value});
    model[key] = value;  // later versions are newer: inserted in front
  }
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), Pairs(model.begin(), model.end()));
}

// Keys compare as unsigned bytes, shorter before longer on a common
// prefix, and beyond the first 8 bytes too (the sort looks at a numeric
// prefix first).
TEST_F(UnitIteratorTest, KeysComeInUnsignedByteOrder) {
  std::vector<std::string> keys = {"a",         std::string("a\0", 2),
                                   "a\x01",     "a\x7f",
                                   "a\x80",     "a\xff",
                                   "abcdefgh",  "abcdefghA",
                                   "abcdefghB", "abcdefgi",
                                   "",          std::string(9, '\0')};
  source_.units.resize(1);
  for (const std::string& k : keys) source_.units[0].push_back({k, "v" + k});
  std::reverse(source_.units[0].begin(), source_.units[0].end());
  UnitIterator it(&source_, false);
  it.SeekToFirst();
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> got;
  for (const auto& [k, v] : Rest(it)) got.push_back(k);
  EXPECT_EQ(got, keys);
}

// Keys of a unit that share their first bytes, one of them a prefix of
// others and one with a NUL right after the shared part: the sort skips
// what every key shares, and must still order by whole keys.
TEST_F(UnitIteratorTest, KeysSharingLongPrefixesComeInOrder) {
  const std::string shared = "user:0000000000/";
  std::vector<std::string> keys = {shared,
                                   shared + std::string(1, '\0'),
                                   shared + std::string(9, '\0'),
                                   shared + "a",
                                   shared + "abcdefgh",
                                   shared + "abcdefghX",
                                   shared + "abcdefgi",
                                   shared + "\xff"};
  source_.units.resize(1);
  for (const std::string& k : keys) source_.units[0].push_back({k, "v"});
  source_.units[0].push_back({shared + "a", "", true});  // newest: deleted
  std::reverse(source_.units[0].begin(), source_.units[0].end());
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  keys.erase(std::find(keys.begin(), keys.end(), shared + "a"));
  std::vector<std::string> got;
  for (const auto& [k, v] : Rest(it)) got.push_back(k);
  EXPECT_EQ(got, keys);
}

TEST_F(UnitIteratorTest, EmptyUnitsAndUnitsOfTombstonesAreSkipped) {
  source_.units = {{}, {{"\x41", "", true}}, {}, {{"\xC1", "x"}}};
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key(), "\xC1");
  EXPECT_EQ(it.partition(), 3u);
  it.Next();
  EXPECT_FALSE(it.Valid());
  EXPECT_OK(it.status());
}

TEST_F(UnitIteratorTest, SeekStartsAtTheFirstKeyAtOrAboveTheTarget) {
  source_.units = {{{"\x10", "a"}, {"\x20", "b"}},
                   {{"\x50", "c"}, {"\x60", "d"}, {"\x70", "e"}},
                   {},
                   {{"\xD0", "f"}}};
  UnitIterator it(&source_, true);
  it.Seek("\x55");
  EXPECT_EQ(it.partition(), 1u);
  EXPECT_EQ(Rest(it), (Pairs{{"\x60", "d"}, {"\x70", "e"}, {"\xD0", "f"}}));
  // The target's range is read from the target on, later ones from where
  // the one before ended.
  ASSERT_GE(source_.reads.size(), 3u);
  EXPECT_EQ(source_.reads[0], std::make_pair(uint64_t{1}, std::string("\x55")));
  EXPECT_EQ(source_.reads[1], std::make_pair(uint64_t{2}, std::string("\x80")));
  EXPECT_EQ(source_.reads[2], std::make_pair(uint64_t{3}, std::string("\xC0")));
  it.Seek("\x60");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key(), "\x60") << "a key equal to the target is included";
}

// A range's position costs the source a search of the whole map: the
// iterator asks for it only when its caller does, once per range.
TEST_F(UnitIteratorTest, PartitionOfARangeIsFoundOnlyWhenAsked) {
  source_.units = {{{"\x10", "a"}, {"\x20", "b"}}, {{"\x50", "c"}}};
  UnitIterator it(&source_, true);
  it.Seek("\x10");
  it.Next();
  EXPECT_EQ(source_.positions_asked, 0);
  EXPECT_EQ(it.partition(), 0u);
  EXPECT_EQ(it.partition(), 0u);
  EXPECT_EQ(source_.positions_asked, 1);
  it.Next();
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.partition(), 1u) << "the next range's, not the first's";
  EXPECT_EQ(source_.positions_asked, 2);
}

TEST_F(UnitIteratorTest, SeekPastTheLastKeyOfAUnitGoesOnInTheNext) {
  source_.units = {{{"\x10", "a"}}, {{"\x50", "b"}}, {}, {{"\xD0", "c"}}};
  UnitIterator it(&source_, true);
  it.Seek("\x11");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key(), "\x50");
  EXPECT_EQ(it.partition(), 1u);
  it.Seek("\xD1");
  EXPECT_FALSE(it.Valid());
  EXPECT_OK(it.status());
}

// Seek copies its target first: it may point into the iterator's own key,
// which the next unit's batch replaces (ASan sees a use after free).
TEST_F(UnitIteratorTest, SeekToTheIteratorsOwnKeyIsSafe) {
  source_.units = {{{"\x10", "a"}, {"\x12", "b"}}, {{"\x50", "c"}}};
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  it.Next();
  ASSERT_EQ(it.key(), "\x12");
  it.Seek(it.key());
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key(), "\x12");
}

TEST_F(UnitIteratorTest, SeekOnAnUnorderedSourceIsNotSupported) {
  source_.units = {{{"b", "1"}}, {{"a", "2"}}};
  UnitIterator it(&source_, /*ordered=*/false);
  it.SeekToFirst();
  ASSERT_TRUE(it.Valid());
  it.Seek("a");
  EXPECT_FALSE(it.Valid());
  ASSERT_TRUE(it.status().IsNotSupported()) << it.status().ToString();
  EXPECT_EQ(it.status().message(),
            "Seek needs a range-partitioned pool (this one is "
            "hash-partitioned: iterate it from SeekToFirst or "
            "SeekToPartition)");
  // The iterator stays usable.
  it.SeekToFirst();
  EXPECT_OK(it.status());
  EXPECT_EQ(Rest(it), (Pairs{{"b", "1"}, {"a", "2"}}));
}

// A hash pool's units are not ordered by key: every key comes once, in key
// order within its unit, and partition() is a resumable cursor.
TEST_F(UnitIteratorTest, PartitionsOfAnUnorderedSourceAreACursor) {
  source_.units = {{{"z", "1"}, {"m", "2"}},
                   {},
                   {{"q", "3"}, {"a", "4"}, {"a", "old"}},
                   {{"c", "5"}}};
  UnitIterator it(&source_, false);
  it.SeekToFirst();
  std::vector<std::pair<uint64_t, std::string>> seen;
  for (; it.Valid(); it.Next()) seen.emplace_back(it.partition(), it.key());
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, std::string>>{
                      {0, "m"}, {0, "z"}, {2, "a"}, {2, "q"}, {3, "c"}}));
  it.SeekToPartition(2);
  EXPECT_EQ(Rest(it), (Pairs{{"a", "4"}, {"q", "3"}, {"c", "5"}}));
  it.SeekToPartition(1);  // empty: goes on with the next
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.partition(), 2u);
  it.SeekToPartition(4);  // past the end
  EXPECT_FALSE(it.Valid());
  EXPECT_OK(it.status());
}

// Versions of a key scattered among hundreds of other records (the sort
// keeps their batch order, newest first): the newest one, once.
TEST_F(UnitIteratorTest, ScatteredVersionsYieldTheNewestOnce) {
  for (const bool newest_is_tombstone : {false, true}) {
    source_.units.assign(1, {});
    std::vector<Version>& unit = source_.units[0];
    std::map<std::string, std::string> model;
    // 126 keys before "k" and 200 after, one version each...
    for (int i = 0; i < 326; ++i) {
      char buffer[16];
      std::snprintf(buffer, sizeof(buffer), "%c%05d", i < 126 ? 'a' : 'z', i);
      unit.push_back({buffer, std::to_string(i)});
      model[buffer] = std::to_string(i);
    }
    // ...and five versions of "k" (sorted positions 126..130), newest first
    // in the batch, scattered among the others.
    for (int v = 4; v >= 0; --v) {
      const bool tombstone = v == 4 && newest_is_tombstone;
      unit.insert(unit.begin() + 40 * (4 - v) + 7,
                  {"k", tombstone ? "" : "k" + std::to_string(v), tombstone});
    }
    if (!newest_is_tombstone) model["k"] = "k4";
    UnitIterator it(&source_, true);
    it.SeekToFirst();
    EXPECT_EQ(Rest(it), Pairs(model.begin(), model.end()))
        << "newest is a tombstone: " << newest_is_tombstone;
  }
}

TEST_F(UnitIteratorTest, LargeUnitsMatchAModel) {
  std::mt19937_64 rng(11);
  source_.units.assign(3, {});
  source_.unit_of = [](std::string_view key) -> uint64_t {
    return static_cast<unsigned char>(key[0]) % 3;  // unordered
  };
  std::map<std::string, std::string> model[3];
  for (int i = 0; i < 3000; ++i) {
    const std::string key = std::string(1, static_cast<char>(rng() % 9)) +
                            std::to_string(rng() % 400);
    const uint64_t u = source_.unit_of(key);
    const bool tombstone = rng() % 4 == 0;
    const std::string value = tombstone ? "" : std::to_string(i);
    source_.units[u].insert(source_.units[u].begin(), {key, value, tombstone});
    if (tombstone) {
      model[u].erase(key);
    } else {
      model[u][key] = value;
    }
  }
  Pairs expected;
  for (const auto& m : model)
    expected.insert(expected.end(), m.begin(), m.end());
  UnitIterator it(&source_, false);
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), expected);
}

// A batch that ends before its range does is followed by one read from
// where it ended, in the same partition; a Seek asks for a few records
// first, then twice as many each time; SeekToPartition for whole ranges.
TEST_F(UnitIteratorTest, BatchesThatEndEarlyAreFollowedFromWhereTheyEnd) {
  source_.end_batches_early = true;
  source_.units.assign(4, {});
  std::map<std::string, std::string> model;
  for (int i = 0; i < 2000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "%c%05d", 0x40 + i % 2, i);
    const std::string value = std::to_string(i);
    source_.units[1].insert(source_.units[1].begin(), {key, value, false});
    model[key] = value;
  }
  source_.units[2].push_back({"\x80z", "last", false});
  model["\x80z"] = "last";
  const std::string target = "@00500";
  UnitIterator it(&source_, true);
  it.Seek(target);
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.partition(), 1u);
  for (int i = 0; i < 300; ++i) it.Next();
  EXPECT_EQ(it.partition(), 1u) << "a batch that ended early is not a range";
  it.Seek(target);
  EXPECT_EQ(Rest(it), Pairs(model.lower_bound(target), model.end()));
  const std::vector<size_t> doubling = {128, 256, 512, 1024, 2048};
  ASSERT_GE(source_.wants.size(), doubling.size() + 1);
  EXPECT_EQ(std::vector<size_t>(source_.wants.end() - doubling.size() - 1,
                                source_.wants.end() - 1),
            doubling);
  source_.wants.clear();
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), Pairs(model.begin(), model.end()));
  EXPECT_EQ(source_.wants, std::vector<size_t>(source_.wants.size(), 0));
}

// The sort packs, in each byte, only the span of bits in which the keys
// differ into its radix digits: keys whose bytes differ in a few bits each
// (a high nibble here, two low bits there, a whole byte, or one bit),
// with every version of a key in the same unit, come out in order.
TEST_F(UnitIteratorTest, KeysDifferingInFewBitsOfEachByteComeInOrder) {
  std::mt19937_64 rng(17);
  const unsigned char masks[][4] = {{0x70, 0x03, 0xFF, 0x00},
                                    {0x0F, 0x0F, 0x0F, 0x0F},
                                    {0x00, 0x80, 0x00, 0x01},
                                    {0x3C, 0x00, 0x00, 0xFF}};
  for (const auto& mask : masks) {
    source_ = ScriptedSource();
    source_.units.assign(1, {});
    source_.unit_of = [](std::string_view) -> uint64_t { return 0; };
    std::map<std::string, std::string> model;
    for (int i = 0; i < 2000; ++i) {
      // A shared first byte, then 4 bytes of fixed bits and random ones
      // under the mask, then a byte that never differs.
      std::string key = "k";
      for (unsigned char m : mask)
        key.push_back(static_cast<char>((0x55 & ~m) | (rng() & m)));
      key.push_back('z');
      const bool tombstone = rng() % 5 == 0;
      const std::string value = tombstone ? "" : std::to_string(i);
      source_.units[0].insert(source_.units[0].begin(),
                              {key, value, tombstone});
      if (tombstone) {
        model.erase(key);
      } else {
        model[key] = value;
      }
    }
    UnitIterator it(&source_, false);
    it.SeekToFirst();
    EXPECT_EQ(Rest(it), Pairs(model.begin(), model.end()))
        << "mask " << int{mask[0]} << " " << int{mask[1]} << " "
        << int{mask[2]} << " " << int{mask[3]};
  }
}

TEST_F(UnitIteratorTest, ReadErrorEndsTheIterationWithThatStatus) {
  source_.units = {{{"\x10", "a"}}, {{"\x50", "b"}}, {{"\x90", "c"}}};
  source_.failing_unit = 1;
  source_.failure = Status::Corruption("level 2 entry 7: bad bucket reference");
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  ASSERT_TRUE(it.Valid());
  EXPECT_OK(it.status());
  it.Next();
  EXPECT_FALSE(it.Valid());
  ASSERT_TRUE(it.status().IsCorruption()) << it.status().ToString();
  EXPECT_EQ(it.status().message(), "level 2 entry 7: bad bucket reference");
  EXPECT_EQ(source_.reads.back().first, 1u) << "no unit is read after it";
  it.Next();
  EXPECT_FALSE(it.Valid());
  EXPECT_TRUE(it.status().IsCorruption());
  // Once the source reads again, so does a new positioning.
  source_.failing_unit = ~uint64_t{0};
  it.Seek("\x50");
  EXPECT_OK(it.status());
  EXPECT_EQ(Rest(it), (Pairs{{"\x50", "b"}, {"\x90", "c"}}));
}

TEST_F(UnitIteratorTest, IteratorIsReusableAfterItsEnd) {
  source_.units = {{{"\x10", "a"}}, {}, {{"\x90", "c"}}};
  UnitIterator it(&source_, true);
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), (Pairs{{"\x10", "a"}, {"\x90", "c"}}));
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), (Pairs{{"\x10", "a"}, {"\x90", "c"}}));
}

// An upper bound ends the iteration at the first key >= it, and the units
// that hold only larger keys are never read.
TEST_F(UnitIteratorTest, UpperBoundEndsTheIterationAndSkipsLaterUnits) {
  source_.units.resize(4);
  // Units by the first byte's two high bits: '0' and 'A' in units 0, 1.
  source_.units[0] = {{"0a", "1"}, {"0b", "2"}};
  source_.units[1] = {{"Aa", "3"}, {"Ab", "4"}, {"Ac", "5"}};
  source_.units[2] = {{"\x90", "6"}};
  source_.units[3] = {{"\xf0", "7"}};
  UnitIterator it(&source_, /*ordered=*/true, std::string("Ab"));
  it.SeekToFirst();
  EXPECT_EQ(Rest(it), (Pairs{{"0a", "1"}, {"0b", "2"}, {"Aa", "3"}}));
  for (const auto& [unit, lower_bound] : source_.reads) {
    EXPECT_LE(unit, 1u) << "read a unit past the bound";
  }
  // Each read is told where to stop: the source need not read the keys
  // above the bound in the last range it reads.
  for (const std::string& stop : source_.stops) EXPECT_EQ(stop, "Ab");
  it.Seek("Ab");
  EXPECT_FALSE(it.Valid()) << "the bound is exclusive";
  EXPECT_OK(it.status());
  it.Seek("0b");
  EXPECT_EQ(Rest(it), (Pairs{{"0b", "2"}, {"Aa", "3"}}));
  // A bound past every key changes nothing.
  UnitIterator all(&source_, /*ordered=*/true, std::string("\xff"));
  all.SeekToFirst();
  EXPECT_EQ(Rest(all).size(), 7u);
}

}  // namespace
}  // namespace plush
