// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RangeBoundaries on their own: quantiles of a sample, and the unit of a
// key against a brute-force count of the boundaries at or below it, for
// keys that share long prefixes (the search compares 16-byte prefixes
// first, whole keys only among equal prefixes).

#include "util/range_boundaries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "util/key_hasher.h"

namespace plush {
namespace {

std::string Numbered(const char* format, int i) {
  char key[64];
  std::snprintf(key, sizeof(key), format, i);
  return key;
}

uint64_t CountAtOrBelow(const std::vector<std::string>& boundaries,
                        const std::string& key) {
  return static_cast<uint64_t>(
      std::count_if(boundaries.begin(), boundaries.end(),
                    [&](const std::string& b) { return b <= key; }));
}

TEST(RangeBoundariesTest, BoundariesAreTheSampleQuantiles) {
  std::vector<std::string> sample;
  for (int i = 999; i >= 0; --i) sample.push_back(Numbered("k%04d", i));
  const RangeBoundaries b = RangeBoundaries::FromSample(sample, 2);
  EXPECT_EQ(b.keys(), (std::vector<std::string>{"k0250", "k0500", "k0750"}));
  EXPECT_EQ(b.UnitOf(""), 0u);
  EXPECT_EQ(b.UnitOf("a"), 0u) << "below the sample: the first unit";
  EXPECT_EQ(b.UnitOf("k0249"), 0u);
  EXPECT_EQ(b.UnitOf("k0250"), 1u) << "a boundary starts its unit";
  EXPECT_EQ(b.UnitOf("k02500"), 1u);
  EXPECT_EQ(b.UnitOf("k0749"), 2u);
  EXPECT_EQ(b.UnitOf("k0999"), 3u);
  EXPECT_EQ(b.UnitOf("z"), 3u) << "above the sample: the last unit";
}

TEST(RangeBoundariesTest, ASmallSampleLeavesUnitsEmpty) {
  const RangeBoundaries b = RangeBoundaries::FromSample({"m", "c"}, 3);
  // Ranks i * 2 / 8 for i = 1..7: c c c m m m m.
  EXPECT_EQ(b.keys(), (std::vector<std::string>{"c", "c", "c", "m", "m", "m",
                                                "m"}));
  EXPECT_EQ(b.UnitOf("b"), 0u);
  EXPECT_EQ(b.UnitOf("c"), 3u) << "units 1 and 2 stay empty";
  EXPECT_EQ(b.UnitOf("l"), 3u);
  EXPECT_EQ(b.UnitOf("m"), 7u);
}

// Keys that differ only after byte 16, around boundaries that do too.
TEST(RangeBoundariesTest, UnitIsTheCountOfBoundariesAtOrBelow) {
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
    const RangeBoundaries b = RangeBoundaries::FromSample(sample, bits);
    ASSERT_EQ(b.keys().size(), (1u << bits) - 1);
    ASSERT_TRUE(std::is_sorted(b.keys().begin(), b.keys().end()));
    std::vector<std::string> keys(2000);
    for (std::string& k : keys) k = random_key();
    keys.insert(keys.end(), b.keys().begin(), b.keys().end());
    for (const std::string& k : keys) {
      ASSERT_EQ(b.UnitOf(k), CountAtOrBelow(b.keys(), k))
          << "bits " << bits << ", key of " << k.size() << " bytes";
    }
    // So the units are in key order.
    std::sort(keys.begin(), keys.end());
    for (size_t i = 1; i < keys.size(); ++i)
      ASSERT_LE(b.UnitOf(keys[i - 1]), b.UnitOf(keys[i]));
  }
}

// The table hash of a range pool with boundaries: its DRAM entry bits are
// the unit, for keys stored inline (8 bytes) as for others.
TEST(RangeBoundariesTest, KeyHasherPlacesKeysByTheirUnit) {
  std::vector<std::string> sample;
  for (int i = 0; i < 4096; ++i) sample.push_back(Numbered("u%07d", i * 3));
  auto boundaries = std::make_shared<const RangeBoundaries>(
      RangeBoundaries::FromSample(sample, 6));
  const KeyHasher hasher(true, 6, boundaries);
  for (int i = 0; i < 12288; i += 97) {
    const std::string key = Numbered("u%07d", i);
    ASSERT_EQ(key.size(), 8u);
    uint64_t word;
    std::memcpy(&word, key.data(), 8);
    EXPECT_EQ(hasher.Hash(key) & 63, boundaries->UnitOf(key));
    EXPECT_EQ(hasher.InlineHash(word), hasher.Hash(key));
    EXPECT_EQ(hasher.Hash(key) >> 6, KeyHash(key) & (~uint64_t{0} >> 6));
  }
  // The keys of the sample spread over every unit.
  std::vector<int> per_unit(64);
  for (const std::string& k : sample) ++per_unit[hasher.Hash(k) & 63];
  for (int n : per_unit) EXPECT_EQ(n, 64);
}

}  // namespace
}  // namespace plush
