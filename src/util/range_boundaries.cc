// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/range_boundaries.h"

#include <algorithm>
#include <cstddef>
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
  // An in-order walk of the tree visits its nodes in sorted order.
  tree_.resize(keys_.size() + 1);
  rank_.resize(keys_.size() + 1);
  uint32_t next = 0;
  std::vector<size_t> path;
  for (size_t k = 1; k < tree_.size() || !path.empty();) {
    if (k < tree_.size()) {
      path.push_back(k);
      k = 2 * k;
    } else {
      k = path.back();
      path.pop_back();
      tree_[k] = prefixes_[next];
      rank_[k] = next++;
      k = 2 * k + 1;
    }
  }
}

size_t RangeBoundaries::CountBelow(const Prefix& p, bool* equal) const {
  const size_t n = tree_.size() - 1;
  size_t k = 1;
  while (k <= n) {
    __builtin_prefetch(tree_.data() + std::min(4 * k, n));
    const Prefix& node = tree_[k];
    const bool below =
        (node.high < p.high) | ((node.high == p.high) & (node.low < p.low));
    k = 2 * k + below;
  }
  // Undo the right turns taken after the last left turn: the node left
  // there is the first one at or above p (k = 0: none is).
  k >>= __builtin_ffsll(static_cast<long long>(~k));
  *equal = k != 0 && tree_[k] == p;
  return k == 0 ? n : rank_[k];
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
  bool equal = false;
  const size_t below = CountBelow(p, &equal);
  if (!equal) return below;
  const auto first = prefixes_.begin() + static_cast<ptrdiff_t>(below);
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
