// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What the recovery logs need from the hash table to recycle a chunk
// (log::LogHost): a chunk may be reused once recovery needs none of its
// records, which the DRAM entries' epochs tell, and which migrating an
// entry, or rewriting it without its superseded versions (EntryRewriter),
// brings about.

#ifndef PLUSH_DB_LOG_RECYCLING_H_
#define PLUSH_DB_LOG_RECYCLING_H_

#include <cstdint>

#include "db/background_work.h"
#include "db/entry_rewriter.h"
#include "log/recovery_log.h"
#include "plush/options.h"
#include "table/leveled_table.h"

namespace plush {

class LogRecycling final : public log::LogHost {
 public:
  // `log_count`: the number of recovery logs; DRAM entry d writes to log
  // d % log_count. `background` recycles chunks ahead of need.
  // `clock` judges expiry.
  LogRecycling(table::LeveledTable* table, unsigned log_count,
               BackgroundWork* background, const Clock* clock)
      : table_(*table),
        log_count_(log_count),
        background_(*background),
        clock_(*clock) {}

  // What rewrites DRAM entries (it appends to the logs, which are created
  // after this host, since they take it).
  void set_rewriter(EntryRewriter* rewriter) { rewriter_ = rewriter; }

  uint64_t DramIndexOf(const log::LogRecord& record) const override {
    return table_.DramIndex(table_.HashOf(record.key, record.indirect));
  }
  uint64_t DramEpochOf(const log::LogRecord& record) override;
  uint64_t MinDramEpoch(unsigned log) override;
  Status MigrateIfUnmigrated(const log::LogRecord& record) override;
  bool EntryExpired(const log::LogRecord& record) override {
    return table_.UnitExpiredAt(DramIndexOf(record), clock_.NowMs());
  }
  bool Superseded(const log::LogRecord& record) override;
  Status Retire(const log::LogRecord& record, RetireBy by,
                Retired* how) override;
  void RewriteAll(std::span<const log::LogRecord> records,
                  std::span<Retired> how) override;
  void WaitForAppends(unsigned log) override;
  void ChunkHalfWritten(unsigned log) override {
    background_.ScheduleRecycling(log);
  }

 private:
  table::LeveledTable& table_;
  EntryRewriter* rewriter_ = nullptr;
  const unsigned log_count_;
  BackgroundWork& background_;
  const Clock& clock_;
};

}  // namespace plush

#endif  // PLUSH_DB_LOG_RECYCLING_H_
