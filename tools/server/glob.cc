// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "glob.h"

#include <cstddef>
#include <utility>

namespace plush::server {
namespace {

// Matches `c` against the bracket set starting just after the '[' at
// pattern[*p]; leaves *p after the closing ']' (or at the end).
bool MatchBracket(std::string_view pattern, size_t* p, unsigned char c) {
  size_t i = *p;
  bool negate = i < pattern.size() && pattern[i] == '^';
  if (negate) ++i;
  bool matched = false;
  while (i < pattern.size() && pattern[i] != ']') {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      matched |= static_cast<unsigned char>(pattern[i + 1]) == c;
      i += 2;
    } else if (i + 2 < pattern.size() && pattern[i + 1] == '-' &&
               pattern[i + 2] != ']') {
      auto lo = static_cast<unsigned char>(pattern[i]);
      auto hi = static_cast<unsigned char>(pattern[i + 2]);
      if (lo > hi) std::swap(lo, hi);
      matched |= lo <= c && c <= hi;
      i += 3;
    } else {
      matched |= static_cast<unsigned char>(pattern[i]) == c;
      ++i;
    }
  }
  *p = i < pattern.size() ? i + 1 : i;  // past the ']'
  return matched != negate;
}

// Matches one pattern element (not '*') at pattern[*p] against `c`;
// advances *p past the element.
bool MatchOne(std::string_view pattern, size_t* p, unsigned char c) {
  const char token = pattern[*p];
  ++*p;
  switch (token) {
    case '?':
      return true;
    case '[':
      return MatchBracket(pattern, p, c);
    case '\\':
      if (*p < pattern.size()) {
        return static_cast<unsigned char>(pattern[(*p)++]) == c;
      }
      return c == '\\';  // a trailing backslash stands for itself
    default:
      return static_cast<unsigned char>(token) == c;
  }
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  // Where to resume after a mismatch: just after the most recent '*', with
  // that '*' swallowing one more byte of text. Earlier stars never need to
  // be revisited: the latest one can absorb whatever they would have.
  size_t star_p = std::string_view::npos;
  size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*') ++p;
      star_p = p;
      star_t = t;
      continue;
    }
    size_t next_p = p;
    if (p < pattern.size() &&
        MatchOne(pattern, &next_p, static_cast<unsigned char>(text[t]))) {
      p = next_p;
      ++t;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace plush::server
