// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Rewriting a DRAM entry without its superseded versions (keys written
// again), the other way besides migration to move it to its next epoch:
// its newest versions are logged again as one batch in that epoch, then
// the entry is rewritten in place from them (docs/architecture.md, "Log
// recycling"). Afterwards its log records of earlier epochs are no longer
// needed, and the entry has room again without a migration: what keeps
// the logs and the first PMem level from growing with old versions.

#ifndef PLUSH_DB_ENTRY_REWRITER_H_
#define PLUSH_DB_ENTRY_REWRITER_H_

#include <cstdint>

#include "log/recovery_log.h"
#include "table/leveled_table.h"
#include "util/sharded_counter.h"

namespace plush {

class EntryRewriter {
 public:
  EntryRewriter(table::LeveledTable* table, log::RecoveryLogs* logs)
      : table_(*table), logs_(*logs) {}

  enum class Result {
    kRewritten,
    kNotWorthIt,  // superseded versions are under a quarter of the entry
                  // (or it holds unlogged records): it should migrate
    kNoRoom,      // the entry's log has no room for its survivors now
  };
  // Rewrites DRAM entry `d` if at least a quarter of it is superseded: a
  // rewrite then appends at most three records to the log per record it
  // frees there. REQUIRES: the entry's lock.
  Result Rewrite(uint64_t d);

  // Entries rewritten since the pool was opened.
  uint64_t rewrites() const { return rewrites_.Read(); }

 private:
  table::LeveledTable& table_;
  log::RecoveryLogs& logs_;
  ShardedCounter rewrites_;
};

}  // namespace plush

#endif  // PLUSH_DB_ENTRY_REWRITER_H_
