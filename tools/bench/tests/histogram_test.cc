// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The histogram's percentiles against exact ones computed by sorting.

#include "histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace plush::bench {
namespace {

// The documented bound: half a bucket, at most 1/256 of the value.
constexpr double kMaxRelativeError = 1.0 / (2 << Histogram::kSubBucketBits);

// The value of rank ceil(p/100 * n) in sorted order: Percentile()'s
// definition.
uint64_t ExactPercentile(std::vector<uint64_t> values, double percent) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::max(
      1.0, std::ceil(percent / 100 * static_cast<double>(values.size()))));
  return values[std::min(rank, values.size()) - 1];
}

void ExpectMatchesExact(const std::vector<uint64_t>& values) {
  Histogram histogram;
  for (uint64_t v : values) histogram.Record(v);
  for (double p : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const uint64_t exact = ExactPercentile(values, p);
    const double estimate = static_cast<double>(histogram.Percentile(p));
    EXPECT_LE(std::abs(estimate - static_cast<double>(exact)),
              kMaxRelativeError * static_cast<double>(exact) + 1)
        << "p" << p << " exact " << exact << " estimate " << estimate;
  }
  EXPECT_EQ(histogram.max(), *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(histogram.min(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(histogram.count(), values.size());
}

TEST(HistogramTest, EmptyReportsZero) {
  Histogram histogram;
  EXPECT_EQ(histogram.count(), 0u);
  EXPECT_EQ(histogram.Percentile(50), 0u);
  EXPECT_EQ(histogram.max(), 0u);
  EXPECT_EQ(histogram.min(), 0u);
}

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram histogram;
  for (uint64_t v = 0; v < 100; ++v) histogram.Record(v);
  EXPECT_EQ(histogram.Percentile(50), 49u);
  EXPECT_EQ(histogram.Percentile(100), 99u);
  EXPECT_EQ(histogram.Percentile(1), 0u);
}

TEST(HistogramTest, LogNormalLatenciesWithinBound) {
  // Latency-like data: a log-normal body around 1 us with a long tail.
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> body(std::log(1000.0), 0.8);
  std::vector<uint64_t> values;
  for (int i = 0; i < 200000; ++i) {
    values.push_back(static_cast<uint64_t>(body(rng)));
  }
  ExpectMatchesExact(values);
}

TEST(HistogramTest, WholeRangeWithinBound) {
  // Values spread over all 64 bits, including the largest.
  std::mt19937_64 rng(2);
  std::vector<uint64_t> values = {UINT64_MAX, 0, 1};
  for (int i = 0; i < 50000; ++i) {
    values.push_back(rng() >> (rng() % 64));
  }
  ExpectMatchesExact(values);
}

TEST(HistogramTest, MergeEqualsRecordingEverything) {
  std::mt19937_64 rng(3);
  Histogram a;
  Histogram b;
  Histogram all;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t v = rng() % 1000000;
    (i % 2 == 0 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.min(), all.min());
  for (double p : {50.0, 99.0, 99.9}) {
    EXPECT_EQ(a.Percentile(p), all.Percentile(p));
  }
}

}  // namespace
}  // namespace plush::bench
