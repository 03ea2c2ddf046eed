// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/entry_rewriter.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace plush {

// The survivors are logged before the entry changes: the batch holds them
// all or none, so a crash leaves either the entry's old records (still in
// the log: a chunk is freed only once its records' entries moved on) or
// its new ones, numbered in the next epoch, which recovery places after
// the old ones (write batches number across epochs the same way).
//
// A tombstone that hides nothing on the PMem levels (a delete, or an
// expired record) is left out of the batch. Its key's older records in
// the logs would come back if replayed without it, so before the entry
// changes, its epoch is retired on level 1 (RetireDramEpochs): recovery
// then replays none of its records up to that epoch, only the batch.
EntryRewriter::Outcome EntryRewriter::Rewrite(uint64_t d, bool sample) {
  Group group(this);
  const Outcome outcome = group.Add(d, sample);
  group.Commit();
  return outcome;
}

// The survivors' barrier is left to the first of RetireDramEpochs (their
// append's writer syncs, in Media's terms, before anything depends on
// it), so that the entries of a group share it.
EntryRewriter::Outcome EntryRewriter::Group::Add(uint64_t d, bool sample) {
  constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  table::LeveledTable& leveled = rewriter_.table_;
  log::RecoveryLogs& logs = rewriter_.logs_;
  const table::EntryState st = leveled.DramState(d);
  if (st.size == 0 || leveled.DramHasUnlogged(d))
    return {Result::kNotWorthIt, kNever};
  // A sample first: an entry whose records are all live (new keys) shows
  // no superseded slot, and gathering its newest versions costs nearly
  // what migrating them does. (An entry a quarter superseded shows one in
  // nine samples out of ten.)
  constexpr unsigned kSample = 8;
  if (sample && st.size >= 2 * kSample &&
      leveled.DroppableInDramSample(d, kSample) == 0) {
    return {Result::kNotWorthIt, kNever};
  }
  std::vector<table::Slot> slots;
  std::vector<uint64_t> hashes;
  std::vector<uint64_t> expiries;
  // A damaged entry is left to the migration, which reports it.
  if (!leveled.NewestInDram(d, &slots, &hashes, &expiries).ok())
    return {Result::kNotWorthIt, kNever};
  size_t kept = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].tombstone &&
        leveled.HidesNothingBelowDram(d, slots[i], hashes[i])) {
      continue;
    }
    slots[kept] = slots[i];
    hashes[kept] = hashes[i];
    expiries[kept] = slots[i].tombstone ? 0 : expiries[i];
    ++kept;
  }
  slots.resize(kept);
  hashes.resize(kept);
  expiries.resize(kept);
  const uint64_t now_ms = rewriter_.clock_.NowMs();
  if (4 * kept > 3 * st.size) {
    return {Result::kNotWorthIt, DueWhenWorthIt(expiries, st.size, now_ms)};
  }
  // Level 1 first: retiring the epoch may not fail once the batch is in.
  if (!leveled.EnsureFirstLevel().ok()) return {Result::kNotWorthIt, kNever};
  if (kept > 0) {
    std::vector<log::LogRecord> records(kept);
    for (size_t i = 0; i < kept; ++i) {
      records[i] = {slots[i].key,       slots[i].value,
                    st.epoch + 1,       slots[i].tombstone,
                    slots[i].indirect,  static_cast<uint8_t>(i)};
    }
    uint32_t chunk_seen = 0;
    if (!logs.TryAppendBatch(logs.LogOf(d), records.data(), records.size(),
                             log::BatchSpill::Lease(), /*foreign=*/false,
                             &chunk_seen, /*writer_syncs=*/true)) {
      return {Result::kNoRoom, kNever, chunk_seen};
    }
  }
  const uint64_t due_ms = DueWhenWorthIt(expiries, kept, now_ms);
  added_.push_back({d, st.epoch, std::move(slots), std::move(hashes)});
  return {Result::kRewritten, due_ms};
}

void EntryRewriter::Group::Commit() {
  if (added_.empty()) return;
  std::vector<table::LeveledTable::RetiredEpoch> retired;
  retired.reserve(added_.size());
  for (const Survivors& s : added_) retired.push_back({s.d, s.epoch});
  // The entries' records of their epochs and earlier are no longer needed:
  // they are logged again, or dropped (and replayed, a dropped tombstone's
  // older versions would come back). Retired, recovery does not replay
  // them beside the rewritten ones, which together may hold more records
  // than the entry, and then overflow it: a migration of the rewritten
  // records that a crash cut short leaves children of the next epoch, and
  // no epoch in between left for recovery to migrate the older ones under.
  rewriter_.table_.RetireDramEpochs(retired);
  for (const Survivors& s : added_) {
    rewriter_.table_.RewriteDram(s.d, s.slots, s.hashes);
  }
  rewriter_.rewrites_.Add(added_.size());
  added_.clear();
}

// When enough of an entry of `size` records will have expired that a
// rewrite pays (a quarter), judging by the expiries of its records still
// there: the expiry of the record that makes it a quarter.
uint64_t EntryRewriter::DueWhenWorthIt(std::vector<uint64_t> expiries,
                                       uint64_t size, uint64_t now_ms) {
  std::erase_if(expiries, [&](uint64_t t) { return t == 0 || t < now_ms; });
  const uint64_t needed = std::max<uint64_t>(1, (size + 3) / 4);
  if (needed > expiries.size()) return std::numeric_limits<uint64_t>::max();
  std::nth_element(expiries.begin(), expiries.begin() + (needed - 1),
                   expiries.end());
  return expiries[needed - 1];
}

}  // namespace plush
