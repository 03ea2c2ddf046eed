// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "histogram.h"

#include <algorithm>
#include <cmath>

namespace plush::bench {
namespace {

// Buckets up to and including the one holding UINT64_MAX.
constexpr size_t kBucketCount = (64 - Histogram::kSubBucketBits + 1)
                                << Histogram::kSubBucketBits;

}  // namespace

Histogram::Histogram() : counts_(kBucketCount, 0) {}

void Histogram::Merge(const Histogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

uint64_t Histogram::MidpointOf(size_t bucket) {
  if (bucket < kSubBuckets) return bucket;
  const uint64_t shift = bucket / kSubBuckets - 1;
  const uint64_t lowest = (bucket - shift * kSubBuckets) << shift;
  return lowest + ((uint64_t{1} << shift) - 1) / 2;
}

uint64_t Histogram::Percentile(double percent) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(percent / 100 * static_cast<double>(count_));
  const uint64_t rank = std::clamp(static_cast<uint64_t>(std::max(wanted, 1.0)),
                                   uint64_t{1}, count_);
  uint64_t seen = 0;
  for (size_t bucket = 0; bucket < counts_.size(); ++bucket) {
    seen += counts_[bucket];
    // Clamping keeps the estimate inside what was actually recorded, which
    // makes the extreme percentiles exact.
    if (seen >= rank) return std::clamp(MidpointOf(bucket), min_, max_);
  }
  return max_;
}

}  // namespace plush::bench
