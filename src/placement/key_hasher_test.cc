// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// KeyHasher on its own: the table hash of a key under hash and range
// partitioning (docs/format.md §4). The hash is part of the on-media format
// (indirect slots store it, payload checks are seeded with it), so the
// expected values are computed here from the format's formulas, not from
// the code under test. Range pools are tested on the map they start with
// without a key sample (by the keys' leading bits, format §2.2), whose units
// the formulas give.

#include "placement/key_hasher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "testutil.h"
#include "util/key_prefix.h"

namespace plush {
namespace {

using test::Word;

// XXH3 with the format's seed ("plush"), spelled out as docs/format.md has it.
uint64_t FormatXxh3(std::string_view key) {
  return XXH3_64bits_withSeed(key.data(), key.size(), 0x706c757368ull);
}

// The key's first 8 bytes as a big-endian number, zero-padded (format §4).
uint64_t FormatPrefix(std::string_view key) {
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i) {
    p = p << 8 | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
  }
  return p;
}

uint64_t LowBits(uint64_t h, unsigned bits) {
  return bits == 0 ? 0 : h & (~uint64_t{0} >> (64 - bits));
}

// A range pool's placement on the map it starts with without a sample.
KeyHasher RangeByLeadingBits(unsigned d) {
  return KeyHasher(
      std::make_shared<const RangeMap>(d, RangeMap::ByLeadingBits(d)));
}

class KeyHasherTest : public ::testing::Test {
 protected:
  // Keys of every length from 0 to 20 bytes with random bytes (the high
  // ones included: byte order is unsigned).
  std::vector<std::string> RandomKeys(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> keys;
    for (size_t i = 0; i < n; ++i) {
      std::string k(rng() % 21, '\0');
      for (char& c : k) c = static_cast<char>(rng());
      keys.push_back(k);
    }
    return keys;
  }
};

TEST_F(KeyHasherTest, HashPartitioningIsTheSeededXxh3OfTheKey) {
  const KeyHasher hasher;
  EXPECT_FALSE(hasher.range());
  EXPECT_EQ(hasher.hash_bits(), ~uint64_t{0});
  for (const std::string& key : RandomKeys(200, 0)) {
    ASSERT_EQ(hasher.Hash(key), FormatXxh3(key)) << test::DescribeKey(key);
    ASSERT_EQ(hasher.PlaceKey(key).hash, FormatXxh3(key));
    ASSERT_EQ(hasher.PlaceKey(key).indirect_word, FormatXxh3(key))
        << "no fingerprint";
  }
  // Pinned: a pool written by any build (any xxHash version) must hash
  // keys the same way.
  EXPECT_EQ(KeyHasher().Hash("plush"), 0x233ebd7d4140b0abull);
  EXPECT_EQ(RangeByLeadingBits(8).Hash("plush"), 0x4140b0ab70ull);
  EXPECT_NE(KeyHasher().Hash("plush"), XXH3_64bits_withSeed("plush", 5, 0))
      << "the seed is part of the format";
}

TEST_F(KeyHasherTest, RangeLowBitsAreTheKeysLeadingBits) {
  for (unsigned d : {1u, 2u, 8u, 13u}) {
    const KeyHasher hasher = RangeByLeadingBits(d);
    EXPECT_TRUE(hasher.range());
    for (const std::string& key : RandomKeys(300, 100 + d)) {
      ASSERT_EQ(LowBits(hasher.Hash(key), d), FormatPrefix(key) >> (64 - d))
          << "d = " << d << ", " << test::DescribeKey(key);
    }
  }
}

// Below the DRAM level a range pool spreads keys like a hash pool: bits
// d..39 are the key hash's, and bits 40..63, where indirect slots keep
// the key's fingerprint, are zero (format §4: h = (x << d | u) mod 2^40).
TEST_F(KeyHasherTest, RangeBitsAboveTheDramIndexAreTheKeyHash) {
  for (unsigned d : {1u, 2u, 8u, 16u}) {
    const KeyHasher hasher = RangeByLeadingBits(d);
    EXPECT_EQ(hasher.hash_bits(), (uint64_t{1} << 40) - 1);
    for (const std::string& key : RandomKeys(300, 200 + d)) {
      ASSERT_EQ(hasher.Hash(key) >> d, LowBits(FormatXxh3(key), 40 - d))
          << "d = " << d << ", " << test::DescribeKey(key);
    }
  }
}

// An indirect slot's key word is the table hash with the key's
// fingerprint on the lower bound of its unit's range in bits 40..63.
TEST_F(KeyHasherTest, RangeIndirectWordsCarryTheKeysFingerprint) {
  constexpr unsigned kBits = 8;
  const KeyHasher hasher = RangeByLeadingBits(kBits);
  const std::vector<std::string> separators =
      RangeMap::ByLeadingBits(kBits).separators;
  for (const std::string& key : RandomKeys(300, 250)) {
    const uint64_t unit = FormatPrefix(key) >> (64 - kBits);
    const std::string lower = unit == 0 ? "" : separators[unit - 1];
    const KeyHasher::Placed placed = hasher.PlaceKey(key);
    ASSERT_EQ(placed.hash, hasher.Hash(key)) << test::DescribeKey(key);
    ASSERT_EQ(placed.indirect_word,
              placed.hash | fingerprint::Of(key, lower))
        << test::DescribeKey(key);
    ASSERT_EQ(hasher.IndirectWordOnUnit(key, unit, lower),
              placed.indirect_word)
        << test::DescribeKey(key);
  }
}

TEST_F(KeyHasherTest, RangeKeepsKeyOrderInTheDramIndex) {
  for (unsigned d : {1u, 3u, 10u, 16u}) {
    const KeyHasher hasher = RangeByLeadingBits(d);
    std::vector<std::string> keys = RandomKeys(2000, 300 + d);
    // Keys that share long prefixes, and prefixes of each other.
    keys.insert(keys.end(), {"", std::string(1, '\0'), "a", "a\x01", "ab",
                             "abcdefgh", "abcdefghi", "\xff", "\xff\xff\xff"});
    std::sort(keys.begin(), keys.end());  // unsigned byte order
    const uint64_t mask = (uint64_t{1} << d) - 1;
    for (size_t i = 1; i < keys.size(); ++i) {
      ASSERT_LE(hasher.Hash(keys[i - 1]) & mask, hasher.Hash(keys[i]) & mask)
          << "d = " << d << ": " << test::DescribeKey(keys[i - 1])
          << " sorts before " << test::DescribeKey(keys[i]);
    }
  }
}

// The same keys whose DRAM entry a range pool chooses by their first byte
// spread over every entry in a hash pool.
TEST_F(KeyHasherTest, SharedLeadingBitsShareARangeEntryButSpreadByHash) {
  constexpr unsigned kBits = 8;
  const KeyHasher range = RangeByLeadingBits(kBits);
  const KeyHasher hash;
  std::set<uint64_t> range_entries;
  std::set<uint64_t> hash_entries;
  for (int i = 0; i < 4096; ++i) {
    std::string key = "k";  // (not "k" + ...: GCC 12's -Wrestrict misfires)
    key += std::to_string(i);
    range_entries.insert(range.Hash(key) & 0xFF);
    hash_entries.insert(hash.Hash(key) & 0xFF);
  }
  EXPECT_EQ(range_entries, std::set<uint64_t>{'k'});
  EXPECT_EQ(hash_entries.size(), 256u);
}

TEST_F(KeyHasherTest, RangeWithoutDramBitsIsTheKeyHash) {
  const KeyHasher hasher = RangeByLeadingBits(0);
  for (const std::string& key : RandomKeys(100, 400)) {
    ASSERT_EQ(hasher.Hash(key), LowBits(FormatXxh3(key), 40))
        << test::DescribeKey(key);
  }
}

TEST_F(KeyHasherTest, ShortKeysArePaddedWithZeroBytes) {
  EXPECT_EQ(KeyPrefix(""), 0u);
  EXPECT_EQ(KeyPrefix("a"), 0x6100000000000000ull);
  EXPECT_EQ(KeyPrefix("ab"), 0x6162000000000000ull);
  EXPECT_EQ(KeyPrefix("abcdefgh"), 0x6162636465666768ull);
  EXPECT_EQ(KeyPrefix("abcdefghXYZ"), 0x6162636465666768ull)
      << "only the first 8 bytes count";
  EXPECT_EQ(KeyPrefix("\xff"), 0xFF00000000000000ull) << "bytes are unsigned";
  // So with 8 DRAM bits "a" and "a\0..." land in the same entry as "a".
  const KeyHasher hasher = RangeByLeadingBits(8);
  EXPECT_EQ(hasher.Hash("a") & 0xFF, 0x61u);
  EXPECT_EQ(hasher.Hash("") & 0xFF, 0u);
}

// Every length, every byte position (the prefix is assembled from whole
// words that overlap for keys of 4 to 7 bytes), and the second word.
TEST_F(KeyHasherTest, PrefixIsTheFirstEightBytesOfKeysOfEveryLength) {
  std::mt19937_64 rng(5);
  for (size_t n = 0; n <= 20; ++n) {
    for (int trial = 0; trial < 200; ++trial) {
      std::string key(n, '\0');
      for (char& c : key) c = static_cast<char>(rng());
      uint64_t expected = 0;
      for (size_t i = 0; i < 8; ++i) {
        const uint64_t byte =
            i < n ? static_cast<unsigned char>(key[i]) : uint64_t{0};
        expected |= byte << (56 - 8 * i);
      }
      ASSERT_EQ(KeyPrefix(key), expected) << test::DescribeKey(key);
      uint64_t second = 0;
      for (size_t i = 8; i < 16; ++i) {
        const uint64_t byte =
            i < n ? static_cast<unsigned char>(key[i]) : uint64_t{0};
        second |= byte << (56 - 8 * (i - 8));
      }
      ASSERT_EQ(KeySecondWord(key), second) << test::DescribeKey(key);
    }
  }
}

// Inline slots keep an 8-byte key as a little-endian word and recompute
// its hash from it: that must be the hash of the key's bytes.
TEST_F(KeyHasherTest, InlineHashIsTheHashOfTheEightKeyBytes) {
  std::mt19937_64 rng(500);
  std::vector<std::pair<std::string, KeyHasher>> hashers = {
      {"hash", KeyHasher()}};
  for (unsigned d : {0u, 2u, 8u, 16u}) {
    hashers.emplace_back("range, d = " + std::to_string(d),
                         RangeByLeadingBits(d));
  }
  for (const auto& [name, hasher] : hashers) {
    for (int i = 0; i < 200; ++i) {
      const uint64_t word = i < 2 ? (i == 0 ? 0 : ~uint64_t{0}) : rng();
      ASSERT_EQ(hasher.InlineHash(word), hasher.Hash(Word(word)))
          << name << ", word " << word;
    }
  }
}

// The seam that forces collisions (EngineSeams::key_hash) replaces the
// hash of keys that are not 8 bytes long only: 8-byte keys are rehashed
// from their inline words, which must keep agreeing with Hash().
TEST_F(KeyHasherTest, ReplacedKeyHashLeavesEightByteKeysAlone) {
  const KeyHashFunction forty_two = [](std::string_view) -> uint64_t {
    return 42;
  };
  const KeyHasher hash(forty_two);
  EXPECT_EQ(hash.Hash("a longer key"), 42u);
  EXPECT_EQ(hash.PlaceKey("a longer key").hash, 42u);
  EXPECT_EQ(hash.Hash(Word(7)), hash.InlineHash(7));
  EXPECT_NE(hash.Hash(Word(7)), 42u);
  // A range pool still places the replaced hash by the key's leading bits.
  const KeyHasher range(
      std::make_shared<const RangeMap>(4, RangeMap::ByLeadingBits(4)),
      forty_two);
  EXPECT_EQ(range.Hash("\xA0 longer key"), uint64_t{42} << 4 | 0xA);
  EXPECT_EQ(range.HashOnUnit("\xA0 longer key", 3), uint64_t{42} << 4 | 3);
  // Without it, the format's hash.
  EXPECT_EQ(KeyHasher().Hash("a longer key"), KeyHash("a longer key"));
}

}  // namespace
}  // namespace plush
