// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The batch spill area (docs/format.md §5.4): where a logged write batch
// keeps its members when they do not fit one recovery-log chunk (a 4 KiB
// chunk holds a batch of 167 records; a batch may hold 65,536). The batch's commit
// entry goes to its log as usual, holding the number of members and their
// checksum; members and commit are persisted by the batch's one fence, and
// recovery replays the members only if the area matches the checksum. A
// crash therefore leaves all of the batch or none, and recovery reads at
// most one area, whatever the batch's size.
//
// One area per pool, in the heap, named by the root page's `batch_spill`
// word; it serves one batch at a time and is reused. Before a batch
// overwrites it, the records of the batch it holds are made durable on
// PMem, by migrating the DRAM entries that still hold them in DRAM only:
// recovery no longer needs them, and a commit that names them fails its
// checksum from then on and is skipped. Recycling the log chunk of a
// spilled commit does the same, so that no chunk is freed while its batch
// needs the area. An area too small for a batch is replaced by one of the
// next power of two of entries (the old one stays allocated: the heap
// never frees).
//
// Locking: the area's mutex is taken after a log's rotation mutex (a
// recycled chunk's spilled commit) and before any DRAM entry lock (a batch
// holds it while it locks its entries, and migrating the held batch's
// entries takes their locks).

#ifndef PLUSH_LOG_BATCH_SPILL_H_
#define PLUSH_LOG_BATCH_SPILL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "log/log_format.h"
#include "log/log_host.h"
#include "plush/status.h"
#include "pool/pool.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush::log {

class BatchSpill {
 public:
  BatchSpill(pool::Pool* pool, LogHost* host) : pool_(*pool), host_(*host) {}

  // The area, held by one batch from Acquire() until it is destroyed or
  // released.
  class Lease {
   public:
    Lease() = default;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { Release(); }
    bool held() const { return spill_ != nullptr; }
    // (The area's mutex, held from Acquire() to here, across calls: more
    // than the thread-safety analysis follows.)
    void Release() NO_THREAD_SAFETY_ANALYSIS;

   private:
    friend class BatchSpill;
    BatchSpill* spill_ = nullptr;
  };

  // Waits for the area and readies it for a batch of `n` members: the
  // records of the batch it holds are made durable first, and it grows if
  // it is too small. Call without holding any DRAM entry lock. On error
  // nothing is held: InvalidArgument after Close(), NoSpace if the area
  // cannot grow, or the error of a migration.
  Status Acquire(uint64_t n, Lease* lease) NO_THREAD_SAFETY_ANALYSIS;
  // Streams `records` into the area as members (not fenced) and returns
  // their checksum (62 bits), for the commit entry. REQUIRES: `lease`
  // from Acquire() for at least `n` members.
  uint64_t Write(const Lease& lease, const LogRecord* records, size_t n);
  // After the fence that made the commit durable: the area holds that
  // batch, whose records must reach PMem before it is overwritten.
  void Hold(const Lease& lease, uint64_t n, uint64_t checksum);
  // Recycling the log chunk that holds the spilled commit (n, checksum):
  // if the area still holds that batch, its records are made durable (and
  // the area is free). Call with no DRAM entry lock held.
  Status MigrateIfHeld(uint64_t n, uint64_t checksum) EXCLUDES(mu_);

  // Recovery, before any other call: checks the root page's word.
  // Corruption if it does not describe an area inside the heap.
  Status Load();
  // Recovery: decodes the spilled members of a commit (n, checksum) into
  // *members and returns true if all of them are there: n valid members
  // that match the checksum. A false return leaves the members that decode
  // (a torn batch, or an area a later batch reused). Thread-safe.
  bool ReadBatch(uint64_t n, uint64_t checksum,
                 std::vector<LogRecord>* members) const;
  // Recovery: the area holds the committed batch (n, checksum), which
  // recovery replayed. Thread-safe.
  void NoteRecovered(uint64_t n, uint64_t checksum) EXCLUDES(mu_);

  // Waits for the batch that holds the area; every later Acquire() fails.
  void Close() EXCLUDES(mu_);
  // Holds the area (batches wait) until Resume (DBImpl::Backup).
  void Pause() ACQUIRE(mu_) { mu_.Lock(); }
  void Resume() RELEASE(mu_) { mu_.Unlock(); }

  // Checks the root page's word; appends problems to *report; returns
  // their count.
  uint64_t Verify(std::string* report) const;

  uint64_t forced_migrations() const { return forced_migrations_.Read(); }

 private:
  // What the root page's word names.
  struct Area {
    uint64_t offset = 0;    // 0: none yet
    uint64_t capacity = 0;  // entries
  };
  // The area the root word names, or why it names none that is usable.
  Status Decode(uint64_t word, Area* area) const;
  const uint64_t* EntryAt(uint64_t i) const {
    return pool_.media().At<uint64_t>(area_.offset + i * kEntrySize);
  }
  // Migrates the DRAM entries of the records of the batch the area holds,
  // if it holds one, and forgets it.
  Status MigrateHeld() REQUIRES(mu_);
  // Replaces the area by one that holds at least `n` entries.
  Status Grow(uint64_t n) REQUIRES(mu_);

  pool::Pool& pool_;
  LogHost& host_;
  Mutex mu_;
  // Written under mu_ (Grow) or before any sharing (Load).
  Area area_;
  // The committed batch the area holds (0 members: none).
  uint64_t held_members_ GUARDED_BY(mu_) = 0;
  uint64_t held_checksum_ GUARDED_BY(mu_) = 0;
  bool closed_ GUARDED_BY(mu_) = false;
  ShardedCounter forced_migrations_;
};

}  // namespace plush::log

#endif  // PLUSH_LOG_BATCH_SPILL_H_
