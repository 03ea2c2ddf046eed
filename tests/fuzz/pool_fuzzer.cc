// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// libFuzzer entry point for the damaged-pool fuzz target
// (pool_fuzz_target.h). Built only with clang (PLUSH_BUILD_FUZZERS); run it
// with scripts/fuzz.sh. A contract violation aborts, so that libFuzzer
// saves the input as a crash artifact, like a sanitizer report does.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/pool_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string violation = plush::test::RunPoolFuzzInput(data, size);
  if (!violation.empty()) {
    std::fprintf(stderr, "damaged-pool contract violated: %s\n",
                 violation.c_str());
    std::abort();
  }
  return 0;
}
