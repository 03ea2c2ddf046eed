// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Splits an inline command (a line typed into telnet or nc: "SET k v")
// into its arguments, with the quoting rules of Redis's sdssplitargs:
//   * arguments are separated by whitespace (space, \t, \r, \n, \v, \f);
//   * "double quotes" take the escapes \n \r \t \b \a \xHH (two hex
//     digits) and \<any byte> for that byte;
//   * 'single quotes' take \' for a quote, every other byte as it is;
//   * a quote may open in the middle of an argument (a"b c" is "ab c"),
//     but a closing quote must be followed by whitespace or the end.
// Unlike sdssplitargs, a NUL byte is an ordinary byte.

#ifndef PLUSH_TOOLS_SERVER_INLINE_ARGS_H_
#define PLUSH_TOOLS_SERVER_INLINE_ARGS_H_

#include <string>
#include <string_view>
#include <vector>

namespace plush::server {

// Replaces *args with the arguments of `line` (without its line end).
// Returns false, leaving *args unspecified, if a quote is unbalanced or a
// closing quote is followed by something other than whitespace.
bool SplitInlineArgs(std::string_view line, std::vector<std::string>* args);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_INLINE_ARGS_H_
