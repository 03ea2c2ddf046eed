// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What recovery does with the members of a write batch that it finds
// incomplete: members in a chunk without their commit entry after them,
// or a spilled commit whose spill area no longer matches it (format.md
// §5.3, §5.4). The engine drops them, because a batch is all or nothing;
// that is the only correct behaviour, and what RecoveryLogs does without a
// hook. A hook replaces it: the one there is, the crash tests'
// deliberately broken control, replays them
// (testing/replay_incomplete_batches.h), and is not part of libplush.
//
// Called by recovery and by log recycling, which read whole chunks, when
// they meet an incomplete batch, from the thread that reads; never by the
// appends of writers.

#ifndef PLUSH_LOG_INCOMPLETE_BATCH_HOOK_H_
#define PLUSH_LOG_INCOMPLETE_BATCH_HOOK_H_

#include <functional>
#include <vector>

#include "log/log_format.h"
#include "plush/status.h"

namespace plush::log {

class IncompleteBatchHook {
 public:
  // Does with one record what the reader does with every valid record
  // (recovery: replays it into the DRAM level).
  using Take = std::function<Status(const LogRecord&)>;

  virtual ~IncompleteBatchHook() = default;
  // Called, instead of dropping them, with the members of an incomplete
  // batch as they were read. Returns `take`'s first error.
  virtual Status OnIncompleteBatch(const std::vector<LogRecord>& members,
                                   const Take& take) const = 0;
};

}  // namespace plush::log

#endif  // PLUSH_LOG_INCOMPLETE_BATCH_HOOK_H_
