// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/key_fingerprint.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace plush::fingerprint {
namespace {

// Keys over a small alphabet (so that they share prefixes), some long
// enough to pass the deepest depth.
std::string RandomKey(std::mt19937_64& rng) {
  static const char kAlphabet[] = {'\0', '0', '1', '9', 'a', '\xff'};
  const size_t n = rng() % 4 == 0 ? 60 + rng() % 12 : rng() % 8;
  std::string key(rng() % 3 == 0 ? "user:000" : "");
  for (size_t i = 0; i < n; ++i) key += kAlphabet[rng() % sizeof(kAlphabet)];
  return key;
}

// The keys of plush-bench --key-order user.
std::string UserKey(int i) {
  char key[16];
  std::snprintf(key, sizeof(key), "user:%08d", i);
  return key;
}

TEST(KeyFingerprintTest, FiltersOnlyKeysOutsideTheRange) {
  std::mt19937_64 rng(7);
  size_t excluded = 0;
  size_t outside = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::string> k;
    for (int i = 0; i < 3; ++i) k.push_back(RandomKey(rng));
    std::sort(k.begin(), k.end());
    const std::string& lower = k[0];
    const std::string& from = k[1];
    std::optional<std::string_view> upper;
    if (k[2] > from && rng() % 2 == 0) upper = k[2];
    const Filter filter(lower, from, upper);
    for (int i = 0; i < 20; ++i) {
      std::string key = RandomKey(rng);
      if (key < lower) key = lower + key;  // the range's keys are >= lower
      // The low 40 bits (the table hash) do not matter.
      const uint64_t word = Of(key, lower) | (rng() >> 24);
      const bool out = key < from || (upper && key >= *upper);
      outside += out;
      if (filter.Excludes(word)) {
        ++excluded;
        ASSERT_TRUE(out) << "key " << testing::PrintToString(key)
                         << " lower " << testing::PrintToString(lower)
                         << " from " << testing::PrintToString(from);
      }
    }
  }
  // Most keys outside the range are told from their fingerprints alone.
  EXPECT_GT(excluded, outside * 3 / 4);
}

TEST(KeyFingerprintTest, TellsLongKeysWithACommonPrefixApart) {
  // A unit of "user:%08d" keys from user:00012300 on; a scan from
  // user:00012345 up to user:00012390 leaves out the 45 keys below it and
  // those above the upper bound (the bound itself has the fingerprint of
  // a key inside, and is read).
  const std::string lower = "user:00012300";
  const Filter filter(lower, UserKey(12345), UserKey(12390));
  for (int i = 12300; i < 12400; ++i) {
    const bool out = i < 12345 || i > 12390;
    EXPECT_EQ(filter.Excludes(Of(UserKey(i), lower)), out) << i;
  }
}

TEST(KeyFingerprintTest, DepthStopsAtTheLimit) {
  const std::string lower(100, 'a');
  const std::string key = std::string(80, 'a') + "b";
  const uint64_t word = Of(key, lower);
  EXPECT_EQ(word >> (kShift + kBits), kMaxDepth);
  EXPECT_EQ(word & ~kMask, 0u);
  // Past the depth limit keys are not told apart, and none is left out.
  const Filter filter(lower, std::string(80, 'a') + "a", std::nullopt);
  EXPECT_FALSE(filter.Excludes(word));
}

// A scan of user:%08d keys from user:00012345 wants 128 records: the batch
// ends where the fingerprints tell about 128 keys from the others (they
// tell keys apart down to their tens), and a filter on [from, end) then
// keeps those keys and no others.
TEST(KeyFingerprintTest, BatchesEndAfterAboutTheKeysWanted) {
  const std::string lower = "user:00012300";
  const std::string from = UserKey(12345);
  const Filter all(lower, from, std::nullopt);
  std::vector<uint64_t> words;
  for (int i = 12300; i < 13300; ++i) {
    const uint64_t word = Of(UserKey(i), lower);
    if (!all.Excludes(word)) words.push_back(word);
  }
  // user:000123 are the first 11 bytes of keys below 12400 and of the
  // bound: their fingerprints tell them apart down to the units.
  ASSERT_EQ(words.size(), 13300u - 12345u);
  const std::optional<std::string> end = BatchEnd(from, words, 128);
  ASSERT_TRUE(end.has_value());
  EXPECT_GT(*end, from);
  const Filter batch(lower, from, *end);
  size_t kept = 0;
  for (int i = 12300; i < 13300; ++i) {
    const bool in = UserKey(i) >= from && UserKey(i) < *end;
    const bool excluded = batch.Excludes(Of(UserKey(i), lower));
    ASSERT_FALSE(in && excluded) << i;
    kept += !excluded;
  }
  EXPECT_GE(kept, 118u);
  EXPECT_LE(kept, 148u);
  // Fewer keys than wanted, or fingerprints that tell none apart: no end.
  EXPECT_FALSE(BatchEnd(from, words, words.size()).has_value());
  const std::vector<uint64_t> same(300, Of(UserKey(12345), lower));
  EXPECT_FALSE(BatchEnd(from, same, 128).has_value());
}

TEST(KeyFingerprintTest, BatchEndsLieAboveTheStart) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> keys;
    for (int i = 0; i < 40; ++i) keys.push_back(RandomKey(rng));
    std::sort(keys.begin(), keys.end());
    const std::string& lower = keys[0];
    const std::string& from = keys[rng() % keys.size()];
    const Filter filter(lower, from, std::nullopt);
    std::vector<uint64_t> words;
    for (const std::string& k : keys) {
      const uint64_t word = Of(k, lower);
      if (!filter.Excludes(word)) words.push_back(word);
    }
    const size_t count = rng() % (words.size() + 1);
    const std::optional<std::string> end = BatchEnd(from, words, count);
    if (!end) continue;
    ASSERT_GT(*end, from);
    const Filter batch(lower, from, *end);
    for (const std::string& k : keys) {
      if (k >= from && k < *end) {
        ASSERT_FALSE(batch.Excludes(Of(k, lower))) << k;
      }
    }
    // At least `count` words are kept besides those that may lie below
    // `from`: every word whose bound ranks at or below the count-th.
    size_t kept = 0;
    for (const uint64_t word : words) kept += !batch.Excludes(word);
    ASSERT_GT(kept, count);
  }
}

// A unit split below its keys keeps them, and its range's lower bound
// moves up to at most its smallest key: fingerprints written on the old
// bound, read against the new one, exclude only keys outside what a scan
// reads, and Fits() them.
TEST(KeyFingerprintTest, ALowerBoundThatMovedUpReadsRightly) {
  std::mt19937_64 rng(11);
  size_t excluded = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::string> k;
    for (int i = 0; i < 4; ++i) k.push_back(RandomKey(rng));
    std::sort(k.begin(), k.end());
    const std::string& written_lower = k[0];
    const std::string& lower = k[1];
    const std::string& from = k[2];
    std::optional<std::string_view> upper;
    if (k[3] > from && rng() % 2 == 0) upper = k[3];
    const Filter filter(lower, from, upper);
    for (int i = 0; i < 20; ++i) {
      std::string key = RandomKey(rng);
      if (key < lower) key = lower + key;
      const uint64_t word = Of(key, written_lower) | (rng() >> 24);
      ASSERT_TRUE(Fits(word, key, lower));
      if (filter.Excludes(word)) {
        ++excluded;
        ASSERT_TRUE(key < from || (upper && key >= *upper))
            << "key " << testing::PrintToString(key) << " written on "
            << testing::PrintToString(written_lower) << ", read on "
            << testing::PrintToString(lower) << " from "
            << testing::PrintToString(from);
      }
    }
  }
  EXPECT_GT(excluded, 10000u) << "the filter excluded next to nothing";
}

// The control: a fingerprint read against a lower bound below the one it
// was written with can leave out a key of the range (why re-balancing
// never moves the lower bound of a unit that keeps its records down), and
// does not fit.
TEST(KeyFingerprintTest, ALowerBoundThatMovedDownMisleads) {
  const std::string written_lower = "user:00012300";
  const std::string key = "user:00012350";
  const uint64_t word = Of(key, written_lower);
  const Filter moved("user:00000000", "user:00012340", std::nullopt);
  EXPECT_TRUE(moved.Excludes(word));
  EXPECT_FALSE(Fits(word, key, "user:00000000"));
  EXPECT_TRUE(Fits(word, key, written_lower));
  EXPECT_FALSE(Fits(word ^ (uint64_t{1} << kShift), key, written_lower))
      << "other bits";
}

}  // namespace
}  // namespace plush::fingerprint
