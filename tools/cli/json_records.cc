// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_records.h"

#include <nlohmann/json.hpp>

namespace plush::cli {
namespace {

// Copies the string member `name` of `object` into *out.
Status GetStringMember(const nlohmann::json& object, const char* name,
                       std::string* out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string()) {
    return Status::InvalidArgument(std::string("expected a string member \"") +
                                   name + "\"");
  }
  *out = it->get<std::string>();
  return Status::OK();
}

}  // namespace

Status ParseJsonRecord(std::string_view line, std::string* key,
                       std::string* value) {
  // No exceptions: a malformed line yields a "discarded" value instead.
  nlohmann::json object = nlohmann::json::parse(line, /*cb=*/nullptr,
                                                /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return Status::InvalidArgument(
        "expected a JSON object {\"key\": ..., \"value\": ...}");
  }
  Status s = GetStringMember(object, "key", key);
  if (s.ok()) s = GetStringMember(object, "value", value);
  return s;
}

Status FormatJsonRecord(std::string_view key, std::string_view value,
                        std::string* line) {
  nlohmann::ordered_json object = {{"key", key}, {"value", value}};
  try {
    // The strict handler throws on invalid UTF-8 rather than emitting
    // JSON that no parser would accept.
    *line = object.dump();
  } catch (const nlohmann::json::type_error&) {
    return Status::InvalidArgument(
        "a key or value is not valid UTF-8 text; use --hex or --base64");
  }
  return Status::OK();
}

}  // namespace plush::cli
