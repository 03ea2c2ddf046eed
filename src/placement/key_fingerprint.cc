// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/key_fingerprint.h"

#include <algorithm>
#include <array>

#include "util/key_prefix.h"

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

uint64_t Of(std::string_view key, std::string_view lower) {
  const size_t depth = std::min(SharedPrefixLength(key, lower), kMaxDepth);
  return (uint64_t{depth} << kBits | BitsAt(key, depth)) << kShift;
}

bool Fits(uint64_t word, std::string_view key, std::string_view lower) {
  const size_t depth = word >> (kShift + kBits);
  const uint32_t bits = (word >> kShift) & ((1u << kBits) - 1);
  return depth <= std::min(SharedPrefixLength(key, lower), kMaxDepth) &&
         bits == BitsAt(key, depth);
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
  const size_t shared = SharedPrefixLength(lower, bound);
  for (size_t d = 0; d <= std::min(shared, kMaxDepth); ++d)
    (*bits)[d] = BitsAt(bound, d);
  return shared;
}

// A kept key's fingerprint tells that the key is at or above from[0, depth)
// followed by the fingerprint bits (a Filter keeps only keys that share
// their first `depth` bytes with `from`): the least key it may be. The
// first of those bounds above the count-th smallest (ranked by an 8-byte
// window of them, from the smallest depth on) is C.
std::optional<std::string> BatchEnd(std::string_view from,
                                    const std::vector<uint64_t>& words,
                                    size_t count) {
  if (count >= words.size()) return std::nullopt;
  auto depth_of = [](uint64_t word) {
    return static_cast<size_t>(word >> (kShift + kBits));
  };
  auto bits_of = [](uint64_t word) {
    return static_cast<uint32_t>(word >> kShift) & ((1u << kBits) - 1);
  };
  size_t base = kMaxDepth;
  for (const uint64_t word : words) base = std::min(base, depth_of(word));
  // The window of from[base, depth) for each depth, big-endian.
  std::array<uint64_t, kMaxDepth + 1> prefix{};
  uint64_t from_window = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = base + i;
    const uint64_t byte =
        at < from.size() ? static_cast<unsigned char>(from[at]) : 0;
    from_window |= byte << (56 - 8 * i);
  }
  for (size_t d = base; d <= kMaxDepth; ++d) {
    const size_t bytes = d - base;
    prefix[d] = bytes >= 8 ? from_window
                           : from_window & ~(~uint64_t{0} >> (8 * bytes));
  }
  struct Ranked {
    uint64_t window;
    uint64_t word;
  };
  thread_local std::vector<Ranked> ranked;
  ranked.resize(words.size());
  // Keys that may lie below `from` (their bound is not above it) do not
  // count; and C is the first bound above the count-th, so that at least
  // `count` keys lie below it however many share the count-th bound.
  for (size_t i = 0; i < words.size(); ++i) {
    const size_t d = depth_of(words[i]);
    // The fingerprint bits as the top of 3 bytes at byte d - base.
    const uint64_t bits = uint64_t{bits_of(words[i])} << (24 - kBits);
    const int shift = 40 - 8 * static_cast<int>(d - base);
    const uint64_t placed = shift >= 0    ? bits << shift
                            : shift > -24 ? bits >> -shift
                                          : 0;
    ranked[i] = {prefix[d] | placed, words[i]};
    count += ranked[i].window <= from_window;
  }
  if (count >= ranked.size()) return std::nullopt;
  auto by_window = [](const Ranked& a, const Ranked& b) {
    return a.window < b.window;
  };
  const auto nth = ranked.begin() + static_cast<ptrdiff_t>(count);
  std::nth_element(ranked.begin(), nth, ranked.end(), by_window);
  const Ranked* next = nullptr;
  for (auto it = nth + 1; it != ranked.end(); ++it) {
    if (it->window > nth->window && (!next || it->window < next->window))
      next = &*it;
  }
  if (next == nullptr) return std::nullopt;
  const uint64_t word = next->word;
  const size_t d = depth_of(word);
  const uint32_t bits = bits_of(word) << (24 - kBits);
  std::string end(from.substr(0, d));  // (d <= from.size(): it was kept)
  for (int i = 2; i >= 0; --i) end += static_cast<char>(bits >> (8 * i));
  while (!end.empty() && end.back() == '\0') end.pop_back();
  if (end <= from) return std::nullopt;
  return end;
}

}  // namespace plush::fingerprint
