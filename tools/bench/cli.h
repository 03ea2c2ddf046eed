// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush-bench's command line (CLI11). docs/benchmarking-tool.md describes
// every flag.

#ifndef PLUSH_TOOLS_BENCH_CLI_H_
#define PLUSH_TOOLS_BENCH_CLI_H_

#include <optional>

#include "bench_config.h"

namespace plush::bench {

// Exit code for a command line that cannot be run.
inline constexpr int kUsageExitCode = 2;

// Fills *config from the arguments. Returns nothing if the benchmark should
// run, or the exit code to end with after --help (0) or a usage error (the
// message is already printed).
std::optional<int> ParseCommandLine(int argc, const char* const* argv,
                                    BenchConfig* config);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_CLI_H_
