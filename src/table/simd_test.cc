// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The CPU-specific kernels against plain reference loops, and the filter's
// contract: no false negatives, a false-positive rate near its design.

#include "table/simd.h"

#include <gtest/gtest.h>

#include <random>

#include "placement/key_hash.h"

namespace plush::table {
namespace {

TEST(SimdTest, MatchKeysFindsEveryEqualKey) {
  std::mt19937_64 rng(1);
  alignas(256) uint64_t keys[kSlotsPerBucket];
  for (int round = 0; round < 1000; ++round) {
    const uint64_t needle = rng();
    uint32_t expected = 0;
    for (unsigned i = 0; i < kSlotsPerBucket; ++i) {
      keys[i] = rng() % 3 == 0 ? needle : rng();
      expected |= uint32_t{keys[i] == needle} << i;
    }
    ASSERT_EQ(MatchKeys(keys, needle), expected);
  }
}

class FilterTest : public ::testing::TestWithParam<unsigned> {};  // fanout

TEST_P(FilterTest, NoFalseNegativesAndFewFalsePositives) {
  const unsigned fanout = GetParam();
  alignas(512) uint64_t filter[kFilterBytes / 8] = {};
  std::mt19937_64 rng(fanout);
  std::vector<std::pair<uint64_t, unsigned>> stored;  // (hash, bucket)
  for (unsigned b = 0; b < fanout; ++b) {
    FilterResetBucket(filter, b, fanout);
    for (unsigned i = 0; i < kSlotsPerBucket; ++i) {
      const uint64_t h = KeyHash(std::to_string(rng()));
      FilterAdd(filter, b, MakeProbe(h, fanout));
      stored.emplace_back(h, b);
    }
  }
  for (const auto& [h, b] : stored) {
    ASSERT_TRUE((FilterCandidates(filter, fanout, MakeProbe(h, fanout)) >> b) &
                1);
  }
  constexpr int kProbes = 200000;
  uint64_t false_positives = 0;
  for (int i = 0; i < kProbes; ++i) {
    const uint32_t c =
        FilterCandidates(filter, fanout, MakeProbe(rng(), fanout));
    false_positives += static_cast<uint64_t>(__builtin_popcount(c));
    ASSERT_EQ(c >> fanout, 0u) << "only existing buckets are candidates";
  }
  const double rate = static_cast<double>(false_positives) / (kProbes * fanout);
  // 8 bits per key with 4 probe bits: 2.4% unblocked; blocking costs a bit.
  EXPECT_LT(rate, fanout == 16 ? 0.045 : 0.02) << "fanout " << fanout;
}

TEST_P(FilterTest, ResettingABucketForgetsOnlyIt) {
  const unsigned fanout = GetParam();
  alignas(512) uint64_t filter[kFilterBytes / 8] = {};
  const FilterProbe probe = MakeProbe(KeyHash("key"), fanout);
  for (unsigned b = 0; b < fanout; ++b) FilterAdd(filter, b, probe);
  FilterResetBucket(filter, 1, fanout);
  const uint32_t all = (fanout == 32 ? ~0u : (1u << fanout) - 1);
  EXPECT_EQ(FilterCandidates(filter, fanout, probe), all & ~2u);
  EXPECT_EQ(FilterCandidates(filter, 1, probe), 1u)
      << "buckets beyond the size are ignored";
}

INSTANTIATE_TEST_SUITE_P(Fanouts, FilterTest,
                         ::testing::Values(2u, 4u, 8u, 16u));

}  // namespace
}  // namespace plush::table
