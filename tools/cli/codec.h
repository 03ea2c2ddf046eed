// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// How keys and values are spelled on the command line, in input files and in
// output: as they are (text), or as hex or base64 for binary data. One
// encoding applies to both input and output, so that what `plush dump
// --hex` prints, `plush load --hex` reads back.

#ifndef PLUSH_TOOLS_CLI_CODEC_H_
#define PLUSH_TOOLS_CLI_CODEC_H_

#include <string>
#include <string_view>

#include "plush/status.h"

namespace plush::cli {

enum class Encoding { kText, kHex, kBase64 };

// Decodes `in` into raw bytes in *out. Returns InvalidArgument on malformed
// hex (odd length, non-hex digit) or base64 (bad character or length;
// padding is optional).
Status Decode(Encoding encoding, std::string_view in, std::string* out);

// Encodes raw bytes: lower-case hex, or padded standard base64.
std::string Encode(Encoding encoding, std::string_view raw);

// "text", "hex" or "base64", as a dump's first line names its encoding.
std::string_view EncodingName(Encoding encoding);
// The encoding of such a name; false for another name.
bool EncodingFromName(std::string_view name, Encoding* encoding);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_CODEC_H_
