// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Records as JSON lines, the format of `plush dump` and `plush load --format
// jsonl`: one object {"key": "...", "value": "..."} per line. JSON strings
// hold Unicode text, so binary keys and values travel hex- or
// base64-encoded (the CLI's --hex / --base64).

#ifndef PLUSH_TOOLS_CLI_JSON_RECORDS_H_
#define PLUSH_TOOLS_CLI_JSON_RECORDS_H_

#include <string>
#include <string_view>

#include "plush/status.h"

namespace plush::cli {

// Parses one line into the strings of its "key" and "value" members (other
// members are ignored). Returns InvalidArgument if the line is not such an
// object.
Status ParseJsonRecord(std::string_view line, std::string* key,
                       std::string* value);

// Formats a record as one JSON line without the newline. Returns
// InvalidArgument if `key` or `value` is not valid UTF-8.
Status FormatJsonRecord(std::string_view key, std::string_view value,
                        std::string* line);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_JSON_RECORDS_H_
