// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "password.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

namespace plush::server {

Status ReadPasswordFile(const std::string& path, std::string* password) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) return Status::IOError("cannot read the password file " + path);
  std::string text = content.str();
  if (text.ends_with("\r\n")) {
    text.resize(text.size() - 2);
  } else if (text.ends_with('\n')) {
    text.pop_back();
  }
  if (text.empty()) {
    return Status::InvalidArgument("the password file " + path + " is empty");
  }
  if (text.size() > kMaxPasswordBytes) {
    return Status::InvalidArgument("the password in " + path + " exceeds " +
                                   std::to_string(kMaxPasswordBytes) +
                                   " bytes");
  }
  if (text.find_first_of("\r\n") != std::string::npos) {
    return Status::InvalidArgument("the password in " + path +
                                   " spans several lines");
  }
  *password = std::move(text);
  return Status::OK();
}

bool PasswordMatches(std::string_view given, std::string_view password) {
  // The length of what a client sends is no secret.
  if (given.size() > kMaxPasswordBytes) return false;
  std::array<unsigned char, kMaxPasswordBytes> a{};
  std::array<unsigned char, kMaxPasswordBytes> b{};
  std::memcpy(a.data(), given.data(), given.size());
  std::memcpy(b.data(), password.data(),
              std::min(password.size(), kMaxPasswordBytes));
  // Every byte is compared, whatever the first difference.
  size_t difference = given.size() ^ password.size();
  for (size_t i = 0; i < kMaxPasswordBytes; ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

}  // namespace plush::server
