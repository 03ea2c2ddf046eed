// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Keys, values and their sizes.

#include "key_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <unordered_set>

#include "rng.h"
#include "size_spec.h"

namespace plush::bench {
namespace {

TEST(SizeSpecTest, ParsesFixedAndNormal) {
  SizeSpec spec;
  std::string error;
  ASSERT_TRUE(SizeSpec::Parse("8", 8, 1024, &spec, &error)) << error;
  EXPECT_TRUE(spec.fixed());
  EXPECT_EQ(spec.SizeOf(12345), 8u);
  EXPECT_EQ(spec.ToString(), "8");

  ASSERT_TRUE(SizeSpec::Parse("normal:16,3.2", 8, 1024, &spec, &error))
      << error;
  EXPECT_FALSE(spec.fixed());
  EXPECT_EQ(spec.ToString(), "normal:16,3.2");

  ASSERT_TRUE(SizeSpec::Parse("normal:16,0", 8, 1024, &spec, &error)) << error;
  EXPECT_TRUE(spec.fixed());
  EXPECT_EQ(spec.SizeOf(1), 16u);
}

TEST(SizeSpecTest, RejectsBadText) {
  SizeSpec spec;
  std::string error;
  for (const char* bad : {"", "abc", "4", "2000", "8x", "normal:16",
                          "normal:a,b", "normal:16,-1", "normal:4,1"}) {
    EXPECT_FALSE(SizeSpec::Parse(bad, 8, 1024, &spec, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(KeySpaceTest, KeysAreUniqueAndDisjointFromAbsentKeys) {
  const KeySpace space(SizeSpec::Fixed(8), SizeSpec::Fixed(8));
  RecordBuilder builder(space);
  std::unordered_set<std::string> keys;
  constexpr uint64_t kRecords = 100000;
  for (uint64_t r = 0; r < kRecords; ++r) {
    const std::string_view key = builder.Key(r);
    ASSERT_EQ(key.size(), 8u);
    ASSERT_TRUE(keys.emplace(key).second) << "duplicate key for record " << r;
  }
  for (uint64_t r = 0; r < kRecords; ++r) {
    ASSERT_EQ(keys.count(std::string(builder.AbsentKey(r))), 0u) << r;
  }
}

TEST(KeySpaceTest, Unmix64InvertsMix64) {
  Rng rng(42);
  for (uint64_t x : {uint64_t{0}, uint64_t{1}, UINT64_MAX, uint64_t{1} << 63}) {
    EXPECT_EQ(Unmix64(Mix64(x)), x);
  }
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = rng.Next();
    ASSERT_EQ(Unmix64(Mix64(x)), x) << x;
  }
}

TEST(KeySpaceTest, RecordOfInvertsKey) {
  const KeySpace space(SizeSpec::Normal(16, 3.2, kMinKeySize, 1024),
                       SizeSpec::Fixed(8));
  RecordBuilder builder(space);
  for (uint64_t r = 0; r < 10000; ++r) {
    ASSERT_EQ(builder.RecordOf(std::string(builder.Key(r))), r);
  }
  for (uint64_t r : {uint64_t{0}, uint64_t{5}, uint64_t{1} << 40}) {
    const std::string key(builder.Key(r));
    // Keys no record has: an absent key, another size, other filler.
    EXPECT_FALSE(builder.RecordOf(std::string(builder.AbsentKey(r))));
    EXPECT_FALSE(builder.RecordOf(key + "x"));
    EXPECT_FALSE(builder.RecordOf(key.substr(0, key.size() - 1)));
    std::string damaged = key;
    damaged.back() ^= 1;
    EXPECT_FALSE(builder.RecordOf(damaged));
    EXPECT_FALSE(builder.RecordOf(key.substr(0, 7)));
  }
}

// The ordered key spaces: keys ascend with the record number, and are
// told apart from absent keys and from each other as hashed keys are.
TEST(KeySpaceTest, OrderedKeysAscendWithTheirRecords) {
  for (KeyOrder order : {KeyOrder::kSequential, KeyOrder::kUser}) {
    const KeySpace space(SizeSpec::Fixed(8), SizeSpec::Fixed(8), order);
    RecordBuilder builder(space);
    std::string previous;
    std::unordered_set<std::string> keys;
    for (uint64_t r = 0; r < 20000; ++r) {
      const std::string key(builder.Key(r));
      ASSERT_LT(previous, key) << "record " << r;
      ASSERT_EQ(builder.RecordOf(key), r);
      ASSERT_FALSE(builder.RecordOf(std::string(builder.AbsentKey(r))));
      keys.insert(key);
      previous = key;
    }
    for (uint64_t r = 0; r < 20000; ++r)
      ASSERT_EQ(keys.count(std::string(builder.AbsentKey(r))), 0u);
  }
  const KeySpace users(SizeSpec::Fixed(8), SizeSpec::Fixed(8), KeyOrder::kUser);
  RecordBuilder builder(users);
  EXPECT_EQ(builder.Key(42), "user:00000042");
  EXPECT_EQ(builder.Key(123456789), "user:123456789");
  for (const char* bad : {"user:", "user:0000004x", "usr:00000042",
                          "user:00000000000000000000042", "user:0042"}) {
    EXPECT_FALSE(builder.RecordOf(bad)) << bad;
  }
  const KeySpace sequential(SizeSpec::Fixed(8), SizeSpec::Fixed(8),
                            KeyOrder::kSequential);
  RecordBuilder counters(sequential);
  EXPECT_EQ(counters.Key(258), std::string("\0\0\0\0\0\0\x01\x02", 8));
}

TEST(KeySpaceTest, DescribesRecordsByTheirKeyPrefix) {
  EXPECT_EQ(KeyText(std::string("\x01\x23\x45\x67\x89\xab\xcd\xef\xff", 9)),
            "key 0x0123456789abcdef");
  EXPECT_EQ(KeyText("ab"), "key 0x6162");
  EXPECT_EQ(DescribeRecord(42, "ab"), "record 42 (key 0x6162)");
}

TEST(KeySpaceTest, BuildersAgreeAndValuesCheck) {
  const KeySpace space(SizeSpec::Fixed(16), SizeSpec::Fixed(100));
  RecordBuilder a(space);
  RecordBuilder b(space);
  for (uint64_t r : {0ull, 1ull, 77ull, 1ull << 40}) {
    EXPECT_EQ(a.Key(r), b.Key(r));
    const std::string value(a.Value(r));
    EXPECT_EQ(value.size(), 100u);
    EXPECT_TRUE(b.ValueMatches(r, value));
    EXPECT_FALSE(b.ValueMatches(r + 1, value));
    std::string damaged = value;
    damaged[50] ^= 1;
    EXPECT_FALSE(b.ValueMatches(r, damaged));
    EXPECT_FALSE(b.ValueMatches(r, value.substr(0, 99)));
  }
}

TEST(KeySpaceTest, TinyValuesAreTagPrefixes) {
  const KeySpace space(SizeSpec::Fixed(8), SizeSpec::Fixed(3));
  RecordBuilder builder(space);
  const std::string value(builder.Value(5));
  EXPECT_EQ(value.size(), 3u);
  EXPECT_TRUE(builder.ValueMatches(5, value));
  EXPECT_FALSE(builder.ValueMatches(6, value));
}

TEST(KeySpaceTest, NormalSizesHaveTheRequestedMoments) {
  const KeySpace space(SizeSpec::Normal(16, 3.2, kMinKeySize, 1024),
                       SizeSpec::Normal(200, 40, 0, 65536));
  RecordBuilder builder(space);
  constexpr int kRecords = 200000;
  double key_sum = 0;
  double key_sq = 0;
  double value_sum = 0;
  double value_sq = 0;
  for (uint64_t r = 0; r < kRecords; ++r) {
    const auto key_size = static_cast<double>(builder.Key(r).size());
    const auto value_size = static_cast<double>(builder.Value(r).size());
    ASSERT_GE(key_size, kMinKeySize);
    key_sum += key_size;
    key_sq += key_size * key_size;
    value_sum += value_size;
    value_sq += value_size * value_size;
  }
  const double key_mean = key_sum / kRecords;
  const double value_mean = value_sum / kRecords;
  EXPECT_NEAR(key_mean, 16, 0.05);
  EXPECT_NEAR(std::sqrt(key_sq / kRecords - key_mean * key_mean), 3.2, 0.1);
  EXPECT_NEAR(value_mean, 200, 0.5);
  EXPECT_NEAR(std::sqrt(value_sq / kRecords - value_mean * value_mean), 40,
              0.5);
}

}  // namespace
}  // namespace plush::bench
