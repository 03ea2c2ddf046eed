// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include <atomic>
#include <string>

#include "display.h"
#include "phase_threads.h"
#include "phases.h"

namespace plush::bench {

bool CheckRead(const PhaseContext& context, RecordBuilder& builder,
               uint64_t record, const Status& status, std::string_view value) {
  if (status.ok()) {
    if (builder.ValueMatches(record, value)) return true;
    context.control.FailCheck(DescribeRecord(record, builder.Key(record)) +
                              " has a wrong value");
    return false;
  }
  if (status.IsNotFound()) {
    if (context.deleted != nullptr && context.deleted->Contains(record)) {
      return true;
    }
    context.control.FailCheck(DescribeRecord(record, builder.Key(record)) +
                              " was written but is not found");
    return false;
  }
  context.control.Fail(
      status, "reading " + DescribeRecord(record, builder.Key(record)));
  return false;
}

uint64_t VerifyPhase(const PhaseContext& context,
                     const std::vector<uint64_t>& inserted) {
  const BenchConfig& config = context.config;
  uint64_t total = config.records;
  for (uint64_t n : inserted) total += n;
  tools::ProgressCounters progress(config.threads);
  tools::ProgressDisplay display(context.progress, "verify", "records",
                                 progress, tools::ProgressDisplay::Of(total));
  std::atomic<uint64_t> verified{0};
  RunOnThreads(config.threads, [&](unsigned thread) {
    RecordBuilder builder(context.keys);
    std::string value;
    uint64_t done = 0;
    // Returns false once the phase must stop.
    auto verify = [&](uint64_t record) {
      if (done++ % 256 == 0) {
        progress.Publish(thread, done);
        if (context.control.stopped()) return false;
      }
      const Status status = context.engine.Get(builder.Key(record), &value);
      return CheckRead(context, builder, record, status, value);
    };
    const Slice loaded = ThreadSlice(config.records, config.threads, thread);
    for (uint64_t r = loaded.begin; r < loaded.end; ++r) {
      if (!verify(r)) return;
    }
    // The records this thread inserted in the run (none in recovery mode).
    const uint64_t own = thread < inserted.size() ? inserted[thread] : 0;
    for (uint64_t k = 0; k < own; ++k) {
      if (!verify(InsertedRecord(config, thread, k))) return;
    }
    progress.Publish(thread, done);
    verified += done;
  });
  return verified;
}

}  // namespace plush::bench
