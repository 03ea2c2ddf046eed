// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "size_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>

namespace plush::bench {
namespace {

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

SizeSpec SizeSpec::Fixed(size_t size) {
  SizeSpec spec;
  spec.mean_ = static_cast<double>(size);
  spec.min_ = spec.max_ = size;
  return spec;
}

SizeSpec SizeSpec::Normal(double mean, double stddev, size_t min, size_t max) {
  if (stddev == 0) return Fixed(static_cast<size_t>(std::round(mean)));
  SizeSpec spec;
  spec.mean_ = mean;
  spec.stddev_ = stddev;
  spec.min_ = min;
  spec.max_ = max;
  return spec;
}

bool SizeSpec::Parse(std::string_view text, size_t min, size_t max,
                     SizeSpec* spec, std::string* error) {
  constexpr std::string_view kNormal = "normal:";
  std::ostringstream range;
  range << "[" << min << ", " << max << "]";
  if (text.starts_with(kNormal)) {
    text.remove_prefix(kNormal.size());
    const size_t comma = text.find(',');
    double mean = 0;
    double stddev = 0;
    if (comma == std::string_view::npos ||
        !ParseNumber(text.substr(0, comma), &mean) ||
        !ParseNumber(text.substr(comma + 1), &stddev) || stddev < 0) {
      *error = "expected normal:MEAN,STDDEV with STDDEV >= 0";
      return false;
    }
    if (mean < static_cast<double>(min) || mean > static_cast<double>(max)) {
      *error = "mean size must be in " + range.str();
      return false;
    }
    *spec = Normal(mean, stddev, min, max);
    return true;
  }
  size_t size = 0;
  if (!ParseNumber(text, &size)) {
    *error = "expected a size in bytes or normal:MEAN,STDDEV";
    return false;
  }
  if (size < min || size > max) {
    *error = "size must be in " + range.str();
    return false;
  }
  *spec = Fixed(size);
  return true;
}

size_t SizeSpec::SizeOf(uint64_t hash) const {
  if (fixed()) return min_;
  // Box-Muller on two independent 32-bit uniforms taken from the hash; the
  // +0.5 keeps u1 away from 0, where log() diverges.
  const double u1 = (static_cast<double>(hash >> 32) + 0.5) * 0x1.0p-32;
  const double u2 = (static_cast<double>(hash & 0xffffffffu) + 0.5) * 0x1.0p-32;
  const double z =
      std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  const double size = std::round(mean_ + stddev_ * z);
  return static_cast<size_t>(
      std::clamp(size, static_cast<double>(min_), static_cast<double>(max_)));
}

std::string SizeSpec::ToString() const {
  std::ostringstream out;
  if (fixed()) {
    out << min_;
  } else {
    out << "normal:" << mean_ << "," << stddev_;
  }
  return out.str();
}

}  // namespace plush::bench
