// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/recovery.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace plush {

// A log record whose epoch is not above the epoch of its level-1 entry is
// already on PMem. Replay makes no migrations and writes no log entries,
// so recovery is idempotent.
Status RecoverDramLevel(table::LeveledTable* table, log::RecoveryLogs* logs,
                        const payload::PayloadLogs& payload, unsigned threads,
                        uint64_t* replayed) {
  const uint64_t entries = table->dram_entries();
  // The epochs of each DRAM entry's children, read once and in order: most
  // log records are decided by them alone. Only a record between the two
  // (a crash interrupted that entry's migration) needs its own child's
  // epoch, a random read. This keeps recovery independent of level 1's
  // size.
  std::vector<std::pair<uint64_t, uint64_t>> child_epochs(entries);
  for (uint64_t d = 0; d < entries; ++d)
    child_epochs[d] = table->ChildEpochRange(d);
  std::vector<uint64_t> max_replayed(entries, 0);
  auto replay = [&](unsigned, const log::LogRecord& r) -> Status {
    const uint64_t hash = table->HashOf(r.key, r.indirect);
    const uint64_t d = table->DramIndex(hash);
    const auto [min_child, max_child] = child_epochs[d];
    if (r.epoch <= min_child ||
        (r.epoch <= max_child && r.epoch <= table->FirstLevelEpoch(hash))) {
      return Status::OK();  // already on PMem
    }
    // A record whose payload entry is torn was in flight at the crash (its
    // log append and its payload entry share one fence), or its chunk was
    // compacted after a newer version was written: either way not the
    // key's current version.
    if (r.indirect && !payload.EntryIsIntact(r.value, r.key))
      return Status::OK();
    // Logs partition the DRAM entries, so each entry is touched by one
    // recovery thread only.
    max_replayed[d] = std::max(max_replayed[d], r.epoch);
    return table->RecoverIntoDram(d, hash,
                                  {r.key, r.value, r.tombstone, r.indirect});
  };
  Status s = logs->Recover(threads, replay, replayed);
  if (!s.ok()) return s;
  // A DRAM entry resumes above every epoch its children or its replayed
  // records carry: later log entries must not look migrated, and the next
  // migration must cover the replayed records.
  for (uint64_t d = 0; d < entries; ++d) {
    table->SetDramEpoch(d,
                        std::max(child_epochs[d].second + 1, max_replayed[d]));
  }
  return Status::OK();
}

}  // namespace plush
