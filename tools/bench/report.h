// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The two forms of a run's report: one JSON object on one line (for
// scripts; docs/benchmarking-tool.md lists its fields) and a table (for
// people).

#ifndef PLUSH_TOOLS_BENCH_REPORT_H_
#define PLUSH_TOOLS_BENCH_REPORT_H_

#include <ostream>
#include <string>

#include "bench_config.h"
#include "run_result.h"

namespace plush::bench {

std::string ToJson(const BenchConfig& config, const RunResult& result);
void PrintTable(const BenchConfig& config, const RunResult& result,
                std::ostream& out);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_REPORT_H_
