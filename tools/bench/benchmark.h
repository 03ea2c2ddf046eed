// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A whole run of plush-bench, in either of its modes.

#ifndef PLUSH_TOOLS_BENCH_BENCHMARK_H_
#define PLUSH_TOOLS_BENCH_BENCHMARK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "bench_config.h"
#include "phases.h"
#include "pool_location.h"
#include "run_control.h"
#include "run_result.h"

namespace plush::bench {

// Opens a fresh store, loads it, runs the operation mix, takes the figures
// and checks every record.
RunResult RunBenchmark(const BenchConfig& config);

// The pool location of a run (config.pool, or a temporary one), recorded
// in result->pool_path; null after reporting the error to `control`.
std::unique_ptr<PoolLocation> LocatePool(const BenchConfig& config,
                                         RunControl& control,
                                         RunResult* result);

// The end of every run: reads back every record (unless config.verify is
// off or the run stopped; `inserted` as for VerifyPhase), closes the engine
// and returns `result` with the run's outcome.
RunResult VerifyAndClose(const PhaseContext& context,
                         const std::vector<uint64_t>& inserted,
                         RunResult result);

// Recovery mode (config.recovery): a forked child loads a fresh store, runs
// the mix and is SIGKILLed config.kill_after seconds after its load; then
// this process times reopening the store and checks every loaded record.
RunResult RunRecoveryBenchmark(const BenchConfig& config);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_BENCHMARK_H_
