// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches: many records, one persistence barrier, all or nothing.

#include "db/write_path.h"

#include <algorithm>
#include <string>

namespace plush {

Status WritePath::WriteRecords(const WriteOptions& options,
                               const std::vector<Record>& records,
                               uint64_t version, bool* moved) {
  *moved = false;
  if (records.empty()) return Status::OK();
  if (options.log && records.size() > logs_.max_batch_records()) {
    return Status::InvalidArgument(
        "batch of " + std::to_string(records.size()) +
        " operations exceeds the " +
        std::to_string(logs_.max_batch_records()) +
        " that a recovery-log chunk of this pool holds");
  }
  // The batch's DRAM entries in lock order, and each record's entry.
  struct Entry {
    uint64_t dram_index;
    uint32_t records = 0;
    uint32_t next_position = 0;  // of the batch's next record in it
    uint64_t epoch = 0;
  };
  // One sort of (entry, record) pairs, packed into words, gives both.
  std::vector<uint64_t> by_entry(records.size());
  for (size_t i = 0; i < records.size(); ++i)
    by_entry[i] = table_.DramIndex(records[i].hash) << 32 | i;
  std::sort(by_entry.begin(), by_entry.end());
  std::vector<Entry> entries;
  entries.reserve(records.size());
  std::vector<uint32_t> entry_of(records.size());
  for (const uint64_t pair : by_entry) {
    const uint64_t d = pair >> 32;
    if (entries.empty() || entries.back().dram_index != d)
      entries.push_back({d});
    entry_of[pair & UINT32_MAX] = static_cast<uint32_t>(entries.size() - 1);
    // More than an entry holds would need a migration between the batch's
    // records, which would make part of the batch durable on its own.
    if (++entries.back().records > table_.capacity()) {
      return Status::InvalidArgument(
          "batch puts more than " + std::to_string(table_.capacity()) +
          " operations into one DRAM directory entry, which holds " +
          std::to_string(table_.capacity()) +
          " (keys of one partition: split the batch)");
    }
  }
  // The log of the first entry: the batch holds that entry's lock, which is
  // what a log waits for before it recycles a chunk (LogHost).
  const unsigned log = logs_.LogOf(entries[0].dram_index);
  std::vector<log::LogRecord> logged(options.log ? records.size() : 0);
  // A batch touches many entries: start every entry's cache misses at once
  // instead of one after the other (their lock and state lines now, their
  // slots' lines before the log append waits for its fence).
  for (const Record& r : records) table_.PrefetchDram(r.hash);
  if (tails_ != nullptr) {
    for (const Entry& e : entries) tails_->Prefetch(e.dram_index);
  }
  for (;;) {
    for (const Entry& e : entries) table_.DramLock(e.dram_index).lock();
    auto unlock_all = [&] {
      for (const Entry& e : entries) table_.DramLock(e.dram_index).unlock();
    };
    if (closed()) {
      unlock_all();
      return ClosedError();
    }
    if (!Placed(version)) {
      unlock_all();
      *moved = true;
      return Status::OK();
    }
    // Room first: migrating an entry's older records makes nothing of the
    // batch durable.
    for (Entry& e : entries) {
      if (table_.DramState(e.dram_index).size + e.records > table_.capacity()) {
        inline_migrations_.Add(1);
        Status s = table_.MigrateDram(e.dram_index);
        if (!s.ok()) {
          unlock_all();
          return s;
        }
      }
      const table::EntryState st = table_.DramState(e.dram_index);
      e.next_position = st.size;
      e.epoch = st.epoch;
    }
    for (size_t i = 0; i < records.size(); ++i) {
      Entry& e = entries[entry_of[i]];
      const table::Slot& slot = records[i].slot;
      table_.PrefetchDramSlotAt(e.dram_index, e.next_position);
      if (options.log) {
        logged[i] = {slot.key,       slot.value,     e.epoch, slot.tombstone,
                     slot.indirect, static_cast<uint8_t>(e.next_position)};
      }
      ++e.next_position;
    }
    if (options.log) {
      uint32_t chunk_seen = 0;
      if (!logs_.TryAppendBatch(log, logged.data(), logged.size(),
                                &chunk_seen)) {
        // Rotating may migrate DRAM entries: never while holding a lock.
        unlock_all();
        Status s = logs_.Rotate(log, chunk_seen);
        if (!s.ok()) return s;
        continue;
      }
    }
    for (size_t i = 0; i < records.size(); ++i) {
      const uint64_t d = entries[entry_of[i]].dram_index;
      table_.InsertDram(d, records[i].hash, records[i].slot, options.log);
      if (tails_ != nullptr) tails_->Note(d, records[i].key);
    }
    unlock_all();
    for (const Entry& e : entries) {
      const unsigned size = e.next_position;
      if (size >= background_.high_water() &&
          size - e.records < background_.high_water()) {
        background_.ScheduleMigration(e.dram_index);
      }
    }
    return Status::OK();
  }
}

}  // namespace plush
