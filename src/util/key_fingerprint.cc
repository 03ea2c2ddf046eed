// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/key_fingerprint.h"

#include <algorithm>

namespace plush::fingerprint {
namespace {

// The 18 bits of `key` after its first `depth` bytes, zeros past its end.
uint32_t BitsAt(std::string_view key, size_t depth) {
  uint32_t bytes = 0;
  for (size_t i = 0; i < 3; ++i) {
    const size_t at = depth + i;
    const uint32_t byte =
        at < key.size() ? static_cast<unsigned char>(key[at]) : 0;
    bytes = bytes << 8 | byte;
  }
  return bytes >> (24 - kBits);
}

}  // namespace

size_t CommonPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(
      std::mismatch(a.begin(), a.begin() + static_cast<ptrdiff_t>(n),
                    b.begin())
          .first -
      a.begin());
}

uint64_t Of(std::string_view key, std::string_view lower) {
  const size_t depth = std::min(CommonPrefixLength(key, lower), kMaxDepth);
  return (uint64_t{depth} << kBits | BitsAt(key, depth)) << kShift;
}

Filter::Filter(std::string_view lower, std::string_view from,
               const std::optional<std::string_view>& upper) {
  from_shared_ = BitsAfter(lower, from, &from_bits_);
  if (upper) {
    upper_shared_ = BitsAfter(lower, *upper, &upper_bits_);
  } else {
    upper_shared_ = kMaxDepth;
    upper_bits_.fill((1u << kBits) - 1);
  }
}

size_t Filter::BitsAfter(std::string_view lower, std::string_view bound,
                         std::array<uint32_t, kMaxDepth + 1>* bits) {
  const size_t shared = CommonPrefixLength(lower, bound);
  for (size_t d = 0; d <= std::min(shared, kMaxDepth); ++d)
    (*bits)[d] = BitsAt(bound, d);
  return shared;
}

}  // namespace plush::fingerprint
