// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches: many records, one persistence barrier, all or nothing.
//
// A batch numbers its records' slots before it writes anything: the j-th
// record (from 0) for a DRAM entry that holds s records at epoch E takes
// slot t = s + j, that is position t mod capacity of epoch E + t /
// capacity. A migration advances an entry's epoch by one, so these are the
// slots the records take when the batch inserts them, migrating the entry
// each time it is full. The log holds the whole batch with its commit
// before the first insert: those migrations move committed records only
// (and older ones), and recovery, which orders an entry's records by
// (epoch, position), places them as the batch did (recovery.cc).
//
// An entry whose share of the batch fits it migrates before the batch is
// logged if it lacks room, as for a single write: a failure (NoSpace) then
// leaves nothing of the batch, and the DB goes on. Only a share larger
// than the entry migrates it after the commit, where a failure leaves the
// batch committed but not inserted whole (WritePath::Halted).

#include "db/write_path.h"

#include <algorithm>
#include <string>

namespace plush {

// A DRAM entry the batch writes to.
struct WritePath::BatchEntry {
  uint64_t dram_index;
  uint32_t records = 0;     // of the batch
  uint32_t first_slot = 0;  // the entry's size when the batch numbered its slots
  // The slot of the batch's next record in it.
  uint64_t next_epoch = 0;
  uint32_t next_position = 0;
};

Status WritePath::Halted() const {
  // Every write asks: no lock unless a batch halted the writes (Halt()
  // sets the cause before the flag).
  if (!halted_.load(std::memory_order_acquire)) return Status::OK();
  MutexLock lock(&halt_mu_);
  return halt_cause_;
}

void WritePath::Halt(const Status& cause) {
  MutexLock lock(&halt_mu_);
  if (!halt_cause_.ok()) return;
  halt_cause_ = cause.WithContext(
      "a write batch in the recovery log could not be applied whole (writes "
      "are refused until the pool is opened again, which applies it)");
  halted_.store(true, std::memory_order_release);
}

Status WritePath::WriteRecords(const WriteOptions& options,
                               const std::vector<Record>& records,
                               uint64_t version, bool* moved) {
  *moved = false;
  if (records.empty()) return Status::OK();
  // The batch's DRAM entries in lock order, and each record's entry: one
  // sort of (entry, record) pairs, packed into words, gives both.
  std::vector<uint64_t> by_entry(records.size());
  for (size_t i = 0; i < records.size(); ++i)
    by_entry[i] = table_.DramIndex(records[i].hash) << 32 | i;
  std::sort(by_entry.begin(), by_entry.end());
  std::vector<BatchEntry> entries;
  std::vector<uint32_t> entry_of(records.size());
  for (const uint64_t pair : by_entry) {
    const uint64_t d = pair >> 32;
    if (entries.empty() || entries.back().dram_index != d)
      entries.push_back({d});
    ++entries.back().records;
    entry_of[pair & UINT32_MAX] = static_cast<uint32_t>(entries.size() - 1);
  }
  // The log of the first entry: the batch holds that entry's lock, which is
  // what a log waits for before it recycles a chunk (LogHost); sync
  // batches share the sync log (RecoveryLogs::kSyncLog), as single sync
  // writes do.
  const unsigned own_log = logs_.LogOf(entries[0].dram_index);
  const unsigned log = options.sync ? log::RecoveryLogs::kSyncLog : own_log;
  // A logged batch that a log chunk cannot hold keeps its members in the
  // spill area: it holds the area from before it locks its entries
  // (freeing the area may migrate entries) until it has inserted them.
  const bool spills = options.log && !logs_.FitsOneChunk(records.size());
  std::vector<log::LogRecord> logged(options.log ? records.size() : 0);
  // A batch touches many entries: start every entry's cache misses at once
  // instead of one after the other (their lock and state lines now, their
  // slots' lines before the log append waits for its fence).
  for (const Record& r : records) table_.PrefetchDram(r.hash);
  if (tails_ != nullptr) {
    for (const BatchEntry& e : entries) tails_->Prefetch(e.dram_index);
  }
  const unsigned capacity = table_.capacity();
  // Whether entry `e` cannot take the batch's records without migrating.
  auto overflows = [&](const BatchEntry& e) {
    return e.records <= capacity &&
           table_.DramState(e.dram_index).size + e.records > capacity;
  };
  bool split_tried = false;
  for (;;) {
    log::BatchSpill::Lease spill;
    if (spills) {
      Status s = logs_.spill().Acquire(records.size(), &spill);
      if (!s.ok()) return s;
    }
    for (const BatchEntry& e : entries) table_.DramLock(e.dram_index).lock();
    auto unlock_all = [&] {
      for (const BatchEntry& e : entries)
        table_.DramLock(e.dram_index).unlock();
    };
    if (Status refused = Refusal(); !refused.ok()) {
      unlock_all();
      return refused;
    }
    if (!Placed(version)) {
      unlock_all();
      *moved = true;
      return Status::OK();
    }
    // Units due a split are split first, as for single writes
    // (write_path.h, step 3).
    std::vector<const BatchEntry*> splits;
    for (const BatchEntry& e : entries) {
      if (!split_tried && overflows(e) &&
          background_.SplitDue(e.dram_index, e.records)) {
        splits.push_back(&e);
      }
    }
    if (!splits.empty()) {
      split_tried = true;
      unlock_all();
      spill.Release();
      for (const BatchEntry* e : splits)
        background_.SplitIfDue(e->dram_index, e->records);
      continue;
    }
    for (BatchEntry& e : entries) {
      if (overflows(e)) {
        inline_migrations_.Add(1);
        Status s = table_.MigrateDram(e.dram_index);
        if (!s.ok()) {
          unlock_all();
          return s;
        }
      }
      const table::EntryState st = table_.DramState(e.dram_index);
      e.first_slot = e.next_position = st.size;
      e.next_epoch = st.epoch;
    }
    for (size_t i = 0; i < records.size(); ++i) {
      BatchEntry& e = entries[entry_of[i]];
      if (e.next_position == capacity) {  // the entry will have migrated
        e.next_position = 0;
        ++e.next_epoch;
      }
      table_.PrefetchDramSlotAt(e.dram_index, e.next_position);
      if (options.log) {
        const table::Slot& slot = records[i].slot;
        logged[i] = {slot.key,       slot.value,     e.next_epoch,
                     slot.tombstone, slot.indirect,
                     static_cast<uint8_t>(e.next_position)};
      }
      ++e.next_position;
    }
    if (options.log) {
      uint32_t chunk_seen = 0;
      if (!logs_.TryAppendBatch(log, logged.data(), logged.size(), spill,
                                log != own_log, &chunk_seen,
                                options.sync || options.caller_syncs)) {
        // Rotating may migrate DRAM entries and free the spill area: never
        // while holding a lock or the area.
        unlock_all();
        spill.Release();
        Status s = logs_.Rotate(log, chunk_seen);
        if (!s.ok()) return s;
        continue;
      }
    }
    Status s = InsertRecords(options, records, entries, entry_of);
    unlock_all();
    if (!s.ok()) {
      if (options.log) Halt(s);
      return options.log ? Halted() : s;
    }
    for (const BatchEntry& e : entries) {
      // Whether the entry reached the high-water mark during this batch
      // (since the batch began, or in an epoch it began).
      const uint32_t size = e.next_position;
      if (size >= background_.high_water() &&
          (e.first_slot + e.records > capacity ||
           e.first_slot < background_.high_water())) {
        background_.ScheduleMigration(e.dram_index);
      }
    }
    return Status::OK();
  }
}

Status WritePath::InsertRecords(const WriteOptions& options,
                                const std::vector<Record>& records,
                                const std::vector<BatchEntry>& entries,
                                const std::vector<uint32_t>& entry_of) {
  for (size_t i = 0; i < records.size(); ++i) {
    const uint64_t d = entries[entry_of[i]].dram_index;
    if (table_.DramFull(d)) {
      inline_migrations_.Add(1);
      Status s = table_.MigrateDram(d);
      if (!s.ok()) return s;
    }
    table_.InsertDram(d, records[i].hash, records[i].slot, options.log,
                      records[i].expires_at_ms);
    if (tails_ != nullptr) tails_->Note(d, records[i].key);
  }
  return Status::OK();
}

}  // namespace plush
