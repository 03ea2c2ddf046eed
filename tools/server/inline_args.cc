// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "inline_args.h"

#include <cstddef>

namespace plush::server {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
         c == '\f';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// Appends the double-quoted text starting after the '"' at line[*i] to
// *arg; leaves *i after the closing quote. False if it is unterminated.
bool ReadDoubleQuoted(std::string_view line, size_t* i, std::string* arg) {
  size_t p = *i;
  while (p < line.size()) {
    const char c = line[p];
    if (c == '"') {
      *i = p + 1;
      return true;
    }
    if (c == '\\' && p + 3 < line.size() && line[p + 1] == 'x' &&
        HexValue(line[p + 2]) >= 0 && HexValue(line[p + 3]) >= 0) {
      arg->push_back(static_cast<char>(HexValue(line[p + 2]) * 16 +
                                       HexValue(line[p + 3])));
      p += 4;
    } else if (c == '\\' && p + 1 < line.size()) {
      arg->push_back(Unescape(line[p + 1]));
      p += 2;
    } else {
      arg->push_back(c);
      ++p;
    }
  }
  return false;
}

// As ReadDoubleQuoted, for single quotes: only \' is an escape.
bool ReadSingleQuoted(std::string_view line, size_t* i, std::string* arg) {
  size_t p = *i;
  while (p < line.size()) {
    const char c = line[p];
    if (c == '\'') {
      *i = p + 1;
      return true;
    }
    if (c == '\\' && p + 1 < line.size() && line[p + 1] == '\'') {
      arg->push_back('\'');
      p += 2;
    } else {
      arg->push_back(c);
      ++p;
    }
  }
  return false;
}

}  // namespace

bool SplitInlineArgs(std::string_view line, std::vector<std::string>* args) {
  args->clear();
  size_t i = 0;
  for (;;) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i == line.size()) return true;
    std::string& arg = args->emplace_back();
    while (i < line.size() && !IsSpace(line[i])) {
      const char c = line[i++];
      if (c != '"' && c != '\'') {
        arg.push_back(c);
        continue;
      }
      const bool closed = c == '"' ? ReadDoubleQuoted(line, &i, &arg)
                                   : ReadSingleQuoted(line, &i, &arg);
      if (!closed) return false;
      // A closing quote ends the argument.
      if (i < line.size() && !IsSpace(line[i])) return false;
    }
  }
}

}  // namespace plush::server
