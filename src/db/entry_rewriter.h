// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Rewriting a DRAM entry without its superseded versions (keys written
// again) and its tombstones that hide nothing (deletes, expired records),
// the other way besides migration to move it to its next epoch: its
// newest versions are logged again as one batch in that epoch, then the
// entry is rewritten in place from them (docs/architecture.md, "Log
// recycling"). Afterwards its log records of earlier epochs are no longer
// needed, and the entry has room again without a migration: what keeps
// the logs and the first PMem level from growing with old versions, and
// a cache whose keys expire from growing at all.

#ifndef PLUSH_DB_ENTRY_REWRITER_H_
#define PLUSH_DB_ENTRY_REWRITER_H_

#include <cassert>
#include <cstdint>
#include <vector>

#include "log/recovery_log.h"
#include "plush/options.h"
#include "table/leveled_table.h"
#include "util/sharded_counter.h"

namespace plush {

class EntryRewriter {
 public:
  // `clock`: the DB's (Options::clock), which judges expiry.
  EntryRewriter(table::LeveledTable* table, log::RecoveryLogs* logs,
                const Clock* clock)
      : table_(*table), logs_(*logs), clock_(*clock) {}

  enum class Result {
    kRewritten,
    kNotWorthIt,  // what it would drop is under a quarter of the entry
                  // (or it holds unlogged records): it should migrate
    kNoRoom,      // the entry's log has no room for its survivors now
  };
  struct Outcome {
    Result result;
    // When a rewrite would pay off by expiries alone (the records that
    // stay expire): the Unix ms on the DB's clock, or UINT64_MAX.
    uint64_t due_ms;
    // kNoRoom: the log chunk that was full, for MakeRoom.
    uint32_t chunk_seen = 0;
  };
  // Rewrites DRAM entry `d` if at least a quarter of it would go: a
  // rewrite then appends at most three records to the log per record it
  // frees there. `sample`: look at a few slots first, and give up unless
  // one could go (superseded or expired): for callers that do not know.
  // REQUIRES: the entry's lock.
  Outcome Rewrite(uint64_t d, bool sample);

  // Rewrites of several DRAM entries that share their two persistence
  // barriers (the survivors', then the retired epochs')
  // instead of two each: what counts where every barrier is an msync (a
  // power-fail-safe pool file). Add() logs an entry's survivors, Commit()
  // then changes the entries; a Group that Add() answered kRewritten must
  // be committed, with the entries' locks held from their Add() until
  // Commit() returns.
  class Group {
   public:
    explicit Group(EntryRewriter* rewriter) : rewriter_(*rewriter) {}
    ~Group() { assert(added_.empty() && "a Group not committed"); }
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;
    // Rewrite(d, sample) up to the change of the entry. REQUIRES: the
    // entry's lock, and no other Add() of `d` in this group.
    Outcome Add(uint64_t d, bool sample);
    void Commit();

   private:
    struct Survivors {
      uint64_t d;
      uint64_t epoch;  // the entry's, which they leave
      std::vector<table::Slot> slots;
      std::vector<uint64_t> hashes;
    };
    EntryRewriter& rewriter_;
    std::vector<Survivors> added_;
  };

  // After kNoRoom, without the entry's lock: gives the entry's log a
  // fresh chunk (as a writer does; it may migrate or rewrite entries).
  Status MakeRoom(uint64_t d, uint32_t chunk_seen) {
    return logs_.Rotate(logs_.LogOf(d), chunk_seen);
  }

  // Entries rewritten since the pool was opened.
  uint64_t rewrites() const { return rewrites_.Read(); }

 private:
  static uint64_t DueWhenWorthIt(std::vector<uint64_t> expiries,
                                 uint64_t size, uint64_t now_ms);

  table::LeveledTable& table_;
  log::RecoveryLogs& logs_;
  const Clock& clock_;
  ShardedCounter rewrites_;
};

}  // namespace plush

#endif  // PLUSH_DB_ENTRY_REWRITER_H_
