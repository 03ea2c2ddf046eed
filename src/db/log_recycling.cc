// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/log_recycling.h"

#include <algorithm>

namespace plush {

uint64_t LogRecycling::DramEpochOf(const log::LogRecord& record) {
  return table_.DramState(DramIndexOf(record)).epoch;
}

uint64_t LogRecycling::MinDramEpoch(unsigned log) {
  uint64_t min = ~uint64_t{0};
  for (uint64_t d = log; d < table_.dram_entries(); d += log_count_)
    min = std::min(min, table_.DramState(d).epoch);
  return min;
}

// Appends happen under a DRAM entry's lock: passing through the locks of
// the log's entries waits for every append in progress.
void LogRecycling::WaitForAppends(unsigned log) {
  for (uint64_t d = log; d < table_.dram_entries(); d += log_count_) {
    SpinLockRef lock = table_.DramLock(d);
    lock.lock();
    lock.unlock();
  }
}

Status LogRecycling::MigrateIfUnmigrated(const log::LogRecord& record) {
  const uint64_t d = DramIndexOf(record);
  SpinLockRef lock = table_.DramLock(d);
  lock.lock();
  // Even an empty entry is migrated: that advances its epoch past the
  // record's, which is what frees the chunk.
  Status s = record.epoch >= table_.DramState(d).epoch ? table_.MigrateDram(d)
                                                       : Status::OK();
  lock.unlock();
  return s;
}

bool LogRecycling::Superseded(const log::LogRecord& record) {
  return table_.DramSlotDroppable(DramIndexOf(record), record.epoch,
                                  record.position, record.key,
                                  record.indirect, record.value);
}

Status LogRecycling::Retire(const log::LogRecord& record, RetireBy by,
                            Retired* how) {
  const uint64_t d = DramIndexOf(record);
  SpinLockRef lock = table_.DramLock(d);
  lock.lock();
  Status s = Status::OK();
  *how = Retired::kAlready;
  if (record.epoch >= table_.DramState(d).epoch) {
    const EntryRewriter::Result r =
        by == RetireBy::kMigrating
            ? EntryRewriter::Result::kNotWorthIt
            : rewriter_->Rewrite(d, /*sample=*/true).result;
    *how = r == EntryRewriter::Result::kRewritten ? Retired::kRewritten
           : r == EntryRewriter::Result::kNoRoom  ? Retired::kNoRoom
           : by == RetireBy::kRewritingOnly       ? Retired::kLeft
                                                  : Retired::kMigrated;
    if (*how == Retired::kMigrated) s = table_.MigrateDram(d);
  }
  lock.unlock();
  return s;
}

void LogRecycling::RewriteAll(std::span<const log::LogRecord> records,
                              std::span<Retired> how) {
  // (In index order, as write batches take theirs.)
  for (const log::LogRecord& r : records) {
    table_.DramLock(DramIndexOf(r)).lock();
  }
  EntryRewriter::Group group(rewriter_);
  size_t i = 0;
  for (; i < records.size(); ++i) {
    const uint64_t d = DramIndexOf(records[i]);
    if (records[i].epoch < table_.DramState(d).epoch) {
      how[i] = Retired::kAlready;
      continue;
    }
    const EntryRewriter::Result r = group.Add(d, /*sample=*/true).result;
    if (r == EntryRewriter::Result::kNoRoom) break;
    how[i] = r == EntryRewriter::Result::kRewritten ? Retired::kRewritten
                                                    : Retired::kLeft;
  }
  for (size_t j = i; j < records.size(); ++j) how[j] = Retired::kNoRoom;
  group.Commit();
  for (const log::LogRecord& r : records) {
    table_.DramLock(DramIndexOf(r)).unlock();
  }
}

}  // namespace plush
