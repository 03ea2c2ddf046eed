// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "redis_integer.h"

#include <limits>

namespace plush::server {
namespace {

// The magnitude spelled by `digits` (no sign), or nullopt if it is not a
// canonical decimal number or exceeds `max`.
std::optional<uint64_t> ParseMagnitude(std::string_view digits, uint64_t max) {
  if (digits.empty()) return std::nullopt;
  if (digits == "0") return 0;
  if (digits[0] < '1' || digits[0] > '9') return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

std::optional<int64_t> ParseInteger(std::string_view text) {
  constexpr uint64_t kMaxPositive = std::numeric_limits<int64_t>::max();
  if (!text.empty() && text[0] == '-') {
    std::optional<uint64_t> magnitude =
        ParseMagnitude(text.substr(1), kMaxPositive + 1);
    if (!magnitude || *magnitude == 0) return std::nullopt;  // "-0"
    // -(2^63) has no positive counterpart: negate in unsigned arithmetic.
    return static_cast<int64_t>(~*magnitude + 1);
  }
  std::optional<uint64_t> magnitude = ParseMagnitude(text, kMaxPositive);
  if (!magnitude) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  return ParseMagnitude(text, std::numeric_limits<uint64_t>::max());
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

}  // namespace plush::server
