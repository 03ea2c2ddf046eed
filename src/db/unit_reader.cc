// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/unit_reader.h"

#include <string>
#include <vector>

#include "util/key_hasher.h"

namespace plush {

// Under the DRAM entry's lock nothing moves in its subtree, and a payload
// entry that one of its slots references stays readable unless a newer
// version of the same key (then also in the subtree) superseded it and its
// chunk was compacted: such a dangling slot is simply left out. The lock
// is held while payloads are copied, so that no newest version can become
// dangling meanwhile (compaction relocates a key's newest version under
// the same lock).
Status UnitReader::ReadUnit(uint64_t unit, std::string_view lower_bound,
                            ScanBatch* batch) {
  thread_local std::vector<table::Slot> slots;
  thread_local std::string key;
  thread_local std::string value;
  slots.clear();
  // Most keys are told from the bound by their first 16 bytes alone (the
  // first 8 alone often do not: "user:000…").
  auto second_word = [](std::string_view k) {
    return KeyPrefix(k.size() > 8 ? k.substr(8) : std::string_view());
  };
  const uint64_t bound_first = KeyPrefix(lower_bound);
  const uint64_t bound_second = second_word(lower_bound);
  auto at_or_above_bound = [&](std::string_view k) {
    const uint64_t first = KeyPrefix(k);
    if (first != bound_first) return first > bound_first;
    const uint64_t second = second_word(k);
    return second != bound_second ? second > bound_second : k >= lower_bound;
  };
  // Payload entries are scattered over the payload logs: their misses
  // overlap when the entries are asked for this many slots ahead.
  constexpr size_t kPrefetchDistance = 16;
  auto prefetch = [&](size_t i) {
    if (i < slots.size() && slots[i].indirect)
      payload_.PrefetchEntry(slots[i].value);
  };
  return write_path_.WithEntryLocked(unit, [&](uint64_t) {
    Status s = table_.CollectSubtree(unit, &slots);
    for (size_t i = 0; i < kPrefetchDistance; ++i) prefetch(i);
    for (size_t i = 0; s.ok() && i < slots.size(); ++i) {
      prefetch(i + kPrefetchDistance);
      const table::Slot& slot = slots[i];
      if (!slot.indirect) {
        const std::string_view inline_key(
            reinterpret_cast<const char*>(&slot.key), 8);
        if (at_or_above_bound(inline_key)) {
          batch->Add(inline_key,
                     std::string_view(
                         reinterpret_cast<const char*>(&slot.value),
                         slot.tombstone ? 0 : 8),
                     slot.tombstone);
        }
      } else if (payload_.ReadEntry(slot.value, &key, &value) &&
                 at_or_above_bound(key)) {
        batch->Add(key, value, slot.tombstone);
      }
    }
    return s;
  });
}

}  // namespace plush
