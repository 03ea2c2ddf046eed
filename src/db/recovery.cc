// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Recovery in two phases:
//
//   1. read   every log in parallel (one thread per log partition) and keep
//             the records that are not on PMem yet. Reads only: a pool whose
//             logs are damaged fails here, untouched.
//   2. place  group the kept records by DRAM entry, order each group by
//             (epoch, position) — the order in which the records entered
//             their DRAM entry, whichever log they were written to (a write
//             batch puts all its records in one log) — check that every
//             group fits its entry, and that the subtree of every entry
//             that must migrate is sound, then append them.
//
// An entry's kept records fit it, except after a crash in a write batch
// that filled the entry more than once (write_path.cc): its records
// numbered for later epochs were committed but not all inserted yet. The
// entry then migrates, as the batch would have, before the first record of
// an epoch that would overflow it: the only case in which recovery writes
// to the pool (a migration, which a crash may cut short as ever: the
// records are still in the logs).

#include "db/recovery.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "util/parallel.h"

namespace plush {
namespace {

// A record that phase 2 appends to its DRAM entry.
struct Kept {
  uint64_t dram_index;
  uint64_t hash;
  uint64_t epoch;
  uint32_t position;
  table::Slot slot;
};

// Appends the kept records of DRAM entry `d`, ordered by (epoch, position),
// and sets its epoch. `max_child`: the largest epoch of its children.
// Without `apply`, only checks that they can be placed (Corruption
// otherwise), writing nothing: recovery checks every entry before it
// writes to any, so that logs it rejects leave the pool as it was.
Status PlaceEntry(table::LeveledTable* table, uint64_t d, uint64_t max_child,
                  std::span<const Kept* const> records, bool apply) {
  const unsigned capacity = table->capacity();
  uint64_t placed_epoch = 0;  // of the records placed last
  unsigned size = 0;
  for (auto run = records.begin(); run != records.end();) {
    const uint64_t epoch = (*run)->epoch;
    const auto run_end = std::find_if(
        run, records.end(), [&](const Kept* k) { return k->epoch != epoch; });
    const auto count = static_cast<uint64_t>(run_end - run);
    if (count > capacity) {
      return Status::Corruption(
          "recovery logs hold " + std::to_string(count) +
          " records of epoch " + std::to_string(epoch) + " for DRAM entry " +
          std::to_string(d) + ", which holds " + std::to_string(capacity));
    }
    if (size + count > capacity) {
      // The records placed so far reach PMem under an epoch that covers
      // them and their children's, and none of the records to come.
      const uint64_t migration_epoch = std::max(placed_epoch, max_child);
      if (migration_epoch >= epoch) {
        return Status::Corruption(
            "recovery logs hold more unmigrated records for DRAM entry " +
            std::to_string(d) + " than it holds, in epoch " +
            std::to_string(epoch) + " of a migrated entry");
      }
      if (!apply) {
        Status s = table->CheckSubtreeMigratable(d);
        if (!s.ok()) {
          return s.WithContext("recovering DRAM entry " + std::to_string(d));
        }
      } else {
        table->SetDramEpoch(d, migration_epoch);
        SpinLockRef lock = table->DramLock(d);
        lock.lock();
        Status s = table->MigrateDram(d);
        lock.unlock();
        if (!s.ok()) {
          return s.WithContext("recovering DRAM entry " + std::to_string(d));
        }
      }
      max_child = migration_epoch;
      size = 0;
    }
    for (; apply && run != run_end; ++run) {
      table->RecoverIntoDram(d, (*run)->hash, (*run)->slot);
    }
    run = run_end;
    size += static_cast<unsigned>(count);
    placed_epoch = epoch;
  }
  // A DRAM entry resumes above every epoch its children or its replayed
  // records carry: later log entries must not look migrated, and the next
  // migration must cover the replayed records.
  if (apply) table->SetDramEpoch(d, std::max(max_child + 1, placed_epoch));
  return Status::OK();
}

}  // namespace

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

  // Phase 1.
  std::vector<std::vector<Kept>> kept(logs->log_count());
  auto keep = [&](unsigned log, const log::LogRecord& r) -> Status {
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
    if (r.indirect && !payload.EntryIsIntact(r.value, hash))
      return Status::OK();
    kept[log].push_back({d, hash, r.epoch, r.position,
                         {r.key, r.value, r.tombstone, r.indirect}});
    return Status::OK();
  };
  Status s = logs->Recover(threads, keep, replayed);
  if (!s.ok()) return s;

  // Phase 2: a counting sort by DRAM entry keeps each log's order (the
  // stable sort by epoch and position below keeps it among equals).
  std::vector<uint64_t> first(entries + 1, 0);
  for (const auto& records : kept) {
    for (const Kept& k : records) ++first[k.dram_index + 1];
  }
  for (uint64_t d = 0; d < entries; ++d) first[d + 1] += first[d];
  std::vector<const Kept*> order(first[entries]);
  {
    std::vector<uint64_t> next(first.begin(), first.end() - 1);
    for (const auto& records : kept) {
      for (const Kept& k : records) order[next[k.dram_index]++] = &k;
    }
  }
  auto group = [&](uint64_t d) {
    return std::span(order.begin() + static_cast<ptrdiff_t>(first[d]),
                     order.begin() + static_cast<ptrdiff_t>(first[d + 1]));
  };
  auto check = [&](uint64_t begin, uint64_t end) -> Status {
    for (uint64_t d = begin; d < end; ++d) {
      const auto records = group(d);
      std::stable_sort(records.begin(), records.end(),
                       [](const Kept* a, const Kept* b) {
                         return a->epoch != b->epoch ? a->epoch < b->epoch
                                                     : a->position < b->position;
                       });
      Status checked = PlaceEntry(table, d, child_epochs[d].second, records,
                                  /*apply=*/false);
      if (!checked.ok()) return checked;
    }
    return Status::OK();
  };
  s = ForEachRange(entries, threads, check);
  if (!s.ok()) return s;
  auto place = [&](uint64_t begin, uint64_t end) -> Status {
    for (uint64_t d = begin; d < end; ++d) {
      Status placed = PlaceEntry(table, d, child_epochs[d].second, group(d),
                                 /*apply=*/true);
      if (!placed.ok()) return placed;
    }
    return Status::OK();
  };
  return ForEachRange(entries, threads, place);
}

}  // namespace plush
