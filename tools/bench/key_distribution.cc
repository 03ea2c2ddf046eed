// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "key_distribution.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plush::bench {
namespace {

// log1p(x) / x and expm1(x) / x, continued smoothly to x = 0 (where theta
// = 1 makes the closed forms below divide by zero).
double Log1pOverX(double x) {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x
                            : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}
double Expm1OverX(double x) {
  return std::abs(x) > 1e-8
             ? std::expm1(x) / x
             : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

// A stride near n / golden ratio spreads consecutive ranks evenly over the
// record numbers (Fibonacci hashing); coprimality makes it a bijection.
uint64_t CoprimeStride(uint64_t n) {
  uint64_t stride = std::max<uint64_t>(
      1, static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887498949));
  while (std::gcd(stride, n) != 1) stride = (stride + 1) % n;
  return stride;
}

}  // namespace

std::string_view DistributionName(DistributionKind kind) {
  switch (kind) {
    case DistributionKind::kUniform:
      return "uniform";
    case DistributionKind::kZipfian:
      return "zipfian";
    case DistributionKind::kSelfSimilar:
      return "selfsimilar";
  }
  return "unknown";
}

double DefaultSkew(DistributionKind kind) {
  switch (kind) {
    case DistributionKind::kUniform:
      return 0;
    case DistributionKind::kZipfian:
      return 0.99;
    case DistributionKind::kSelfSimilar:
      return 0.2;
  }
  return 0;
}

// ---- ZipfianSampler --------------------------------------------------------
//
// Rejection-inversion: sample x from the continuous density h(x) = x^-theta
// on [0.5, n + 0.5] by inverting its integral H, round to the nearest
// integer k, and accept k with probability h(k) / (H(k + 0.5) - H(k - 0.5)).
// The test `k - x <= s_` accepts most samples without evaluating H.

ZipfianSampler::ZipfianSampler(uint64_t n, double theta)
    : n_(static_cast<double>(n)), theta_(theta) {
  h_integral_x1_ = HIntegral(1.5) - 1;
  h_integral_n_ = HIntegral(n_ + 0.5);
  s_ = 2 - HIntegralInverse(HIntegral(2.5) - H(2));
}

uint64_t ZipfianSampler::Sample(Rng& rng) const {
  while (true) {
    const double u =
        h_integral_n_ + rng.NextDouble() * (h_integral_x1_ - h_integral_n_);
    const double x = HIntegralInverse(u);
    const double k = std::clamp(std::floor(x + 0.5), 1.0, n_);
    if (k - x <= s_ || u >= HIntegral(k + 0.5) - H(k)) {
      return static_cast<uint64_t>(k);
    }
  }
}

double ZipfianSampler::H(double x) const {
  return std::exp(-theta_ * std::log(x));
}

// (x^(1-theta) - 1) / (1 - theta), or log(x) when theta = 1.
double ZipfianSampler::HIntegral(double x) const {
  const double log_x = std::log(x);
  return Expm1OverX((1 - theta_) * log_x) * log_x;
}

double ZipfianSampler::HIntegralInverse(double x) const {
  // Rounding can push t just below -1, outside the domain of log1p.
  const double t = std::max(-1.0, x * (1 - theta_));
  return std::exp(Log1pOverX(t) * x);
}

// ---- SelfSimilarSampler ----------------------------------------------------

SelfSimilarSampler::SelfSimilarSampler(uint64_t n, double h)
    : n_(n), exponent_(std::log(h) / std::log(1 - h)) {}

uint64_t SelfSimilarSampler::Sample(Rng& rng) const {
  const auto rank = static_cast<uint64_t>(
      static_cast<double>(n_) * std::pow(rng.NextDouble(), exponent_));
  return std::min(rank, n_ - 1);
}

// ---- KeyDistribution -------------------------------------------------------

KeyDistribution::KeyDistribution(DistributionKind kind, uint64_t n, double skew)
    : kind_(kind),
      n_(n),
      stride_(CoprimeStride(n)),
      // Unused samplers get harmless parameters.
      zipfian_(n, kind == DistributionKind::kZipfian ? skew : 1),
      self_similar_(n, kind == DistributionKind::kSelfSimilar ? skew : 0.2) {}

std::string_view KeyDistribution::ValidateSkew(DistributionKind kind,
                                               double skew) {
  switch (kind) {
    case DistributionKind::kUniform:
      return {};
    case DistributionKind::kZipfian:
      return skew > 0 && skew <= 10 ? std::string_view()
                                    : "zipfian skew (theta) must be in (0, 10]";
    case DistributionKind::kSelfSimilar:
      return skew > 0 && skew <= 0.5
                 ? std::string_view()
                 : "self-similar skew (h) must be in (0, 0.5]";
  }
  return "unknown distribution";
}

}  // namespace plush::bench
