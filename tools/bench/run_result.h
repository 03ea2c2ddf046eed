// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The figures a run measured, as reported by report.h.

#ifndef PLUSH_TOOLS_BENCH_RUN_RESULT_H_
#define PLUSH_TOOLS_BENCH_RUN_RESULT_H_

#include <cstdint>
#include <string>

#include "histogram.h"
#include "run_control.h"

namespace plush::bench {

struct RunResult {
  Outcome outcome = Outcome::kOk;
  std::string error;  // set unless kOk

  std::string backend;    // EngineStats::backend
  std::string pool_path;  // where the engine kept its data

  double load_seconds = 0;
  // Run phase (recovery mode: none).
  uint64_t operations = 0;
  double seconds = 0;
  Histogram latency;
  double checkpoint_seconds = 0;  // 0 unless BenchConfig::checkpoint_threads
  // --iterate: records the iteration returned, and its time.
  uint64_t iterate_records = 0;
  double iterate_seconds = 0;
  // --backup: the time of the backup and the size of its file.
  double backup_seconds = 0;
  uint64_t backup_bytes = 0;

  // Memory and persistence, measured after the run phase.
  uint64_t dram_bytes = 0;
  bool dram_from_engine = false;  // else dram_bytes is rss_delta_bytes
  int64_t rss_delta_bytes = 0;
  uint64_t pool_bytes = 0;
  double persist_per_op = 0;
  double flushed_lines_per_op = 0;
  double media_write_amp = 0;

  // Recovery mode: reopening timed by the driver, and by the engine itself.
  double recovery_seconds = 0;
  double engine_recovery_seconds = 0;
  uint64_t recovered_log_entries = 0;

  uint64_t verified_records = 0;
};

// Returns `result` with the outcome `control` recorded.
inline RunResult Finish(const RunControl& control, RunResult result) {
  result.outcome = control.outcome();
  result.error = control.message();
  return result;
}

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_RUN_RESULT_H_
