// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "memory_usage.h"

#include <fstream>
#include <string>

namespace plush::bench {

uint64_t ResidentAnonymousBytes() {
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    if (field == "RssAnon:") {
      uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 16, '\n');
  }
  return 0;
}

}  // namespace plush::bench
