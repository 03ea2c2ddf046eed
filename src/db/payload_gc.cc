// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/payload_gc.h"

#include <algorithm>
#include <array>

#include "placement/placed.h"

namespace plush {

// The lookups run in groups, as MultiGet's do: a compaction examines a
// whole chunk, one lookup per entry, and their misses then overlap.
void PayloadGc::ClassifyReachability(std::span<const Candidate> entries,
                                     Reachability* out) {
  constexpr size_t kGroup = 64;
  std::array<table::LookupKey, kGroup> keys;
  std::array<table::Slot, kGroup> slots;
  std::array<table::Found, kGroup> found;
  for (size_t first = 0; first < entries.size(); first += kGroup) {
    const size_t m = std::min(kGroup, entries.size() - first);
    for (size_t i = 0; i < m; ++i) {
      const Candidate& e = entries[first + i];
      keys[i] = table::LookupKey::For(e.key, e.key_hash);
    }
    table_.MultiLookup(keys.data(), m, slots.data(), found.data());
    for (size_t i = 0; i < m; ++i) {
      const uint64_t ref = entries[first + i].ref;
      if (found[i] != table::Found::kAbsent && slots[i].indirect &&
          slots[i].value == ref) {
        out[first + i] = Reachability::kReachable;
      } else {
        out[first + i] = IsNewestDurable(keys[i], ref)
                             ? Reachability::kBlocked
                             : Reachability::kUnreachable;
      }
    }
  }
}

// A version shadowed only by unlogged ones is what a crash would bring
// back: it must stay until a checkpoint makes those durable. (The DRAM
// entry's unlogged flags are set before its slots are published and
// cleared only with the whole entry, so the lookup sees them consistently.)
bool PayloadGc::IsNewestDurable(const table::LookupKey& lookup,
                                uint64_t ref) const {
  if (!table_.DramHasUnlogged(table_.DramIndex(lookup.hash))) return false;
  table::Slot slot;
  const table::Found f = table_.Lookup(lookup, &slot, /*durable_only=*/true);
  return f != table::Found::kAbsent && slot.indirect && slot.value == ref;
}

// Relocation is a write of the record's current version, under its DRAM
// entry's lock: nothing can overtake it, and like any logged write it
// survives a crash before the compacted chunk is freed. An entry written
// for a unit its key no longer lies in (`key_hash` is the table hash it
// was written with) is no key's current version: a re-balance gave the
// key's records new entries in the unit it moved them to. A re-balance
// elsewhere in the map only makes the write place the key again: a
// compaction takes long enough that one usually comes in between, and
// giving up then would keep the whole chunk.
//
// The compaction makes its relocations durable itself, with the barrier
// before it frees the chunk (PayloadLogs): until then the old entries are
// where their old log records point, and a relocation a power failure
// loses costs nothing. So a relocation leaves its barrier to that one
// (WriteOptions::caller_syncs), which in a power-fail-safe pool saves an
// msync per relocated entry.
Status PayloadGc::Relocate(const Candidate& entry, const CopyFn& copy,
                           Relocation* result) {
  const std::string_view key = entry.key;
  const uint64_t key_hash = entry.key_hash;
  const uint64_t ref = entry.ref;
  WriteOptions logged;
  logged.log = true;
  logged.caller_syncs = true;
  return Placed(table_.hasher(), [&](uint64_t version, bool* moved) {
    *result = Relocation::kUnreachable;
    if (table_.hasher().Hash(key) != key_hash) return Status::OK();
    Placement placement;
    placement.hash = key_hash;
    placement.version = version;
    placement.expires_at_ms = entry.expires_at_ms;  // the copy keeps it
    return write_path_.Write(
        logged, placement,
        [&](uint64_t d, table::Slot* slot, bool* skip) -> Status {
          *skip = true;
          const table::LookupKey lookup = table::LookupKey::For(key, key_hash);
          auto not_moved = [&] {
            *result = IsNewestDurable(lookup, ref) ? Relocation::kBlocked
                                                   : Relocation::kUnreachable;
            return Status::OK();
          };
          table::Slot current;
          auto yields_ref = [&] {
            return table_.Lookup(lookup, &current) != table::Found::kAbsent &&
                   current.indirect && current.value == ref;
          };
          if (!yields_ref()) return not_moved();
          // Every record of the unit expired, the versions this one hides
          // too: none needs a copy to keep hiding anything.
          if (entry.expired && table_.UnitExpiredAt(d, clock_.NowMs())) {
            const Status c = table_.ClearExpiredUnit(d);
            return c.ok() ? not_moved() : c;
          }
          if (entry.expired &&
              rewriter_.Rewrite(d, /*sample=*/true).result ==
                  EntryRewriter::Result::kRewritten &&
              !yields_ref()) {
            return not_moved();
          }
          uint64_t moved_ref = 0;
          const Status c = copy(&moved_ref);
          if (c.IsNotFound()) return not_moved();
          if (!c.ok()) return c;
          // (The current slot's key word: the hash and, in a pool with
          // fingerprints, the key's.)
          *slot = {current.key, moved_ref, current.tombstone, true};
          *skip = false;
          *result = Relocation::kMoved;
          return Status::OK();
        },
        moved);
  });
}

}  // namespace plush
