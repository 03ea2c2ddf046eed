// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What the recovery logs (recovery_log.h) and the batch spill area
// (batch_spill.h) need from the hash table: a log chunk, or the spill area,
// may be reused once recovery needs none of its records, which the DRAM
// entries' epochs tell and which migrating an entry (or, for a log chunk,
// rewriting it: Retire) brings about.

#ifndef PLUSH_LOG_LOG_HOST_H_
#define PLUSH_LOG_LOG_HOST_H_

#include <cstdint>
#include <span>

#include "log/log_format.h"
#include "plush/status.h"

namespace plush::log {

class LogHost {
 public:
  virtual ~LogHost() = default;
  // The DRAM entry `record` belongs to, and its current epoch.
  virtual uint64_t DramIndexOf(const LogRecord& record) const = 0;
  virtual uint64_t DramEpochOf(const LogRecord& record) = 0;
  // The lowest current epoch among the DRAM entries of `log`.
  virtual uint64_t MinDramEpoch(unsigned log) = 0;
  // Migrates the DRAM entry `record` belongs to if the record is still in
  // DRAM only (its epoch is not below the entry's), under the entry's lock.
  virtual Status MigrateIfUnmigrated(const LogRecord& record) = 0;
  // Whether every record put into the DRAM entry of `record` since the
  // entry was last emptied has expired, on the DRAM level and below: a
  // rewrite of the entry would drop them all and log nothing. A hint,
  // lock-free.
  virtual bool EntryExpired(const LogRecord& record) = 0;
  // Whether `record` no longer matters to its DRAM entry: the entry holds
  // a newer version of its key, the record is on PMem, or it expired (a
  // rewrite of the entry drops it). An estimate, lock-free: what tells
  // whether recycling a chunk pays.
  virtual bool Superseded(const LogRecord& record) = 0;
  // How Retire() dealt with a record.
  enum class Retired {
    kAlready,    // not in DRAM only any more
    kRewritten,  // its entry was rewritten
    kMigrated,   // its entry was migrated
    kNoRoom,     // nothing done: its log has no room for a rewrite
    kLeft,       // nothing done: a rewrite would not pay (kRewritingOnly)
  };
  // What Retire() may do.
  enum class RetireBy {
    kMigrating,
    kRewritingOrMigrating,  // rewriting where it pays, else migrating
    kRewritingOnly,         // rewriting where it pays, else nothing
  };
  // Makes `record` unneeded by recovery if it is still in DRAM only (as
  // MigrateIfUnmigrated), under its entry's lock: by rewriting the entry
  // where `by` allows it and the entry's superseded versions are a quarter
  // of it or more (without them, in its next epoch, its survivors appended
  // to its log as one batch; kNoRoom if the log's current chunk cannot
  // take them); else by migrating the entry where `by` allows it.
  virtual Status Retire(const LogRecord& record, RetireBy by,
                        Retired* how) = 0;
  // Retire() of records of distinct DRAM entries, in ascending entry
  // order, by rewriting only (kRewritingOnly: kRewritten, kAlready or
  // kLeft each), with the entries' locks held together so that their
  // rewrites share their persistence barriers (EntryRewriter::Group). A
  // rewrite that finds no room stops it: that record and those after it
  // are kNoRoom, untouched.
  virtual void RewriteAll(std::span<const LogRecord> records,
                          std::span<Retired> how) = 0;
  // Returns once every append to `log` that is in progress has finished:
  // appends happen under a DRAM entry lock, so passing through the locks
  // of the log's entries suffices.
  virtual void WaitForAppends(unsigned log) = 0;
  // The current chunk of `log` is half written (once per chunk; called by
  // an appender, under its DRAM entry lock): a chance to RecycleAhead()
  // in the background, so that the writer that fills the chunk finds a
  // free one.
  virtual void ChunkHalfWritten(unsigned log) = 0;
};

}  // namespace plush::log

#endif  // PLUSH_LOG_LOG_HOST_H_
