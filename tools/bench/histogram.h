// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A log-linear histogram of latencies in nanoseconds, in the style of
// HdrHistogram (which Debian does not package).
//
// Values below 2^kSubBucketBits are counted exactly. Above, each power-of-two
// range [2^e, 2^(e+1)) is split into 2^kSubBucketBits equal sub-buckets, so a
// bucket's width is at most 1/2^kSubBucketBits of its lowest value. A
// percentile is reported as the middle of its bucket, hence within a relative
// error of 1/2^(kSubBucketBits+1) = 1/256 (0.39%) of the exact value; max()
// and min() are exact. The whole 64-bit range takes 7424 counters (58 KiB),
// with no configuration and no overflow.
//
// Not thread-safe: every thread records into its own histogram, and the
// histograms are merged when the phase is over.

#ifndef PLUSH_TOOLS_BENCH_HISTOGRAM_H_
#define PLUSH_TOOLS_BENCH_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace plush::bench {

class Histogram {
 public:
  static constexpr int kSubBucketBits = 7;

  Histogram();

  void Record(uint64_t value) {
    ++counts_[BucketOf(value)];
    ++count_;
    if (value > max_) max_ = value;
    if (value < min_) min_ = value;
  }
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  // 0 if the histogram is empty.
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  // The value below or at which `percent` percent of the recorded values
  // lie: the value of rank ceil(percent / 100 * count) (at least 1) in
  // sorted order, within the error bound above. 0 if empty.
  uint64_t Percentile(double percent) const;

 private:
  static constexpr uint64_t kSubBuckets = 1ULL << kSubBucketBits;

  static size_t BucketOf(uint64_t value) {
    if (value < kSubBuckets) return static_cast<size_t>(value);
    // shift = floor(log2(value)) - kSubBucketBits; the value's top
    // kSubBucketBits + 1 bits select the sub-bucket.
    const int shift = 63 - __builtin_clzll(value) - kSubBucketBits;
    return static_cast<size_t>(static_cast<uint64_t>(shift) * kSubBuckets +
                               (value >> shift));
  }
  // The middle of the bucket's value range.
  static uint64_t MidpointOf(size_t bucket);

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_HISTOGRAM_H_
