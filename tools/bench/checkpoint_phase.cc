// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include <chrono>

#include "phases.h"

namespace plush::bench {

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
