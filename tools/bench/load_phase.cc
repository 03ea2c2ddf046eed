// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Writing the records, and the checkpoint that makes unlogged ones durable
// (with --unlogged, the two are plush's bulk load).

#include <chrono>
#include <string>

#include "display.h"
#include "phase_threads.h"
#include "phases.h"

namespace plush::bench {

double LoadPhase(const PhaseContext& context) {
  const BenchConfig& config = context.config;
  tools::ProgressCounters progress(config.threads);
  tools::ProgressDisplay display(context.progress, "load", "records", progress,
                                 tools::ProgressDisplay::Of(config.records));
  return RunOnThreads(config.threads, [&](unsigned thread) {
    const auto [begin, end] =
        ThreadSlice(config.records, config.threads, thread);
    RecordBuilder builder(context.keys);
    for (uint64_t record = begin; record < end; ++record) {
      if ((record - begin) % 256 == 0) {
        progress.Publish(thread, record - begin);
        if (context.control.stopped()) return;
      }
      const Status status =
          context.engine.Put(builder.Key(record), builder.Value(record));
      if (!status.ok()) {
        context.control.Fail(status,
                             "loading record " + std::to_string(record));
        return;
      }
    }
    progress.Publish(thread, end - begin);
  });
}

double CheckpointPhase(const PhaseContext& context) {
  const auto start = std::chrono::steady_clock::now();
  const Status status =
      context.engine.Checkpoint(context.config.checkpoint_threads);
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  if (!status.ok()) context.control.Fail(status, "checkpointing");
  return elapsed.count();
}

}  // namespace plush::bench
