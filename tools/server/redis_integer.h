// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Integers as Redis reads them from strings (its string2ll): what INCR
// accepts as a stored value, what INCRBY accepts as an increment, what the
// protocol accepts as a length. Strict on purpose, so that every value has
// exactly one spelling and INCR's result reads back as the same integer:
// an optional '-', then digits without leading zeros ("0" alone is zero;
// "-0", "+1", "007", " 1" and "" are not integers).

#ifndef PLUSH_TOOLS_SERVER_REDIS_INTEGER_H_
#define PLUSH_TOOLS_SERVER_REDIS_INTEGER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace plush::server {

// The integer spelled by `text`, or nullopt if it is not one or does not
// fit in an int64_t.
std::optional<int64_t> ParseInteger(std::string_view text);

// ParseInteger for counts and cursors: nullopt also for negative numbers.
std::optional<uint64_t> ParseUnsigned(std::string_view text);

// a + b, or nullopt if the sum overflows an int64_t.
std::optional<int64_t> CheckedAdd(int64_t a, int64_t b);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REDIS_INTEGER_H_
