// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Two passes over the store: a timed one that only reads what it is given,
// then (unless --skip-verify) a checked one. Checking a record (turning its
// key back into a record, two bitmap lookups, regenerating the value)
// costs about as much as a plush iterator step on 8-byte records, so
// inside the timed pass it would be half of what is measured.

#include <chrono>

#include "display.h"
#include "iteration_check.h"
#include "phases.h"

namespace plush::bench {
namespace {

char MiddleByte(std::string_view bytes) {
  return bytes.empty() ? 0 : bytes[bytes.size() / 2];
}

// Engine::ForEach with a progress line and the stop flag (polled every 256
// records). Returns how many records it visited.
uint64_t Pass(const PhaseContext& context, const char* label, uint64_t total,
              const RecordVisitor& visit, Status* status) {
  tools::ProgressCounters progress(1);
  tools::ProgressDisplay display(context.progress, label, "records", progress,
                                 tools::ProgressDisplay::Of(total));
  uint64_t visited = 0;
  *status =
      context.engine.ForEach([&](std::string_view key, std::string_view value) {
        if (visited++ % 256 == 0) {
          progress.Publish(0, visited);
          if (context.control.stopped()) return false;
        }
        return visit(key, value);
      });
  progress.Publish(0, visited);
  return visited;
}

}  // namespace

IterateResult IteratePhase(const PhaseContext& context,
                           const std::vector<uint64_t>& inserted) {
  IterationCheck check(context.config, context.keys, inserted, context.deleted);
  IterateResult result;
  // An application reads what it iterates over: reading a byte of each key
  // and value makes an engine that hands out pointers (the DRAM map) pay
  // for the memory they point to.
  volatile char sink = 0;
  Status status;
  const auto start = std::chrono::steady_clock::now();
  result.records = Pass(
      context, "iterate", check.required(),
      [&](std::string_view key, std::string_view value) {
        sink = static_cast<char>(sink ^ MiddleByte(key) ^ MiddleByte(value));
        return true;
      },
      &status);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!status.ok()) {
    context.control.Fail(status, "iterating");
    return result;
  }
  if (!context.config.verify || context.control.stopped()) return result;

  Pass(
      context, "check", check.required(),
      [&](std::string_view key, std::string_view value) {
        return check.Visit(key, value);
      },
      &status);
  if (!status.ok()) {
    context.control.Fail(status, "iterating again to check");
  } else if (!check.error().empty() ||
             (!context.control.stopped() && !check.Finish())) {
    context.control.FailCheck(check.error());
  } else if (check.visited() != result.records) {
    context.control.FailCheck("two iterations returned " +
                              std::to_string(result.records) + " and " +
                              std::to_string(check.visited()) + " records");
  }
  return result;
}

}  // namespace plush::bench
