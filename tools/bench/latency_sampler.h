// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Times a random fraction of a thread's operations into its histogram.
// Gaps between timed operations are geometric (the discrete memoryless
// distribution), so every operation is timed with the same probability
// whatever came before, at the cost of one random draw per timed operation
// instead of one per operation.

#ifndef PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_
#define PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_

#include <chrono>
#include <cmath>
#include <cstdint>

#include "histogram.h"
#include "rng.h"

namespace plush::bench {

class LatencySampler {
 public:
  // Times each operation with probability `fraction` (in [0, 1]).
  LatencySampler(double fraction, uint64_t seed, Histogram* histogram)
      : fraction_(fraction), rng_(seed), histogram_(histogram) {
    countdown_ = NextGap();
  }

  // Bracket the engine call of every operation.
  void Begin() {
    if (--countdown_ != 0) return;
    countdown_ = NextGap();
    timing_ = true;
    start_ = Clock::now();
  }
  void End() {
    if (!timing_) return;
    timing_ = false;
    histogram_->Record(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                             start_)
            .count()));
  }

 private:
  using Clock = std::chrono::steady_clock;

  uint64_t NextGap() {
    if (fraction_ >= 1) return 1;
    if (fraction_ <= 0) return UINT64_MAX;  // ~never, in any run's length
    // Inversion of the geometric distribution on {1, 2, ...}; 1 - u is in
    // (0, 1], so the logarithm is finite.
    const double u = 1 - rng_.NextDouble();
    const double gap = std::floor(std::log(u) / std::log1p(-fraction_)) + 1;
    return gap >= 0x1.0p63 ? UINT64_MAX : static_cast<uint64_t>(gap);
  }

  double fraction_;
  Rng rng_;
  Histogram* histogram_;
  uint64_t countdown_;
  bool timing_ = false;
  Clock::time_point start_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_
