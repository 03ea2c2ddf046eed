// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches: many records, one persistence barrier, all or nothing.

#include "db/write_path.h"

#include <algorithm>
#include <string>

namespace plush {

void WritePath::LockAll(const std::vector<uint64_t>& entries) {
  for (uint64_t d : entries) table_.DramLock(d).lock();
}

void WritePath::UnlockAll(const std::vector<uint64_t>& entries) {
  for (uint64_t d : entries) table_.DramLock(d).unlock();
}

Status WritePath::WriteRecords(const WriteOptions& options,
                               const std::vector<Record>& records) {
  if (records.empty()) return Status::OK();
  if (options.log && records.size() > logs_.max_batch_records()) {
    return Status::InvalidArgument(
        "batch of " + std::to_string(records.size()) +
        " operations exceeds the " +
        std::to_string(logs_.max_batch_records()) +
        " that a recovery-log chunk of this pool holds");
  }
  // The DRAM entries, in lock order, and how many records each receives.
  std::vector<uint64_t> entries;
  entries.reserve(records.size());
  for (const Record& r : records) entries.push_back(table_.DramIndex(r.hash));
  std::sort(entries.begin(), entries.end());
  std::vector<uint32_t> counts;
  {
    std::vector<uint64_t> unique;
    for (size_t i = 0; i < entries.size();) {
      size_t j = i;
      while (j < entries.size() && entries[j] == entries[i]) ++j;
      unique.push_back(entries[i]);
      counts.push_back(static_cast<uint32_t>(j - i));
      i = j;
    }
    entries.swap(unique);
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    // More than an entry holds would need a migration between the batch's
    // records, which would make part of the batch durable on its own.
    if (counts[e] > table_.capacity()) {
      return Status::InvalidArgument(
          "batch puts " + std::to_string(counts[e]) +
          " operations into one DRAM directory entry, which holds " +
          std::to_string(table_.capacity()) +
          " (keys of one partition: split the batch)");
    }
  }
  auto index_of = [&](uint64_t d) {
    return static_cast<size_t>(
        std::lower_bound(entries.begin(), entries.end(), d) - entries.begin());
  };
  // The log of the first entry: the batch holds that entry's lock, which is
  // what a log waits for before it recycles a chunk (LogHost).
  const unsigned log = static_cast<unsigned>(entries[0] % logs_.log_count());
  std::vector<log::LogRecord> logged(options.log ? records.size() : 0);
  std::vector<uint32_t> next_position(entries.size());
  for (;;) {
    LockAll(entries);
    if (closed()) {
      UnlockAll(entries);
      return ClosedError();
    }
    // Room first: migrating an entry's older records makes nothing of the
    // batch durable.
    for (size_t e = 0; e < entries.size(); ++e) {
      const uint64_t d = entries[e];
      if (table_.DramState(d).size + counts[e] > table_.capacity()) {
        Status s = table_.MigrateDram(d);
        if (!s.ok()) {
          UnlockAll(entries);
          return s;
        }
      }
      next_position[e] = table_.DramState(d).size;
    }
    if (options.log) {
      for (size_t i = 0; i < records.size(); ++i) {
        const Record& r = records[i];
        const uint64_t d = table_.DramIndex(r.hash);
        logged[i] = {r.slot.key,
                     r.slot.value,
                     table_.DramState(d).epoch,
                     r.slot.tombstone,
                     r.slot.indirect,
                     static_cast<uint8_t>(next_position[index_of(d)]++)};
      }
      uint32_t chunk_seen = 0;
      if (!logs_.TryAppendBatch(log, logged.data(), logged.size(),
                                &chunk_seen)) {
        // Rotating may migrate DRAM entries: never while holding a lock.
        UnlockAll(entries);
        Status s = logs_.Rotate(log, chunk_seen);
        if (!s.ok()) return s;
        continue;
      }
    }
    for (const Record& r : records) {
      table_.InsertDram(table_.DramIndex(r.hash), r.hash, r.slot, options.log);
    }
    UnlockAll(entries);
    return Status::OK();
  }
}

}  // namespace plush
