// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush-bench: a PiBench-style driver that runs one workload against one
// engine (plush, rocksdb, rocksdb-sync or dram) and reports what it measured.
// See docs/benchmarking-tool.md.

#include <cstdio>
#include <iostream>

#include "benchmark.h"
#include "cli.h"
#include "report.h"
#include "run_control.h"

namespace {

// Exit codes: 0 the run completed and its checks passed; 1 it failed (engine
// error or failed check); 2 bad command line; 3 the engine does not support
// the workload (e.g. a record size), which suites record and skip.
int ExitCode(plush::bench::Outcome outcome) {
  switch (outcome) {
    case plush::bench::Outcome::kOk:
      return 0;
    case plush::bench::Outcome::kFailed:
      return 1;
    case plush::bench::Outcome::kUnsupported:
      return 3;
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  plush::bench::BenchConfig config;
  if (auto exit_code = plush::bench::ParseCommandLine(argc, argv, &config)) {
    return *exit_code;
  }
  plush::bench::StopOnSignals();
  const plush::bench::RunResult result =
      config.recovery ? plush::bench::RunRecoveryBenchmark(config)
                      : plush::bench::RunBenchmark(config);
  if (config.json) {
    std::cout << plush::bench::ToJson(config, result) << std::endl;
  } else {
    plush::bench::PrintTable(config, result, std::cout);
  }
  if (result.outcome != plush::bench::Outcome::kOk) {
    std::cerr << "plush-bench: " << plush::bench::OutcomeName(result.outcome)
              << ": " << result.error << "\n";
  }
  return ExitCode(result.outcome);
}
