// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include <chrono>
#include <filesystem>

#include "phases.h"

namespace plush::bench {

BackupResult BackupPhase(const PhaseContext& context) {
  BackupResult result;
  const auto start = std::chrono::steady_clock::now();
  const Status status = context.engine.Backup(context.config.backup);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!status.ok()) {
    context.control.Fail(status, "backing up to " + context.config.backup);
    return result;
  }
  std::error_code error;
  result.bytes = std::filesystem::file_size(context.config.backup, error);
  if (error) {
    context.control.Fail(Status::IOError(error.message()),
                         "reading the size of " + context.config.backup);
  }
  return result;
}

}  // namespace plush::bench
