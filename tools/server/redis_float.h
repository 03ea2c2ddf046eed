// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Floats as Redis reads and writes them for INCRBYFLOAT. Redis computes in
// long double (80-bit on x86-64) and writes the result in fixed notation
// with 17 digits after the point, trailing zeros removed: so 10.5 + 0.1
// reads back as "10.6", which a double and its shortest spelling would
// also give, but 10.6 + 5000 as "5010.60000000000000009", which only the
// same arithmetic and format give. Both are kept here so that the same
// commands give the same strings as Redis on the same platform.

#ifndef PLUSH_TOOLS_SERVER_REDIS_FLOAT_H_
#define PLUSH_TOOLS_SERVER_REDIS_FLOAT_H_

#include <optional>
#include <string>
#include <string_view>

namespace plush::server {

// The number spelled by `text` as strtold(3) reads it in the C locale
// (decimal or hexadecimal, an exponent, "inf"), or nullopt: for an empty
// text, leading white space, anything after the number, a NaN, or a
// magnitude that overflows or underflows to zero.
std::optional<long double> ParseFloat(std::string_view text);

// `value` in fixed notation with at most 17 digits after the point, no
// trailing zeros, no point for an integer, "0" for minus zero.
// REQUIRES: `value` is finite.
std::string FormatFloat(long double value);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REDIS_FLOAT_H_
