// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/entry_rewriter.h"

#include <vector>

namespace plush {

// The survivors are logged before the entry changes: the batch holds them
// all or none, so a crash leaves either the entry's old records (still in
// the log: a chunk is freed only once its records' entries moved on) or
// its new ones, numbered in the next epoch, which recovery places after
// the old ones (write batches number across epochs the same way).
EntryRewriter::Result EntryRewriter::Rewrite(uint64_t d) {
  if (table_.DramHasUnlogged(d)) return Result::kNotWorthIt;
  const table::EntryState st = table_.DramState(d);
  // A sample first: an entry whose records are all live (new keys) shows
  // no superseded slot, and gathering its newest versions costs nearly
  // what migrating them does. (An entry a quarter superseded shows one in
  // nine samples out of ten.)
  constexpr unsigned kSample = 8;
  if (st.size >= 2 * kSample &&
      table_.SupersededInDramSample(d, kSample) == 0) {
    return Result::kNotWorthIt;
  }
  std::vector<table::Slot> slots;
  std::vector<uint64_t> hashes;
  // A damaged entry is left to the migration, which reports it.
  if (!table_.NewestInDram(d, &slots, &hashes).ok() || slots.empty() ||
      4 * slots.size() > 3 * st.size) {
    return Result::kNotWorthIt;
  }
  std::vector<log::LogRecord> records(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    records[i] = {slots[i].key,       slots[i].value,
                  st.epoch + 1,       slots[i].tombstone,
                  slots[i].indirect,  static_cast<uint8_t>(i)};
  }
  uint32_t chunk_seen = 0;
  if (!logs_.TryAppendBatch(logs_.LogOf(d), records.data(), records.size(),
                            log::BatchSpill::Lease(), /*foreign=*/false,
                            &chunk_seen)) {
    return Result::kNoRoom;
  }
  table_.RewriteDram(d, slots, hashes);
  rewrites_.Add(1);
  return Result::kRewritten;
}

}  // namespace plush
