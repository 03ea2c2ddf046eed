// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/replay_incomplete_batches.h"

namespace plush::log {

Status ReplayIncompleteBatches::OnIncompleteBatch(
    const std::vector<LogRecord>& members, const Take& take) const {
  for (const LogRecord& member : members) {
    Status s = take(member);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace plush::log
