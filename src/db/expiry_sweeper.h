// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The expiry sweep: expired records leave the DRAM level soon after they
// expire, not when their entry fills. Otherwise a cache whose keys all
// expire keeps them there until its entries fill — and with them their
// recovery-log records and payload entries — and then migrates what is
// left (docs/architecture.md, "Expiry").
//
// Each DRAM entry has a due time: when enough of its records will have
// expired that rewriting it without them pays (EntryRewriter). Writers
// note the expiries they write (Note), which can only bring it closer; a
// thread of its own, started by the first note (a pool without expiry
// runs none), looks at the due times every kInterval and rewrites each
// entry that is due, under its lock, learning from the rewrite when the
// entry is due next. Due times start unknown after Open (records replayed
// into the DRAM level are not looked at): those entries are reclaimed
// when they fill, by a rewrite or a migration, until a write notes an
// expiry there again.
//
// Each unit's subtree on the PMem levels has a due time of its own, kept
// by the table (LeveledTable::SubtreeDueMs: migrations note the expiries
// they move down); a due subtree is swept in parts, each under the unit's
// lock, emptying the entries whose records are all gone.
//
// Thread safety: Note may be called from any thread, holding anything.

#ifndef PLUSH_DB_EXPIRY_SWEEPER_H_
#define PLUSH_DB_EXPIRY_SWEEPER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "db/entry_rewriter.h"
#include "db/write_path.h"
#include "plush/options.h"
#include "table/leveled_table.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush {

class ExpirySweeper {
 public:
  // `enabled` false (Options::background_threads = 0): Note does nothing,
  // and expired records wait for their entries to fill.
  ExpirySweeper(table::LeveledTable* table, EntryRewriter* rewriter,
                WritePath* write_path, const Clock* clock, bool enabled);
  ~ExpirySweeper() { Stop(); }

  // A record expiring at `expires_at_ms` went into DRAM entry `d`.
  void Note(uint64_t d, uint64_t expires_at_ms);
  // Ends the thread (waiting for the rewrite in progress). Idempotent.
  void Stop();

  // DRAM entries the sweep rewrote since the pool was opened.
  uint64_t sweeps() const { return sweeps_.Read(); }
  // PMem directory entries it emptied (LeveledTable::SweepSubtree).
  uint64_t subtree_sweeps() const { return subtree_sweeps_.Read(); }

  static constexpr std::chrono::milliseconds kInterval{100};

 private:
  void Run();
  // Sweeps every DRAM entry, and every unit's subtree, that is due at
  // `now_ms`.
  void SweepDue(uint64_t now_ms);
  // Each false once the pool is closed or halted: the sweep ends.
  bool SweepDram(uint64_t d, uint64_t now_ms);
  bool SweepSubtree(uint64_t d);

  table::LeveledTable& table_;
  EntryRewriter& rewriter_;
  WritePath& write_path_;
  const Clock& clock_;
  const bool enabled_;
  // Per DRAM entry: the Unix ms at which to rewrite it; UINT64_MAX: never.
  std::unique_ptr<std::atomic<uint64_t>[]> due_;
  std::once_flag started_;
  std::thread thread_;
  Mutex mu_;
  CondVar stop_requested_;
  bool stopping_ GUARDED_BY(mu_) = false;
  ShardedCounter sweeps_;
  ShardedCounter subtree_sweeps_;
};

}  // namespace plush

#endif  // PLUSH_DB_EXPIRY_SWEEPER_H_
