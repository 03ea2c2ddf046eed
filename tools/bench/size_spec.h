// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Key and value sizes: fixed ("8") or normally distributed
// ("normal:MEAN,STDDEV"). A record's size is a pure function of its record
// number, so any thread can regenerate any record (to look it up, or to
// check the value it read) without storing sizes.

#ifndef PLUSH_TOOLS_BENCH_SIZE_SPEC_H_
#define PLUSH_TOOLS_BENCH_SIZE_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace plush::bench {

class SizeSpec {
 public:
  SizeSpec() = default;
  static SizeSpec Fixed(size_t size);
  // Samples are rounded and clamped to [min, max]; stddev 0 means Fixed.
  static SizeSpec Normal(double mean, double stddev, size_t min, size_t max);

  // Parses "SIZE" or "normal:MEAN,STDDEV". On failure returns false and sets
  // *error. Sizes (and normal samples) are limited to [min, max].
  static bool Parse(std::string_view text, size_t min, size_t max,
                    SizeSpec* spec, std::string* error);

  // The size of the record whose (already mixed) record hash is `hash`.
  size_t SizeOf(uint64_t hash) const;

  bool fixed() const { return stddev_ == 0; }
  double mean() const { return mean_; }
  double stddev() const { return stddev_; }
  size_t max() const { return max_; }
  // "8" or "normal:16,3.2", as accepted by Parse().
  std::string ToString() const;

 private:
  double mean_ = 8;
  double stddev_ = 0;
  size_t min_ = 8;
  size_t max_ = 8;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_SIZE_SPEC_H_
