// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Records as JSON lines, the format of `plush dump` and `plush load --format
// jsonl`: one object {"key": "...", "value": "..."} per line. JSON strings
// hold Unicode text, so a key or value that is not valid UTF-8 travels
// base64-encoded in a member named "key_base64" or "value_base64" instead:
// every byte string round-trips, and text stays readable. With the CLI's
// --hex or --base64, "key" and "value" hold every record in that encoding.
// A record that expires has a member "expires_at_ms": its expiry in Unix
// milliseconds (WriteOptions::expires_at_ms; absent or 0: never).
//
// A dump is framed by a first line {"plush_dump": {"version": 1,
// "encoding": ...}} and a last line {"plush_dump_end": {"records": N}}, so
// that a reader can tell a whole dump from one cut short (a failed `plush
// dump` upstream of a pipe). "expires_at_ms" left the version at 1: readers
// ignore members they do not know, so an older `plush load` reads every
// key and value right and only drops the expiry.

#ifndef PLUSH_TOOLS_CLI_JSON_RECORDS_H_
#define PLUSH_TOOLS_CLI_JSON_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "codec.h"
#include "plush/status.h"

namespace plush::cli {

// Parses one line into the bytes of its key and value: "key" decoded with
// `encoding`, or "key_base64" decoded from base64 (likewise the value),
// and its *expires_at_ms (0 without one); other members are ignored.
// Returns InvalidArgument if the line is not such an object.
Status ParseJsonRecord(std::string_view line, Encoding encoding,
                       std::string* key, std::string* value,
                       uint64_t* expires_at_ms);

// Formats a record as one JSON line without the newline: see above.
std::string FormatJsonRecord(Encoding encoding, std::string_view key,
                             std::string_view value, uint64_t expires_at_ms);

// Whether `line` parses as a JSON object (how `plush load` tells JSON lines
// from key<TAB>value lines).
bool IsJsonObject(std::string_view line);

// The first and last lines of a dump.
std::string FormatDumpHeader(Encoding encoding);
std::string FormatDumpEnd(uint64_t records);

// If `line` is a dump's first line, sets *is_header and the dump's
// *encoding; InvalidArgument if it is one of an unknown version or
// encoding.
Status ParseDumpHeader(std::string_view line, bool* is_header,
                       Encoding* encoding);

// If `line` is a dump's last line, sets *is_end and the number of records
// the dump holds; InvalidArgument if it is a malformed one.
Status ParseDumpEnd(std::string_view line, bool* is_end, uint64_t* records);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_JSON_RECORDS_H_
