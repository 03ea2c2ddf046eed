// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The write path of the paper's listing 1, for one record:
//
//   1. lock the key's DRAM entry (its writers' lock; never on PMem)
//   2. let the caller prepare the slot under the lock (or skip the write)
//   3. migrate the entry first if it is full (unless its unit is due a
//      split: unlock, split it, and start over; a unit of growing keys
//      then takes no more of them, and keeps its records in DRAM)
//   4. append the record to the entry's recovery log: the one persistence
//      barrier of a write (skipped for unlogged writes); if the log's chunk
//      is full, unlock, rotate the log and start over
//   5. insert the slot into the DRAM entry and unlock; an entry that
//      reaches its high-water mark is handed to the background work, which
//      migrates it before a writer would have to (background_work.h)
//
// Every writer of the table goes through here: Put, Delete, Update and
// write batches, and payload compaction's relocations. The DB's closed
// flag is checked under the entry lock, so that no write starts after
// Close() passed that lock. So is the range map's version (range pools):
// a re-balance moves a key range between units under both units' locks,
// so a writer that placed its key on the map it still finds under its
// entry's lock writes to the right unit; one that finds another version
// writes nothing and reports that its key moved (the caller places the
// key again, with a new payload entry if it has one: entries are checked
// against the table hash).
//
// A write batch (WriteRecords) takes the locks of all its DRAM entries, in
// index order (no other writer holds more than one), gives each record its
// slot — on into the entry's next epochs if the batch brings it more
// records than it has room for —, appends all records with their commit
// to one log with one barrier, then inserts them, migrating an entry
// whenever it is full (write_path.cc).

#ifndef PLUSH_DB_WRITE_PATH_H_
#define PLUSH_DB_WRITE_PATH_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "db/background_work.h"
#include "db/unit_tails.h"
#include "log/recovery_log.h"
#include "plush/options.h"
#include "plush/status.h"
#include "table/leveled_table.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush {

static_assert(table::kMaxSlots <= 1u << log::kPositionBits,
              "a log record names its slot in its DRAM entry");

// Where a write puts its key: its table hash, and the range map version
// the hash was computed on (KeyHasher::version(), read before the hash);
// and the key, which a range pool notes in its unit's tail (absent for a
// write that adds no key: a relocation of a payload entry).
struct Placement {
  uint64_t hash = 0;
  uint64_t version = 0;
  std::optional<std::string_view> key;
  // The key word of an indirect slot of the key (KeyHasher::PlaceKey).
  uint64_t indirect_word = 0;
  // The record's expiry, 0 = none (LeveledTable::UnitExpiryBound): a
  // write that leaves it 0 keeps its unit from being cleared by expiry.
  uint64_t expires_at_ms = 0;
};

class WritePath {
 public:
  // `tails`: of a range pool that re-balances (else null), noted by every
  // write.
  WritePath(table::LeveledTable* table, log::RecoveryLogs* logs,
            BackgroundWork* background, UnitTails* tails,
            const std::atomic<bool>* closed)
      : table_(*table),
        logs_(*logs),
        background_(*background),
        tails_(tails),
        closed_(*closed) {}

  // Writes one slot at `placement`. `prepare(dram_index, &slot, &skip)`
  // runs under the DRAM entry's lock, before the record is logged: it
  // fills in the slot, or sets skip to write nothing; its error ends the
  // write. *moved: the range map changed since the placement; nothing was
  // written (and prepare did not run). *entry_size (if given): the DRAM
  // entry's size right after this write put its record there (each size is
  // reached by one write: what tells the writer that took the entry to a
  // mark), else 0.
  template <typename Prepare>
  Status Write(const WriteOptions& options, Placement placement,
               Prepare prepare, bool* moved, unsigned* entry_size = nullptr);

  // Write() of a slot known in advance.
  Status WriteSlot(const WriteOptions& options, Placement placement,
                   const table::Slot& slot, bool* moved,
                   unsigned* entry_size = nullptr) {
    return Write(
        options, placement,
        [&](uint64_t, table::Slot* out, bool*) {
          *out = slot;
          return Status::OK();
        },
        moved, entry_size);
  }

  // A record of a write batch: its slot, the table hash of its key, the
  // key, and its expiry (0 = none, as Placement's).
  struct Record {
    uint64_t hash;
    table::Slot slot;
    std::string_view key;
    uint64_t expires_at_ms = 0;
  };
  // Writes the records atomically (write_batch.h), in order: a later record
  // of a key wins. Logged: one persistence barrier (and the migrations of
  // the entries the batch fills); unlogged: none (and no atomicity across
  // crashes). Any number of records, wherever their keys fall.
  // `version`: of the range map the records' hashes were computed on;
  // *moved as for Write(). A logged batch that a failed migration (NoSpace)
  // leaves applied in part halts every later write (Halted()).
  Status WriteRecords(const WriteOptions& options,
                      const std::vector<Record>& records, uint64_t version,
                      bool* moved);

  // Runs `fn(dram_index)` under the DRAM entry's lock; InvalidArgument if
  // the DB was closed (checked under the lock).
  template <typename Fn>
  Status WithEntryLocked(uint64_t dram_index, Fn fn) {
    SpinLockRef lock = table_.DramLock(dram_index);
    lock.lock();
    Status s = closed() ? ClosedError() : fn(dram_index);
    lock.unlock();
    return s;
  }

  // DRAM entries a writer migrated because it found them full.
  uint64_t inline_migrations() const { return inline_migrations_.Read(); }

  static Status ClosedError() {
    return Status::InvalidArgument("the DB is closed");
  }

  // OK, or why every write is refused until the pool is opened again: a
  // logged batch committed to its log could not be inserted whole (a
  // migration on the way failed). A write to one of its keys would take a
  // slot before the rest of the batch's and lose to it on recovery.
  Status Halted() const EXCLUDES(halt_mu_);

 private:
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  // Under an entry's lock: why no write may start (closed, halted), or OK.
  Status Refusal() const {
    if (closed()) return ClosedError();
    if (halted_.load(std::memory_order_acquire)) return Halted();
    return Status::OK();
  }
  void Halt(const Status& cause) EXCLUDES(halt_mu_);
  struct BatchEntry;
  // Inserts a batch's records (its log append done), in order, migrating
  // an entry each time it is full. REQUIRES: the entries' locks.
  Status InsertRecords(const WriteOptions& options,
                       const std::vector<Record>& records,
                       const std::vector<BatchEntry>& entries,
                       const std::vector<uint32_t>& entry_of);
  // Under an entry's lock: the range map still has `version`.
  bool Placed(uint64_t version) const {
    return table_.hasher().version() == version;
  }

  table::LeveledTable& table_;
  log::RecoveryLogs& logs_;
  BackgroundWork& background_;
  UnitTails* const tails_;
  const std::atomic<bool>& closed_;
  ShardedCounter inline_migrations_;
  std::atomic<bool> halted_{false};
  mutable Mutex halt_mu_;
  Status halt_cause_ GUARDED_BY(halt_mu_);
};

template <typename Prepare>
Status WritePath::Write(const WriteOptions& options, Placement placement,
                        Prepare prepare, bool* moved,
                        unsigned* entry_size) {
  const uint64_t hash = placement.hash;
  const uint64_t d = table_.DramIndex(hash);
  *moved = false;
  if (entry_size != nullptr) *entry_size = 0;
  // Sync writes share a log: their syncs write back one page of it.
  const unsigned own_log = logs_.LogOf(d);
  const unsigned log = options.sync ? log::RecoveryLogs::kSyncLog : own_log;
  table_.PrefetchDram(hash);
  if (tails_ != nullptr && placement.key) tails_->Prefetch(d);
  bool split_tried = false;
  for (;;) {
    SpinLockRef lock = table_.DramLock(d);
    lock.lock();
    if (Status refused = Refusal(); !refused.ok()) {
      lock.unlock();
      return refused;
    }
    if (!Placed(placement.version)) {
      lock.unlock();
      *moved = true;
      return Status::OK();
    }
    table::Slot slot;
    bool skip = false;
    Status s = prepare(d, &slot, &skip);
    if (s.ok() && !skip && table_.DramFull(d)) {
      // (Another writer may be splitting it: the split waits for that.
      // Compaction's relocations, which carry no key, never split: they
      // run inside a compaction, which a split's copies must not wait for.)
      if (!split_tried && placement.key && background_.SplitDue(d, 1)) {
        split_tried = true;
        lock.unlock();
        background_.SplitIfDue(d, 1);
        continue;
      }
      s = table_.MigrateDram(d);
      inline_migrations_.Add(1);
    }
    if (!s.ok() || skip) {
      lock.unlock();
      return s;
    }
    // The slot's lines load while the log append waits for its fence.
    table_.PrefetchDramSlot(d);
    if (options.log) {
      const table::EntryState st = table_.DramState(d);
      const log::LogRecord record{slot.key,       slot.value,
                                  st.epoch,       slot.tombstone,
                                  slot.indirect,  static_cast<uint8_t>(st.size)};
      uint32_t chunk_seen = 0;
      if (!logs_.TryAppend(log, record, log != own_log, &chunk_seen,
                           options.sync || options.caller_syncs)) {
        // Rotating may migrate DRAM entries: never while holding a lock.
        lock.unlock();
        s = logs_.Rotate(log, chunk_seen);
        if (!s.ok()) return s;
        continue;
      }
    }
    const unsigned size =
        table_.InsertDram(d, hash, slot, options.log, placement.expires_at_ms);
    if (tails_ != nullptr && placement.key) tails_->Note(d, *placement.key);
    lock.unlock();
    if (entry_size != nullptr) *entry_size = size;
    if (size == background_.high_water()) background_.ScheduleMigration(d);
    return Status::OK();
  }
}

}  // namespace plush

#endif  // PLUSH_DB_WRITE_PATH_H_
