// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_records.h"

#include <nlohmann/json.hpp>

namespace plush::cli {
namespace {

constexpr int kDumpVersion = 1;
constexpr const char* kHeaderMember = "plush_dump";
constexpr const char* kEndMember = "plush_dump_end";
constexpr const char* kExpiryMember = "expires_at_ms";

// Parses a line without exceptions: a malformed line yields a "discarded"
// value, which is no object.
nlohmann::json ParseLine(std::string_view line) {
  return nlohmann::json::parse(line, /*cb=*/nullptr,
                               /*allow_exceptions=*/false);
}

// Decodes member `name` of `object`, or `name`_base64.
Status GetBytesMember(const nlohmann::json& object, const std::string& name,
                      Encoding encoding, std::string* out) {
  const std::string base64_name = name + "_base64";
  auto plain = object.find(name);
  auto base64 = object.find(base64_name);
  if (plain != object.end() && base64 != object.end()) {
    return Status::InvalidArgument("both \"" + name + "\" and \"" +
                                   base64_name + "\" are given");
  }
  if (base64 != object.end()) {
    encoding = Encoding::kBase64;
    plain = base64;
  }
  if (plain == object.end() || !plain->is_string()) {
    return Status::InvalidArgument("expected a string member \"" + name +
                                   "\" or \"" + base64_name + "\"");
  }
  return Decode(encoding, plain->get_ref<const std::string&>(), out)
      .WithContext(plain == base64 ? base64_name : name);
}

// Adds `bytes` to `object` as member `name` in `encoding`; as text if they
// are valid UTF-8, else as `name`_base64.
void AddBytesMember(nlohmann::ordered_json* object, const std::string& name,
                    Encoding encoding, std::string_view bytes) {
  if (encoding != Encoding::kText) {
    (*object)[name] = Encode(encoding, bytes);
    return;
  }
  nlohmann::json text = std::string(bytes);
  try {
    // The strict handler throws on invalid UTF-8 rather than emitting JSON
    // that no parser would accept: that is the test of whether the bytes
    // are text.
    (void)text.dump();
    (*object)[name] = std::move(text);
  } catch (const nlohmann::json::type_error&) {
    (*object)[name + "_base64"] = Encode(Encoding::kBase64, bytes);
  }
}

// The expiry member of `object` (0 if it has none).
Status GetExpiryMember(const nlohmann::json& object, uint64_t* expires_at_ms) {
  *expires_at_ms = 0;
  const auto expiry = object.find(kExpiryMember);
  if (expiry == object.end()) return Status::OK();
  if (!expiry->is_number_unsigned()) {
    return Status::InvalidArgument(
        std::string("\"") + kExpiryMember +
        "\" must be a whole number of Unix milliseconds, not " +
        expiry->dump());
  }
  *expires_at_ms = expiry->get<uint64_t>();
  return Status::OK();
}

}  // namespace

Status ParseJsonRecord(std::string_view line, Encoding encoding,
                       std::string* key, std::string* value,
                       uint64_t* expires_at_ms) {
  const nlohmann::json object = ParseLine(line);
  if (!object.is_object()) {
    return Status::InvalidArgument(
        "expected a JSON object {\"key\": ..., \"value\": ...}");
  }
  Status s = GetBytesMember(object, "key", encoding, key);
  if (s.ok()) s = GetBytesMember(object, "value", encoding, value);
  if (s.ok()) s = GetExpiryMember(object, expires_at_ms);
  return s;
}

std::string FormatJsonRecord(Encoding encoding, std::string_view key,
                             std::string_view value, uint64_t expires_at_ms) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  AddBytesMember(&object, "key", encoding, key);
  AddBytesMember(&object, "value", encoding, value);
  if (expires_at_ms != 0) object[kExpiryMember] = expires_at_ms;
  return object.dump();
}

bool IsJsonObject(std::string_view line) { return ParseLine(line).is_object(); }

std::string FormatDumpHeader(Encoding encoding) {
  nlohmann::ordered_json header = {
      {kHeaderMember,
       {{"version", kDumpVersion},
        {"encoding", std::string(EncodingName(encoding))}}}};
  return header.dump();
}

std::string FormatDumpEnd(uint64_t records) {
  nlohmann::ordered_json end = {{kEndMember, {{"records", records}}}};
  return end.dump();
}

Status ParseDumpHeader(std::string_view line, bool* is_header,
                       Encoding* encoding) {
  const nlohmann::json object = ParseLine(line);
  *is_header = object.is_object() && object.contains(kHeaderMember);
  if (!*is_header) return Status::OK();
  const nlohmann::json& header = object[kHeaderMember];
  const auto version = header.find("version");
  if (version == header.end() || *version != kDumpVersion) {
    return Status::InvalidArgument(
        "a dump of another version than " + std::to_string(kDumpVersion) +
        " (its first line: " + std::string(line) + ")");
  }
  const auto name = header.find("encoding");
  if (name == header.end() || !name->is_string() ||
      !EncodingFromName(name->get_ref<const std::string&>(), encoding)) {
    return Status::InvalidArgument("a dump of an unknown encoding (its first line: " +
                                   std::string(line) + ")");
  }
  return Status::OK();
}

Status ParseDumpEnd(std::string_view line, bool* is_end, uint64_t* records) {
  const nlohmann::json object = ParseLine(line);
  *is_end = object.is_object() && object.contains(kEndMember);
  if (!*is_end) return Status::OK();
  const auto count = object[kEndMember].find("records");
  if (count == object[kEndMember].end() || !count->is_number_unsigned()) {
    return Status::InvalidArgument("a malformed end line of a dump: " +
                                   std::string(line));
  }
  *records = count->get<uint64_t>();
  return Status::OK();
}

}  // namespace plush::cli
