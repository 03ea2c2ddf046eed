// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "engine_figures.h"

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

Status RecordEngineFigures(Engine& engine, const EngineStats& before,
                           uint64_t operations, uint64_t rss_baseline,
                           RunResult* result) {
  EngineStats after;
  Status status = engine.GetStats(&after);
  if (!status.ok()) return status;
  result->backend = after.backend;
  result->rss_delta_bytes = static_cast<int64_t>(ResidentAnonymousBytes()) -
                            static_cast<int64_t>(rss_baseline);
  result->dram_from_engine = after.dram_bytes.has_value();
  result->dram_bytes = after.dram_bytes.value_or(
      result->rss_delta_bytes > 0
          ? static_cast<uint64_t>(result->rss_delta_bytes)
          : 0);
  result->pool_bytes = after.pool_bytes;
  if (operations > 0) {
    const double ops = static_cast<double>(operations);
    result->persist_per_op =
        static_cast<double>(after.persist_calls - before.persist_calls) / ops;
    result->flushed_lines_per_op =
        static_cast<double>(after.flushed_lines - before.flushed_lines) / ops;
  }
  result->media_write_amp = after.media_write_amp;
  result->engine_recovery_seconds = after.recovery_seconds;
  result->recovered_log_entries = after.recovered_log_entries;
  return Status::OK();
}

}  // namespace plush::bench
