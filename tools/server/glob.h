// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The glob patterns of SCAN ... MATCH, KEYS and CONFIG GET, as Redis
// defines them:
//   *        any run of bytes, the empty one included
//   ?        any one byte
//   [abc]    one of the listed bytes; [a-z] a range (either order);
//            [^abc] any byte but those; \ inside brackets quotes a byte
//   \x       the byte x itself (e.g. \* or \?)
//   other    itself, compared byte for byte (keys are binary)
// An unclosed '[' takes the rest of the pattern as its set, as Redis does.
//
// Written here rather than taken from fnmatch(3) because keys are binary
// (fnmatch stops at a NUL byte) and Redis's bracket rules differ from
// POSIX's ("[^...]" and "[!...]", character classes, '/' handling).
// Matching takes O(pattern x key) time at most: a '*' never backtracks
// further than the most recent one (Redis's recursive matcher can take
// exponential time on patterns like "a*a*a*a*b").

#ifndef PLUSH_TOOLS_SERVER_GLOB_H_
#define PLUSH_TOOLS_SERVER_GLOB_H_

#include <string_view>

namespace plush::server {

// True iff `text` matches the glob `pattern`.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_GLOB_H_
