// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_object.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace plush::bench {

JsonObject& JsonObject::String(std::string_view name, std::string_view value) {
  Name(name);
  Quoted(value);
  return *this;
}

JsonObject& JsonObject::Unsigned(std::string_view name, uint64_t value) {
  Name(name);
  members_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Signed(std::string_view name, int64_t value) {
  Name(name);
  members_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Double(std::string_view name, double value) {
  Name(name);
  if (!std::isfinite(value)) {
    members_ += "null";
    return *this;
  }
  // The shortest text that reads back as the same double.
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  members_.append(buffer, result.ptr);
  return *this;
}

JsonObject& JsonObject::Bool(std::string_view name, bool value) {
  Name(name);
  members_ += value ? "true" : "false";
  return *this;
}

void JsonObject::Name(std::string_view name) {
  if (!members_.empty()) members_ += ",";
  Quoted(name);
  members_ += ":";
}

void JsonObject::Quoted(std::string_view text) {
  members_ += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        members_ += "\\\"";
        break;
      case '\\':
        members_ += "\\\\";
        break;
      case '\n':
        members_ += "\\n";
        break;
      case '\t':
        members_ += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          members_ += escaped;
        } else {
          members_ += c;
        }
    }
  }
  members_ += '"';
}

}  // namespace plush::bench
