// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/log_recycling.h"

#include <algorithm>
#include <vector>

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
  return table_.DramSlotSuperseded(DramIndexOf(record), record.epoch,
                                   record.position, record.key,
                                   record.indirect);
}

Status LogRecycling::Retire(const log::LogRecord& record, bool may_rewrite,
                            Retired* how) {
  const uint64_t d = DramIndexOf(record);
  SpinLockRef lock = table_.DramLock(d);
  lock.lock();
  Status s = Status::OK();
  *how = Retired::kAlready;
  if (record.epoch >= table_.DramState(d).epoch) {
    *how = may_rewrite ? Rewrite(d) : Retired::kMigrated;
    if (*how == Retired::kMigrated) s = table_.MigrateDram(d);
  }
  lock.unlock();
  return s;
}

// The survivors are logged before the entry changes: the batch holds them
// all or none, so a crash leaves either the entry's old records (still in
// the log: their chunk is freed only after this returns) or its new ones,
// numbered in the next epoch, which recovery places after the old ones
// (write batches number across epochs the same way).
log::LogHost::Retired LogRecycling::Rewrite(uint64_t d) {
  if (table_.DramHasUnlogged(d)) return Retired::kMigrated;
  const table::EntryState st = table_.DramState(d);
  std::vector<table::Slot> slots;
  std::vector<uint64_t> hashes;
  // A damaged entry is left to the migration, which reports it.
  if (!table_.NewestInDram(d, &slots, &hashes).ok() || slots.empty() ||
      4 * slots.size() > 3 * st.size) {
    return Retired::kMigrated;
  }
  std::vector<log::LogRecord> records(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    records[i] = {slots[i].key,       slots[i].value,
                  st.epoch + 1,       slots[i].tombstone,
                  slots[i].indirect,  static_cast<uint8_t>(i)};
  }
  uint32_t chunk_seen = 0;
  if (!logs_->TryAppendBatch(logs_->LogOf(d), records.data(), records.size(),
                             log::BatchSpill::Lease(), /*foreign=*/false,
                             &chunk_seen)) {
    return Retired::kNoRoom;
  }
  table_.RewriteDram(d, slots, hashes);
  return Retired::kRewritten;
}

}  // namespace plush
