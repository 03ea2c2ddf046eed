// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Background work: the four kinds of work that would otherwise stall a
// writer, done ahead of need by threads of their own (Options::
// background_threads):
//
//   migration   a DRAM entry that reaches its high-water mark (7/8 full) is
//               migrated before it fills, so that the writer that would
//               fill it does not migrate it (recursively, when a child is
//               full too) while holding its lock: the paper's insert tail;
//   recycling   a recovery log whose current chunk is half written and
//               that has no free chunk left recycles its oldest chunk now,
//               so that the writer that fills the current chunk finds a
//               free one instead of scanning and migrating under the log's
//               rotation mutex;
//   re-balancing  a range pool's unit that reaches its high-water mark
//               while it is heavy is split (RangeRebalancer) instead of
//               migrated (the split migrates it);
//   growth      after each migration, the pool file grows ahead of the
//               allocations when little space is left (Allocator::
//               GrowAhead), and a free payload chunk is kept ready
//               (PayloadLogs::PrepareFreeChunk), so that no writer waits
//               for the file system or for pre-faulting a chunk.
//
// Migration and recycling run the very code a writer would run
// (LeveledTable::MigrateDram under the entry's lock,
// RecoveryLogs::RecycleAhead under the log's rotation mutex), so crash
// consistency and lock-free lookups are those of the inline path. When the
// threads fall behind, writers still do the work inline (a full entry
// migrates, a full log recycles): background work never makes a writer
// wait for it. An error in the background (NoSpace, Corruption) is
// dropped: the inline path meets it again and reports it to the writer
// that needs the space.
//
// Thread safety: Schedule*() may be called by any thread, holding any DRAM
// entry lock or rotation mutex (they only take the queue's mutex). Start()
// and Stop() are called by DBImpl's Open and Close.

#ifndef PLUSH_DB_BACKGROUND_WORK_H_
#define PLUSH_DB_BACKGROUND_WORK_H_

#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "db/range_rebalancer.h"
#include "log/recovery_log.h"
#include "payload/payload_logs.h"
#include "pool/allocator.h"
#include "table/leveled_table.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush {

class BackgroundWork {
 public:
  // `threads`: 0 disables background work (Schedule*() do nothing).
  BackgroundWork(table::LeveledTable* table, pool::Allocator* allocator,
                 unsigned threads);
  ~BackgroundWork() { Stop(); }

  // The DRAM entry size at which an entry is scheduled for migration.
  unsigned high_water() const { return high_water_; }

  // Starts the threads (after recovery: before, nothing is scheduled).
  // `rebalancer`: null, or what splits heavy units (it counts the units
  // first, on the first thread).
  void Start(log::RecoveryLogs* logs, payload::PayloadLogs* payload,
             RangeRebalancer* rebalancer);
  // Waits for the work in progress, drops the queued work and ends the
  // threads; later Schedule*() calls do nothing. Idempotent.
  void Stop();

  // Whether the unit of DRAM entry `dram_index` (of a range pool that
  // re-balances) is due a split with the `incoming` records a write is
  // about to bring it (RangeRebalancer::SplitDue): a hint, without its
  // lock.
  bool SplitDue(uint64_t dram_index, uint64_t incoming) const;
  // Splits the unit of DRAM entry `dram_index` if it is due (after any
  // split of it under way, which may leave it due no more). For the
  // writer whose records the entry cannot take: split, its unit takes no
  // more of the keys that filled it (growing keys), which then need not
  // migrate.
  void SplitIfDue(uint64_t dram_index, uint64_t incoming);

  // DRAM entry `dram_index` reached high_water(). Each fill of an entry
  // schedules it once (the insert that reaches the mark does).
  void ScheduleMigration(uint64_t dram_index);
  // Log `log` is half way through its current chunk with no free chunk.
  void ScheduleRecycling(unsigned log);

  // DRAM entries migrated and log chunks recycled by the threads.
  uint64_t migrations() const { return migrations_.Read(); }
  uint64_t recycles() const { return recycles_.Read(); }

 private:
  void Run();
  void MigrateIfAboveHighWater(uint64_t dram_index);

  table::LeveledTable& table_;
  pool::Allocator& allocator_;
  const unsigned thread_count_;
  const unsigned high_water_;
  log::RecoveryLogs* logs_ = nullptr;  // set by Start()
  payload::PayloadLogs* payload_ = nullptr;  // set by Start()
  RangeRebalancer* rebalancer_ = nullptr;    // set by Start()
  std::vector<std::thread> threads_;

  Mutex mu_;
  CondVar work_ready_;
  bool running_ GUARDED_BY(mu_) = false;
  unsigned sleeping_ GUARDED_BY(mu_) = 0;  // threads blocked on work_ready_
  std::deque<uint64_t> migrations_queued_ GUARDED_BY(mu_);
  std::deque<unsigned> recycles_queued_ GUARDED_BY(mu_);

  ShardedCounter migrations_;
  ShardedCounter recycles_;
};

}  // namespace plush

#endif  // PLUSH_DB_BACKGROUND_WORK_H_
