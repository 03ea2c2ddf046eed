// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool_location.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace plush::bench {
namespace {

std::string TempBase() {
  if (access("/dev/shm", W_OK) == 0) return "/dev/shm";
  const char* tmpdir = getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

}  // namespace

Status PoolLocation::Create(const std::string& requested, std::string_view leaf,
                            bool keep,
                            std::unique_ptr<PoolLocation>* location) {
  if (!requested.empty()) {
    location->reset(new PoolLocation(requested, {}));
    return Status::OK();
  }
  const std::string pattern = TempBase() + "/plush-bench-XXXXXX";
  std::vector<char> dir(pattern.begin(), pattern.end());
  dir.push_back('\0');
  if (mkdtemp(dir.data()) == nullptr) {
    return Status::IOError("cannot create a directory like " + pattern + ": " +
                           std::strerror(errno));
  }
  const std::string temp_dir(dir.data());
  location->reset(new PoolLocation(temp_dir + "/" + std::string(leaf),
                                   keep ? std::string() : temp_dir));
  return Status::OK();
}

PoolLocation::~PoolLocation() {
  if (temp_dir_.empty()) return;
  std::error_code ignored;  // best effort: nothing useful to do on failure
  std::filesystem::remove_all(temp_dir_, ignored);
}

}  // namespace plush::bench
