// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "redis_float.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace plush::server {

std::optional<long double> ParseFloat(std::string_view text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    return std::nullopt;
  }
  const std::string terminated(text);  // strtold reads up to a NUL
  char* end = nullptr;
  errno = 0;
  const long double value = std::strtold(terminated.c_str(), &end);
  const bool out_of_range =
      errno == ERANGE && (std::isinf(value) || value == 0.0L);
  if (end != terminated.data() + terminated.size() || out_of_range ||
      std::isnan(value)) {
    return std::nullopt;
  }
  return value;
}

std::string FormatFloat(long double value) {
  const int length = std::snprintf(nullptr, 0, "%.17Lf", value);
  std::string text(static_cast<size_t>(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), "%.17Lf", value);
  text.resize(static_cast<size_t>(length));
  // "%.17Lf" always writes the point and 17 digits after it.
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

}  // namespace plush::server
