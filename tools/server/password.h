// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The password of --requirepass-file, and how AUTH compares against it.

#ifndef PLUSH_TOOLS_SERVER_PASSWORD_H_
#define PLUSH_TOOLS_SERVER_PASSWORD_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "plush/status.h"

namespace plush::server {

// Passwords are at most this long (the comparison always covers this many
// bytes).
inline constexpr size_t kMaxPasswordBytes = 512;

// Reads the password from the file at `path`: its content without one
// trailing newline. InvalidArgument if it is empty, too long or holds a
// line break; IOError if it cannot be read.
Status ReadPasswordFile(const std::string& path, std::string* password);

// True iff `given` equals `password`, in a time that depends on neither
// (only on kMaxPasswordBytes): the comparison does not tell an attacker
// how many leading bytes were right.
bool PasswordMatches(std::string_view given, std::string_view password);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_PASSWORD_H_
