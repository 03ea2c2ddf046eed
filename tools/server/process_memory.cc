// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "process_memory.h"

#include <fstream>
#include <limits>
#include <optional>
#include <string>

namespace plush::server {

Status ReadProcessMemory(ProcessMemory* memory) {
  constexpr const char* kPath = "/proc/self/status";
  std::ifstream status(kPath);
  std::optional<uint64_t> anonymous, resident;
  std::string name;
  uint64_t kib = 0;
  std::string unit;
  // Lines such as "VmRSS:\t  12345 kB"; the others are skipped whole.
  while (status >> name) {
    if (name == "RssAnon:" || name == "VmRSS:") {
      if (!(status >> kib >> unit) || unit != "kB") break;
      (name == "RssAnon:" ? anonymous : resident) = kib * 1024;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  if (!anonymous || !resident) {
    return Status::IOError(std::string(kPath) +
                           " does not give RssAnon and VmRSS in kB");
  }
  memory->anonymous_bytes = *anonymous;
  memory->resident_bytes = *resident;
  return Status::OK();
}

}  // namespace plush::server
