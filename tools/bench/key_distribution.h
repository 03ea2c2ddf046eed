// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Which existing record an operation touches: a record number in [0, n)
// drawn from a uniform, zipfian or self-similar distribution.
//
// Skewed distributions produce a popularity rank (0 = hottest). Ranks are
// scattered over record numbers by a fixed bijection so that the hot records
// are not simply the first ones loaded; otherwise skew would be confounded
// with load order (in Plush the oldest records sit in the deepest levels).

#ifndef PLUSH_TOOLS_BENCH_KEY_DISTRIBUTION_H_
#define PLUSH_TOOLS_BENCH_KEY_DISTRIBUTION_H_

#include <cstdint>
#include <string_view>

#include "rng.h"

namespace plush::bench {

enum class DistributionKind { kUniform, kZipfian, kSelfSimilar };

// "uniform", "zipfian", "selfsimilar".
std::string_view DistributionName(DistributionKind kind);
// The skew used when --skew is not given: 0.99 (zipfian, as in YCSB) and
// 0.2 (self-similar: 80% of accesses to 20% of the records); 0 for uniform.
double DefaultSkew(DistributionKind kind);

// Zipf's law over ranks 1..n: P(k) proportional to k^-theta, theta > 0.
// Rejection-inversion sampling (Hörmann and Derflinger, 1996): exact, O(1)
// per sample with no O(n) setup (unlike the zeta-based YCSB generator, which
// is also only an approximation), so large n and any theta are cheap.
class ZipfianSampler {
 public:
  ZipfianSampler(uint64_t n, double theta);
  // A rank in [1, n].
  uint64_t Sample(Rng& rng) const;

 private:
  double H(double x) const;
  double HIntegral(double x) const;
  double HIntegralInverse(double x) const;

  double n_;
  double theta_;
  double h_integral_x1_;
  double h_integral_n_;
  double s_;
};

// Gray et al.'s self-similar distribution ("Quickly generating billion-record
// synthetic databases", SIGMOD 1994): a fraction 1 - h of the accesses go to
// a fraction h of the records, recursively; skew h is in (0, 0.5].
class SelfSimilarSampler {
 public:
  SelfSimilarSampler(uint64_t n, double h);
  // A rank in [0, n).
  uint64_t Sample(Rng& rng) const;

 private:
  uint64_t n_;
  double exponent_;
};

class KeyDistribution {
 public:
  // `skew` is theta (zipfian) or h (self-similar); ignored for uniform.
  // REQUIRES: n > 0 and a skew ValidateSkew() accepts.
  KeyDistribution(DistributionKind kind, uint64_t n, double skew);

  // Empty if `skew` suits `kind`, else a message saying why not.
  static std::string_view ValidateSkew(DistributionKind kind, double skew);

  // A record number in [0, n).
  uint64_t Next(Rng& rng) const {
    switch (kind_) {
      case DistributionKind::kUniform:
        return rng.Below(n_);
      case DistributionKind::kZipfian:
        return Scatter(zipfian_.Sample(rng) - 1);
      case DistributionKind::kSelfSimilar:
        return Scatter(self_similar_.Sample(rng));
    }
    return 0;
  }

  // The bijection from popularity ranks to record numbers:
  // rank * stride mod n, where stride < n is coprime with n.
  uint64_t Scatter(uint64_t rank) const {
    // Below 2^32 records the product fits in 64 bits and the cheaper 64-bit
    // division does.
    if (n_ <= (1ULL << 32)) return rank * stride_ % n_;
    return static_cast<uint64_t>(static_cast<Uint128>(rank) * stride_ % n_);
  }

 private:
  DistributionKind kind_;
  uint64_t n_;
  uint64_t stride_;
  ZipfianSampler zipfian_;
  SelfSimilarSampler self_similar_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_KEY_DISTRIBUTION_H_
