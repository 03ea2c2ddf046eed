// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RangeMap on its own: quantiles of a sample, the position of a key
// against a brute-force count of the separators at or below it (for keys
// that share long prefixes: the search compares 16-byte prefixes first,
// whole keys only among equal prefixes), units out of key order, the
// checks of a layout, and readers racing changes.

#include "placement/range_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "placement/key_hasher.h"
#include "util/key_prefix.h"

namespace plush {
namespace {

std::string Numbered(const char* format, int i) {
  char key[64];
  std::snprintf(key, sizeof(key), format, i);
  return key;
}

uint64_t CountAtOrBelow(const std::vector<std::string>& separators,
                        const std::string& key) {
  return static_cast<uint64_t>(
      std::count_if(separators.begin(), separators.end(),
                    [&](const std::string& b) { return b <= key; }));
}

// Where position `position` of `layout` ends ("" for the last one), and
// the same of a separator RangeMap::UnitOf found (null for the last).
std::string UpperOf(const RangeMap::Layout& layout, uint64_t position) {
  return position < layout.separators.size() ? layout.separators[position]
                                             : "";
}
std::string UpperOf(const std::string* upper) {
  return upper == nullptr ? "" : *upper;
}

TEST(RangeMapTest, SeparatorsAreTheSampleQuantiles) {
  std::vector<std::string> sample;
  for (int i = 999; i >= 0; --i) sample.push_back(Numbered("k%04d", i));
  const RangeMap::Layout layout = RangeMap::FromSample(sample, 2);
  EXPECT_EQ(layout.separators,
            (std::vector<std::string>{"k0250", "k0500", "k0750"}));
  EXPECT_EQ(layout.units, (std::vector<uint32_t>{0, 1, 2, 3}));
  const RangeMap map(2, layout);
  EXPECT_EQ(map.UnitOf(""), 0u);
  EXPECT_EQ(map.UnitOf("a"), 0u) << "below the sample: the first unit";
  EXPECT_EQ(map.UnitOf("k0249"), 0u);
  EXPECT_EQ(map.UnitOf("k0250"), 1u) << "a separator starts its position";
  EXPECT_EQ(map.UnitOf("k02500"), 1u);
  EXPECT_EQ(map.UnitOf("k0749"), 2u);
  EXPECT_EQ(map.UnitOf("k0999"), 3u);
  EXPECT_EQ(map.UnitOf("z"), 3u) << "above the sample: the last unit";
}

TEST(RangeMapTest, ASmallSampleLeavesPositionsEmpty) {
  const RangeMap::Layout layout = RangeMap::FromSample({"m", "c"}, 3);
  // Ranks i * 2 / 8 for i = 1..7: c c c m m m m.
  EXPECT_EQ(layout.separators,
            (std::vector<std::string>{"c", "c", "c", "m", "m", "m", "m"}));
  const RangeMap map(3, layout);
  EXPECT_EQ(map.UnitOf("b"), 0u);
  EXPECT_EQ(map.UnitOf("c"), 3u) << "units 1 and 2 stay empty";
  EXPECT_EQ(map.UnitOf("l"), 3u);
  EXPECT_EQ(map.UnitOf("m"), 7u);
}

// The layout of pools that predate range maps: by the leading bits.
TEST(RangeMapTest, LeadingBitsPlaceAsTheKeyBitsDid) {
  const RangeMap map(4, RangeMap::ByLeadingBits(4));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) {
    std::string key(1 + rng() % 12, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    EXPECT_EQ(map.UnitOf(key), KeyPrefix(key) >> 60);
  }
}

// Keys that differ only after byte 16, around separators that do too.
TEST(RangeMapTest, PositionIsTheCountOfSeparatorsAtOrBelow) {
  std::mt19937_64 rng(7);
  auto random_key = [&] {
    static const std::vector<std::string> prefixes = {
        "", "user:", "a-prefix-of-16b-", "a-prefix-of-16b-and-more:",
        std::string(20, '\0'), std::string(17, '\xff')};
    std::string k = prefixes[rng() % prefixes.size()];
    const size_t tail = rng() % 6;
    for (size_t i = 0; i < tail; ++i)
      k.push_back(static_cast<char>("\x00\x01" "09az\xfe\xff"[rng() % 8]));
    return k;
  };
  for (unsigned bits : {0u, 1u, 2u, 4u, 8u, 12u}) {
    std::vector<std::string> sample(std::max<size_t>(300, size_t{2} << bits));
    for (std::string& k : sample) k = random_key();
    const RangeMap::Layout layout = RangeMap::FromSample(sample, bits);
    ASSERT_EQ(layout.separators.size(), (1u << bits) - 1);
    ASSERT_TRUE(std::is_sorted(layout.separators.begin(),
                               layout.separators.end()));
    const RangeMap map(bits, layout);
    std::vector<std::string> keys(2000);
    for (std::string& k : keys) k = random_key();
    keys.insert(keys.end(), layout.separators.begin(), layout.separators.end());
    for (const std::string& k : keys) {
      ASSERT_EQ(map.UnitOf(k), CountAtOrBelow(layout.separators, k))
          << "bits " << bits << ", key of " << k.size() << " bytes";
    }
  }
}

// After changes, units lie anywhere: the map answers the unit its
// position names, and reports each unit's range.
TEST(RangeMapTest, PositionsNameUnitsOutOfKeyOrder) {
  RangeMap map(2, RangeMap::FromSample({"b", "d", "f", "h"}, 2));
  // Merge positions 0 and 1 onto unit 0 (freeing unit 1), then split the
  // last position at "x" into unit 1.
  map.Replace({{"f", "h", "x"}, {0, 2, 3, 1}});
  EXPECT_EQ(map.UnitOf("a"), 0u);
  EXPECT_EQ(map.UnitOf("e"), 0u) << "the merged position";
  EXPECT_EQ(map.UnitOf("f"), 2u);
  EXPECT_EQ(map.UnitOf("w"), 3u);
  EXPECT_EQ(map.UnitOf("x"), 1u) << "the freed unit took the top";
  EXPECT_EQ(map.positions(), 4u);
  const auto top = map.RangeOfUnit(1);
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(top->position, 3u);
  EXPECT_EQ(top->lower, "x");
  EXPECT_FALSE(top->upper.has_value());
  const auto first = map.RangeOfUnit(0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->lower, "");
  EXPECT_EQ(*first->upper, "f");
  EXPECT_TRUE(first->Contains("e"));
  EXPECT_FALSE(first->Contains("f"));
  // Fewer positions than units: a unit without one.
  map.Replace({{"f"}, {2, 0}});
  EXPECT_FALSE(map.RangeOfUnit(1).has_value());
  EXPECT_FALSE(map.RangeOfUnit(3).has_value());
  EXPECT_EQ(map.UnitOf("zz"), 0u);
}

TEST(RangeMapTest, InvalidLayoutsAreNamed) {
  EXPECT_EQ(RangeMap::Invalid(2, {{"a", "b", "c"}, {3, 2, 1, 0}}), "");
  EXPECT_EQ(RangeMap::Invalid(1, {{"a", "b"}, {0, 1, 2}}),
            "3 positions for 2 units");
  EXPECT_EQ(RangeMap::Invalid(2, {{"a"}, {0, 1, 2}}),
            "1 separators for 3 positions");
  EXPECT_EQ(RangeMap::Invalid(2, {{"a"}, {0, 4}}),
            "position 1 names unit 4 of 4");
  EXPECT_EQ(RangeMap::Invalid(2, {{"a"}, {1, 1}}),
            "unit 1 is named twice (position 1)");
  EXPECT_EQ(RangeMap::Invalid(2, {{"b", "a"}, {0, 1, 2}}),
            "separator 1 is out of order");
  EXPECT_EQ(RangeMap::Invalid(2, {{std::string(1025, 'k')}, {0, 1}}),
            "separator 0 is longer than a key (1025 bytes)");
  EXPECT_EQ(RangeMap::Invalid(2, {{}, {}}), "0 positions for 4 units");
}

// The table hash of a range pool: its DRAM entry bits are the unit, for
// keys stored inline (8 bytes) as for others.
TEST(RangeMapTest, KeyHasherPlacesKeysByTheirUnit) {
  std::vector<std::string> sample;
  for (int i = 0; i < 4096; ++i) sample.push_back(Numbered("u%07d", i * 3));
  auto map = std::make_shared<RangeMap>(6, RangeMap::FromSample(sample, 6));
  const KeyHasher hasher(map);
  for (int i = 0; i < 12288; i += 97) {
    const std::string key = Numbered("u%07d", i);
    ASSERT_EQ(key.size(), 8u);
    uint64_t word;
    std::memcpy(&word, key.data(), 8);
    EXPECT_EQ(hasher.Hash(key) & 63, map->UnitOf(key));
    EXPECT_EQ(hasher.InlineHash(word), hasher.Hash(key));
    EXPECT_EQ(hasher.Hash(key) >> 6, KeyHash(key) & ((uint64_t{1} << 34) - 1))
        << "the key hash's low 40 - 6 bits";
    EXPECT_EQ(hasher.HashOnUnit(key, map->UnitOf(key)), hasher.Hash(key));
  }
  // The keys of the sample spread over every unit.
  std::vector<int> per_unit(64);
  for (const std::string& k : sample) ++per_unit[hasher.Hash(k) & 63];
  for (int n : per_unit) EXPECT_EQ(n, 64);
}

// Readers never see a torn map: while one thread switches between two
// maps, every answer is the old map's or the new one's for that key, and
// version() moves with every switch. (Also run under TSan.)
TEST(RangeMapTest, ReadersRacingChangesSeeOneMapOrTheOther) {
  constexpr unsigned kBits = 8;
  std::vector<std::string> sample;
  for (int i = 0; i < 4096; ++i) sample.push_back(Numbered("key:%06d", i));
  const RangeMap::Layout a = RangeMap::FromSample(sample, kBits);
  RangeMap::Layout b = a;
  std::reverse(b.units.begin(), b.units.end());
  b.separators.back() = b.separators.back() + "~";
  const RangeMap map_a(kBits, a), map_b(kBits, b);
  RangeMap map(kBits, a);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> wrong{0};
  auto reader = [&] {
    std::mt19937_64 rng(std::hash<std::thread::id>()(std::this_thread::get_id()));
    while (!stop.load(std::memory_order_relaxed)) {
      const std::string key = Numbered("key:%06d", static_cast<int>(rng() % 4200));
      const uint64_t unit = map.UnitOf(key);
      if (unit != map_a.UnitOf(key) && unit != map_b.UnitOf(key))
        wrong.fetch_add(1);
    }
  };
  std::thread r1(reader), r2(reader);
  uint64_t version = map.version();
  for (int i = 0; i < 400; ++i) {
    map.Replace(i % 2 == 0 ? b : a);
    EXPECT_GT(map.version(), version);
    EXPECT_EQ(map.version() % 2, 0u);
    version = map.version();
  }
  stop = true;
  r1.join();
  r2.join();
  EXPECT_EQ(wrong.load(), 0u);
}

// Changes rewrite a buffer only from the position they change on, into
// the buffer readers are not using. Readers racing a long run of splits,
// merges and reassignments: an answer given while version() stayed put
// is the map of that version (brute force), and a reader never waits.
// (Also run under TSan.)
// A map of 2^bits units over keys "key:000000" .. (`keys` of them), and
// `count` random changes to it: splits (half of them of the last
// position, as keys that keep growing do; some at a separator equal to a
// neighbour's, which leaves an empty position; a third of them below, the
// unit keeping the keys above), merges and reassignments.
// layouts[0] is the map before them, layouts[i] the map after changes[i-1].
struct ChangeScript {
  std::vector<RangeMap::Layout> layouts;
  std::vector<RangeMap::Change> changes;
};

void RandomChanges(unsigned bits, int keys, size_t count,
                   ChangeScript* script) {
  std::vector<std::string> sample;
  for (int i = 0; i < keys; i += 7) sample.push_back(Numbered("key:%06d", i));
  std::vector<RangeMap::Layout>* layouts = &script->layouts;
  std::vector<RangeMap::Change>* changes = &script->changes;
  layouts->assign(1, RangeMap::FromSample(sample, bits));
  std::mt19937_64 rng(11);
  while (changes->size() < count) {
    RangeMap::Layout next = layouts->back();
    std::vector<bool> named(1u << bits);
    for (const uint32_t u : next.units) named[u] = true;
    const auto free_unit = std::find(named.begin(), named.end(), false);
    RangeMap::Change change;
    change.position = static_cast<uint32_t>(rng() % next.units.size());
    const size_t p = change.position;
    if (free_unit != named.end() && rng() % 4 != 0) {
      change.unit = static_cast<uint32_t>(free_unit - named.begin());
      if (rng() % 4 == 0) {
        change.kind = RangeMap::Change::Kind::kReassign;
      } else {
        change.kind = rng() % 3 == 0 ? RangeMap::Change::Kind::kSplitBelow
                                     : RangeMap::Change::Kind::kSplit;
        if (rng() % 2 == 0) change.position = static_cast<uint32_t>(next.units.size() - 1);
        const size_t q = change.position;
        const std::string lower = q == 0 ? "" : next.separators[q - 1];
        change.separator = Numbered("key:%06d", static_cast<int>(rng() % keys));
        if (change.separator < lower) change.separator = lower + "~";
        if (q < next.separators.size() && next.separators[q] < change.separator)
          change.separator = next.separators[q];
      }
    } else if (p + 1 < next.units.size()) {
      change.kind = RangeMap::Change::Kind::kMerge;
      change.count = 2 + static_cast<uint32_t>(
                             rng() % std::min<size_t>(4, next.units.size() - p - 1));
      change.unit = next.units[p + rng() % change.count];
    } else {
      continue;
    }
    ASSERT_EQ(RangeMap::ApplyTo(bits, change, &next), "");
    changes->push_back(change);
    layouts->push_back(std::move(next));
  }
}

// Every unit's range (and position), and the unit, range end and position
// of keys in order, after every change, against the layout: the position
// that names it, and the separators around it (among equal separators,
// the right one).
TEST(RangeMapTest, RangesFollowChanges) {
  constexpr unsigned kBits = 6;
  constexpr int kKeys = 3000;
  ChangeScript script;
  RandomChanges(kBits, kKeys, 2000, &script);
  const auto& [layouts, changes] = script;
  RangeMap map(kBits, layouts.front());
  size_t empty_positions = 0;
  for (size_t c = 0; c <= changes.size(); ++c) {
    if (c > 0) {
      ASSERT_EQ(map.Check(changes[c - 1]), "");
      map.Apply(changes[c - 1]);
    }
    const RangeMap::Layout& layout = layouts[c];
    std::vector<bool> named(1u << kBits);
    for (size_t p = 0; p < layout.units.size(); ++p) {
      named[layout.units[p]] = true;
      const auto range = map.RangeOfUnit(layout.units[p]);
      ASSERT_TRUE(range.has_value()) << "change " << c << ", position " << p;
      ASSERT_EQ(range->position, p) << "change " << c;
      ASSERT_EQ(map.PositionOfUnit(layout.units[p]), p) << "change " << c;
      ASSERT_EQ(range->lower, p == 0 ? "" : layout.separators[p - 1]);
      if (p < layout.separators.size()) {
        ASSERT_EQ(range->upper, layout.separators[p]) << "change " << c;
        if (p > 0 && layout.separators[p - 1] == layout.separators[p])
          ++empty_positions;
      } else {
        ASSERT_FALSE(range->upper.has_value()) << "change " << c;
      }
    }
    // Keys in order, as a writer of growing keys places them: most in the
    // range of the key before (the thread's recent range, on the map of
    // the version it was found on).
    // Each with where its range ends, and its position.
    for (int i = 0; i < kKeys + 100; i += 37) {
      const std::string key = Numbered("key:%06d", i);
      const uint64_t position = CountAtOrBelow(layout.separators, key);
      ASSERT_EQ(map.UnitOf(key), layout.units[position])
          << "change " << c << ", " << key;
      const std::string* upper = nullptr;
      const std::string* lower = nullptr;
      ASSERT_EQ(map.UnitOf(key, &upper, &lower), layout.units[position])
          << key;
      ASSERT_EQ(UpperOf(upper), UpperOf(layout, position))
          << "change " << c << ", " << key;
      ASSERT_EQ(lower == nullptr ? "" : *lower,
                position == 0 ? "" : layout.separators[position - 1])
          << "change " << c << ", " << key;
      ASSERT_EQ(map.PositionOf(key), position) << "change " << c << ", " << key;
    }
    for (uint32_t u = 0; u < named.size(); ++u) {
      if (!named[u]) {
        ASSERT_FALSE(map.RangeOfUnit(u).has_value()) << u;
        ASSERT_FALSE(map.PositionOfUnit(u).has_value()) << u;
      }
    }
  }
  EXPECT_GT(empty_positions, 0u) << "no equal separators were tried";
}

// A split below a unit's keys: a new position before the unit's takes
// the keys below the separator; the unit's range begins there.
TEST(RangeMapTest, ASplitBelowPutsTheNewUnitFirst) {
  RangeMap::Layout layout;
  layout.separators = {"b", "m"};
  layout.units = {0, 1, 2};
  RangeMap map(3, layout);
  RangeMap::Change below;
  below.kind = RangeMap::Change::Kind::kSplitBelow;
  below.position = 1;
  below.unit = 5;
  below.separator = "g";
  ASSERT_EQ(map.Check(below), "");
  map.Apply(below);
  ASSERT_EQ(RangeMap::ApplyTo(3, below, &layout), "");
  EXPECT_EQ(map.Read().units, (std::vector<uint32_t>{0, 5, 1, 2}));
  EXPECT_EQ(map.Read().separators, (std::vector<std::string>{"b", "g", "m"}));
  EXPECT_EQ(layout.units, map.Read().units);
  EXPECT_EQ(layout.separators, map.Read().separators);
  EXPECT_EQ(map.RangeOfUnit(1)->lower, "g");
  EXPECT_EQ(map.RangeOfUnit(5)->lower, "b");
  EXPECT_EQ(*map.RangeOfUnit(5)->upper, "g");
  EXPECT_EQ(map.UnitOf("h"), 1u);
  EXPECT_EQ(map.UnitOf("c"), 5u);
  // Of the first position: the new unit takes the keys from the empty one.
  below.position = 0;
  below.unit = 7;
  below.separator = "a";
  ASSERT_EQ(map.Check(below), "");
  map.Apply(below);
  EXPECT_EQ(map.Read().units, (std::vector<uint32_t>{7, 0, 5, 1, 2}));
  EXPECT_EQ(map.UnitOf(""), 7u);
  EXPECT_EQ(map.UnitOf("a"), 0u);
  EXPECT_EQ(map.RangeOfUnit(0)->lower, "a");
  // Outside the position, or onto a named unit: refused.
  below.position = 2;
  below.unit = 3;
  below.separator = "h";
  EXPECT_EQ(map.Check(below), "split of position 2 at a key outside it");
  below.separator = "c";
  below.unit = 1;
  EXPECT_EQ(map.Check(below), "split onto unit 1, named");
}

TEST(RangeMapTest, ReadersRacingIncrementalChangesSeeTheMapOfTheirVersion) {
  constexpr unsigned kBits = 7;
  constexpr int kKeys = 5000;
  ChangeScript script;
  RandomChanges(kBits, kKeys, 3000, &script);
  const auto& [layouts, changes] = script;
  RangeMap map(kBits, layouts.front());
  const uint64_t first = map.version();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> checked{0}, wrong{0};
  auto reader = [&] {
    std::mt19937_64 r(std::hash<std::thread::id>()(std::this_thread::get_id()));
    while (!stop.load(std::memory_order_relaxed)) {
      const std::string key =
          Numbered("key:%06d", static_cast<int>(r() % (kKeys + 100)));
      const uint64_t version = map.version();
      const bool with_upper = r() % 2 == 0;
      const std::string* upper = nullptr;
      const uint64_t unit =
          with_upper ? map.UnitOf(key, &upper) : map.UnitOf(key);
      if (!map.Unchanged(version)) continue;
      const RangeMap::Layout& layout = layouts[(version - first) / 2];
      const uint64_t position = CountAtOrBelow(layout.separators, key);
      if (unit != layout.units[position] ||
          (with_upper && UpperOf(upper) != UpperOf(layout, position))) {
        wrong.fetch_add(1);
      }
      checked.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread r1(reader), r2(reader);
  for (const RangeMap::Change& change : changes) {
    ASSERT_EQ(map.Check(change), "");
    map.Apply(change);
  }
  stop = true;
  r1.join();
  r2.join();
  EXPECT_EQ(wrong.load(), 0u) << "of " << checked.load();
  EXPECT_EQ(map.version() - first, 2 * changes.size());
  // The map as a whole, and every key, after the last change.
  const RangeMap::Layout& last = layouts.back();
  EXPECT_EQ(map.Read().separators, last.separators);
  EXPECT_EQ(map.Read().units, last.units);
  for (int i = 0; i < kKeys + 100; ++i) {
    const std::string key = Numbered("key:%06d", i);
    ASSERT_EQ(map.UnitOf(key), last.units[CountAtOrBelow(last.separators, key)])
        << key;
  }
}

}  // namespace
}  // namespace plush
