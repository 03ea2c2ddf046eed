// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A deliberately broken recovery, for the crash tests' controls
// (InternalOptions::replay_uncommitted_batches): it replays the members
// of write batches whose commit entry is missing, and the spilled members
// of a commit that does not match them, where the engine drops them
// (log/incomplete_batch_hook.h). A crash in the middle of a batch must
// then show part of the batch, which the crash explorer must catch.

#ifndef PLUSH_TESTING_REPLAY_INCOMPLETE_BATCHES_H_
#define PLUSH_TESTING_REPLAY_INCOMPLETE_BATCHES_H_

#include <vector>

#include "log/incomplete_batch_hook.h"

namespace plush::log {

class ReplayIncompleteBatches final : public IncompleteBatchHook {
 public:
  Status OnIncompleteBatch(const std::vector<LogRecord>& members,
                           const Take& take) const override;
};

}  // namespace plush::log

#endif  // PLUSH_TESTING_REPLAY_INCOMPLETE_BATCHES_H_
