// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Times a thread's operations into its own histogram: every one
// (--latency all) or a random fraction (--latency-sample). Gaps between
// timed operations are geometric (the discrete memoryless distribution),
// so every operation is timed with the same probability whatever came
// before, at the cost of one random draw per timed operation instead of
// one per operation. The histogram is the thread's own (no sharing while
// the phase runs); the phase merges them when it is over.

#ifndef PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_
#define PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_

#include <cmath>
#include <cstdint>

#include "histogram.h"
#include "rng.h"
#include "tsc_clock.h"

namespace plush::bench {

class LatencySampler {
 public:
  // Times each operation with probability `fraction` (in [0, 1]);
  // `nanos_per_tick` is TscClock::NanosPerTick().
  LatencySampler(double fraction, double nanos_per_tick, uint64_t seed)
      : fraction_(fraction), nanos_per_tick_(nanos_per_tick), rng_(seed) {
    countdown_ = NextGap();
  }

  // Bracket the engine call of every operation.
  void Begin() {
    if (--countdown_ != 0) return;
    countdown_ = NextGap();
    timing_ = true;
    start_ = TscClock::Begin();
  }
  void End() {
    if (!timing_) return;
    const uint64_t end = TscClock::End();
    timing_ = false;
    // Counters of different cores may differ by a few ticks: a thread
    // moved mid-operation must not record a negative time as a huge one.
    const uint64_t ticks = end > start_ ? end - start_ : 0;
    histogram_.Record(
        static_cast<uint64_t>(static_cast<double>(ticks) * nanos_per_tick_));
  }

  const Histogram& histogram() const { return histogram_; }

 private:
  uint64_t NextGap() {
    if (fraction_ >= 1) return 1;
    if (fraction_ <= 0) return UINT64_MAX;  // ~never, in any run's length
    // Inversion of the geometric distribution on {1, 2, ...}; 1 - u is in
    // (0, 1], so the logarithm is finite.
    const double u = 1 - rng_.NextDouble();
    const double gap = std::floor(std::log(u) / std::log1p(-fraction_)) + 1;
    return gap >= 0x1.0p63 ? UINT64_MAX : static_cast<uint64_t>(gap);
  }

  const double fraction_;
  const double nanos_per_tick_;
  Rng rng_;
  uint64_t countdown_;
  bool timing_ = false;
  uint64_t start_ = 0;
  Histogram histogram_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_LATENCY_SAMPLER_H_
