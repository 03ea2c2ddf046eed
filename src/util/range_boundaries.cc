// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/range_boundaries.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace plush {

RangeBoundaries RangeBoundaries::FromSample(std::vector<std::string> sample,
                                            unsigned bits) {
  std::sort(sample.begin(), sample.end());
  const uint64_t units = uint64_t{1} << bits;
  std::vector<std::string> keys;
  keys.reserve(units - 1);
  for (uint64_t i = 1; i < units; ++i)
    keys.push_back(sample[i * sample.size() / units]);
  return RangeBoundaries(std::move(keys));
}

RangeBoundaries::RangeBoundaries(std::vector<std::string> keys)
    : keys_(std::move(keys)) {
  prefixes_.reserve(keys_.size());
  for (const std::string& k : keys_) prefixes_.push_back(PrefixOf(k));
}

RangeBoundaries::Prefix RangeBoundaries::PrefixOf(std::string_view key) {
  unsigned char bytes[16] = {};
  if (!key.empty())  // (no memcpy from the null data() of an empty key)
    std::memcpy(bytes, key.data(), std::min<size_t>(key.size(), 16));
  uint64_t high, low;
  std::memcpy(&high, bytes, 8);
  std::memcpy(&low, bytes + 8, 8);
  return {__builtin_bswap64(high), __builtin_bswap64(low)};
}

uint64_t RangeBoundaries::UnitOf(std::string_view key) const {
  const Prefix p = PrefixOf(key);
  auto first = std::lower_bound(prefixes_.begin(), prefixes_.end(), p);
  if (first == prefixes_.end() || *first != p)
    return static_cast<uint64_t>(first - prefixes_.begin());
  // Boundaries that share the key's prefix: compare whole keys.
  const auto last = std::upper_bound(first, prefixes_.end(), p);
  const auto begin = keys_.begin() + (first - prefixes_.begin());
  const auto end = keys_.begin() + (last - prefixes_.begin());
  return static_cast<uint64_t>(
      std::upper_bound(begin, end, key,
                       [](std::string_view k, const std::string& b) {
                         return k < std::string_view(b);
                       }) -
      keys_.begin());
}

}  // namespace plush
