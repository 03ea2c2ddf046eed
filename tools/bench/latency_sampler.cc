// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "latency_sampler.h"

#include <cmath>

namespace plush::bench {

LatencySampler::LatencySampler(double fraction, uint64_t seed,
                               Histogram* histogram)
    : fraction_(fraction), rng_(seed), histogram_(histogram) {
  countdown_ = NextGap();
}

uint64_t LatencySampler::NextGap() {
  if (fraction_ >= 1) return 1;
  if (fraction_ <= 0) return UINT64_MAX;  // ~never, in any run's length
  // Inversion of the geometric distribution on {1, 2, ...}; 1 - u is in
  // (0, 1], so the logarithm is finite.
  const double u = 1 - rng_.NextDouble();
  const double gap = std::floor(std::log(u) / std::log1p(-fraction_)) + 1;
  return gap >= 0x1.0p63 ? UINT64_MAX : static_cast<uint64_t>(gap);
}

}  // namespace plush::bench
