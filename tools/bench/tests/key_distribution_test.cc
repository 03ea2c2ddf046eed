// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Statistical checks of the key distributions. Seeds are fixed, so the
// tests are deterministic; the thresholds are set where an honest generator
// fails with probability below one in a million.

#include "key_distribution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace plush::bench {
namespace {

constexpr int kSamples = 1000000;

// Pearson's chi-square of observed counts against expected probabilities.
double ChiSquare(const std::vector<uint64_t>& counts,
                 const std::vector<double>& probabilities) {
  double chi2 = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double expected = probabilities[i] * kSamples;
    const double diff = static_cast<double>(counts[i]) - expected;
    chi2 += diff * diff / expected;
  }
  return chi2;
}

// Mean plus 6 standard deviations of a chi-square with `dof` degrees of
// freedom (its standard deviation is sqrt(2 dof)).
double ChiSquareLimit(size_t dof) {
  return static_cast<double>(dof) +
         6 * std::sqrt(2.0 * static_cast<double>(dof));
}

TEST(KeyDistributionTest, UniformPassesChiSquare) {
  constexpr uint64_t kRecords = 100;
  const KeyDistribution distribution(DistributionKind::kUniform, kRecords, 0);
  Rng rng(11);
  std::vector<uint64_t> counts(kRecords);
  for (int i = 0; i < kSamples; ++i) ++counts[distribution.Next(rng)];
  EXPECT_LT(ChiSquare(counts, std::vector<double>(kRecords, 1.0 / kRecords)),
            ChiSquareLimit(kRecords - 1));
}

class ZipfianTest : public testing::TestWithParam<double> {};

TEST_P(ZipfianTest, RankFrequenciesFollowZipfsLaw) {
  const double theta = GetParam();
  constexpr uint64_t kRanks = 1000;
  std::vector<double> probabilities(kRanks);
  double harmonic = 0;
  for (uint64_t k = 1; k <= kRanks; ++k) {
    probabilities[k - 1] = std::pow(static_cast<double>(k), -theta);
    harmonic += probabilities[k - 1];
  }
  for (double& p : probabilities) p /= harmonic;

  const ZipfianSampler sampler(kRanks, theta);
  Rng rng(12);
  std::vector<uint64_t> counts(kRanks);
  for (int i = 0; i < kSamples; ++i) {
    const uint64_t rank = sampler.Sample(rng);
    ASSERT_GE(rank, 1u);
    ASSERT_LE(rank, kRanks);
    ++counts[rank - 1];
  }
  EXPECT_LT(ChiSquare(counts, probabilities), ChiSquareLimit(kRanks - 1));
  // The head of the law, where skew matters, within 2%.
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(static_cast<double>(counts[k]) / kSamples, probabilities[k],
                0.02 * probabilities[k])
        << "rank " << k + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Thetas, ZipfianTest,
                         testing::Values(0.5, 0.99, 1.0, 1.5));

TEST(KeyDistributionTest, SelfSimilarPutsEightyPercentOnTwentyPercent) {
  constexpr uint64_t kRecords = 1000000;
  const SelfSimilarSampler sampler(kRecords, 0.2);
  Rng rng(13);
  int in_top_20 = 0;
  int in_top_4 = 0;  // self-similar: 80% of the top 20% again
  for (int i = 0; i < kSamples; ++i) {
    const uint64_t rank = sampler.Sample(rng);
    ASSERT_LT(rank, kRecords);
    in_top_20 += rank < kRecords / 5;
    in_top_4 += rank < kRecords / 25;
  }
  EXPECT_NEAR(static_cast<double>(in_top_20) / kSamples, 0.80, 0.005);
  EXPECT_NEAR(static_cast<double>(in_top_4) / kSamples, 0.64, 0.005);
}

TEST(KeyDistributionTest, ScatterIsABijection) {
  for (uint64_t n :
       {1ull, 2ull, 10ull, 1000ull, 65536ull, 999983ull, 1000000ull}) {
    const KeyDistribution distribution(DistributionKind::kZipfian, n, 0.99);
    std::vector<bool> seen(n);
    for (uint64_t rank = 0; rank < n; ++rank) {
      const uint64_t record = distribution.Scatter(rank);
      ASSERT_LT(record, n);
      ASSERT_FALSE(seen[record]) << "n " << n << " rank " << rank;
      seen[record] = true;
    }
  }
}

TEST(KeyDistributionTest, ScatterSpreadsTheHotRanks) {
  // The 100 hottest ranks of a million records should not sit together.
  const KeyDistribution distribution(DistributionKind::kZipfian, 1000000, 0.99);
  int in_first_tenth = 0;
  for (uint64_t rank = 0; rank < 100; ++rank) {
    in_first_tenth += distribution.Scatter(rank) < 100000;
  }
  EXPECT_LT(in_first_tenth, 25);
}

TEST(KeyDistributionTest, SkewedRecordsStayInRange) {
  for (DistributionKind kind :
       {DistributionKind::kZipfian, DistributionKind::kSelfSimilar}) {
    const KeyDistribution distribution(kind, 7, DefaultSkew(kind));
    Rng rng(14);
    for (int i = 0; i < 10000; ++i) ASSERT_LT(distribution.Next(rng), 7u);
  }
}

TEST(KeyDistributionTest, ValidatesSkew) {
  EXPECT_TRUE(
      KeyDistribution::ValidateSkew(DistributionKind::kZipfian, 0.99).empty());
  EXPECT_FALSE(
      KeyDistribution::ValidateSkew(DistributionKind::kZipfian, 0).empty());
  EXPECT_TRUE(KeyDistribution::ValidateSkew(DistributionKind::kSelfSimilar, 0.2)
                  .empty());
  EXPECT_FALSE(
      KeyDistribution::ValidateSkew(DistributionKind::kSelfSimilar, 0.7)
          .empty());
  EXPECT_TRUE(
      KeyDistribution::ValidateSkew(DistributionKind::kUniform, 42).empty());
}

}  // namespace
}  // namespace plush::bench
