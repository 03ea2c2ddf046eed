// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/unit_reader.h"

#include <algorithm>
#include <string>
#include <vector>

#include "db/slot_prefetch.h"
#include "placement/key_fingerprint.h"
#include "placement/key_hasher.h"
#include "placement/placed.h"
#include "util/key_prefix.h"

namespace plush {
namespace {

// A bound that every key of a unit is compared with. Most keys are told
// from it by their first 16 bytes alone, as two words (the first 8 alone
// often do not: "user:000…").
class KeyBound {
 public:
  explicit KeyBound(std::string_view key)
      : key_(key), first_(KeyPrefix(key)), second_(KeySecondWord(key)) {}

  // Whether the bound is above `k`.
  bool IsAbove(std::string_view k) const {
    const uint64_t first = KeyPrefix(k);
    if (first != first_) return first < first_;
    const uint64_t second = KeySecondWord(k);
    if (second != second_) return second < second_;
    return k < key_;
  }

 private:
  std::string_view key_;
  uint64_t first_;
  uint64_t second_;
};

}  // namespace

Status UnitReader::ReadUnit(uint64_t unit, ScanBatch* batch) {
  return write_path_.WithEntryLocked(unit, [&](uint64_t) {
    std::optional<std::string> no_upper;
    return CollectLocked(unit, {}, std::nullopt, 0, &no_upper, batch);
  });
}

// The unit of `from` is read under its lock, if the map did not change
// between placing `from` and taking the lock: a unit's range changes only
// under its lock, so it then holds `from`'s range for as long as the read
// takes. (Placing `from` also tells where its range ends: no lock on the
// map, which concurrent scans would all take.)
Status UnitReader::ReadRange(std::string_view from,
                             std::optional<std::string_view> stop,
                             size_t want, ScanBatch* batch,
                             std::optional<std::string>* upper) {
  const KeyHasher& hasher = table_.hasher();
  std::string lower;
  return Placed(hasher, [&](uint64_t version, bool* moved) {
    const uint64_t unit = Place(from, upper, &lower);
    // (Fingerprints then leave out the slots above the stop unread.)
    if (stop && (!*upper || **upper > *stop)) *upper = std::string(*stop);
    return write_path_.WithEntryLocked(unit, [&](uint64_t) {
      *moved = !hasher.Unchanged(version);
      if (*moved) return Status::OK();
      return CollectLocked(unit, from, lower, want, upper, batch);
    });
  });
}

uint64_t UnitReader::PositionOf(std::string_view key) {
  return table_.hasher().map()->PositionOf(key);
}

std::optional<std::string> UnitReader::RangeStart(uint64_t position) {
  return table_.hasher().map()->PositionStart(position);
}

uint64_t UnitReader::Place(std::string_view key,
                           std::optional<std::string>* upper,
                           std::string* lower) const {
  upper->reset();
  lower->clear();
  const std::string* end = nullptr;
  const std::string* begin = nullptr;
  const uint64_t unit = table_.hasher().map()->UnitOf(key, &end, &begin);
  if (end != nullptr) *upper = *end;
  if (begin != nullptr) *lower = *begin;
  return unit;
}

// A slot written on another unit (a log record that recovery placed here
// by the map it found) has a fingerprint on another range's lower bound:
// it is read.
void UnitReader::SelectByFingerprint(uint64_t unit,
                                     std::string_view range_lower,
                                     std::string_view from, size_t want,
                                     std::optional<std::string>* upper,
                                     std::vector<table::Slot>* slots) const {
  const uint64_t unit_bits = table_.dram_entries() - 1;
  // Keeps the slots the filter keeps, and the key words of those that
  // have fingerprints in `words`.
  thread_local std::vector<uint64_t> words;
  auto leave_out = [&](const std::optional<std::string>& end) {
    const fingerprint::Filter filter(
        range_lower, from,
        end ? std::optional<std::string_view>(*end) : std::nullopt);
    size_t kept = 0;
    words.resize(slots->size());
    size_t fingerprinted = 0;
    // (Without branches: which slots go is as good as random.)
    for (const table::Slot& slot : *slots) {
      const bool has = slot.indirect && (slot.key & unit_bits) == unit;
      const bool keep = !has || !filter.Excludes(slot.key);
      words[fingerprinted] = slot.key;
      fingerprinted += has & keep;
      (*slots)[kept] = slot;
      kept += keep;
    }
    slots->resize(kept);
    words.resize(fingerprinted);
  };
  leave_out(*upper);
  // Many more than wanted: the batch ends where the fingerprints tell
  // about `want` of them apart (a scan of a few keys then reads a few
  // payload entries, not its whole range's).
  if (want == 0 || words.size() <= want + want / 2) return;
  std::optional<std::string> end = fingerprint::BatchEnd(from, words, want);
  if (!end || (*upper && *end >= **upper)) return;
  *upper = std::move(end);
  leave_out(*upper);
}

// Under the DRAM entry's lock nothing moves in its subtree, and a payload
// entry that one of its slots references stays readable unless a newer
// version of the same key (then also in the subtree) superseded it and its
// chunk was compacted: such a dangling slot is simply left out. The lock
// is held while payloads are copied, so that no newest version can become
// dangling meanwhile (compaction relocates a key's newest version under
// the same lock).
Status UnitReader::CollectLocked(uint64_t unit, std::string_view lower_bound,
                                 std::optional<std::string_view> range_lower,
                                 size_t want,
                                 std::optional<std::string>* upper,
                                 ScanBatch* batch) {
  thread_local std::vector<table::Slot> slots;
  thread_local std::string key;
  thread_local std::string value;
  uint64_t expires_at_ms = 0;
  slots.clear();
  Status s = table_.CollectSubtree(unit, &slots);
  if (!s.ok()) return s;
  // (Units of 8-byte keys and values hold no fingerprints.)
  if (range_lower &&
      std::any_of(slots.begin(), slots.end(),
                  [](const table::Slot& slot) { return slot.indirect; })) {
    SelectByFingerprint(unit, *range_lower, lower_bound, want, upper,
                        &slots);
  }
  const KeyBound lower(lower_bound);
  const std::optional<KeyBound> upper_bound =
      *upper ? std::optional<KeyBound>(**upper) : std::nullopt;
  auto in_range = [&](std::string_view k) {
    return !lower.IsAbove(k) && (!upper_bound || upper_bound->IsAbove(k));
  };
  VisitSlotsPrefetching(slots, payload_, [&](const table::Slot& slot) {
    if (!slot.indirect) {
      const std::string_view inline_key(
          reinterpret_cast<const char*>(&slot.key), 8);
      if (in_range(inline_key)) {
        batch->Add(inline_key,
                   std::string_view(reinterpret_cast<const char*>(&slot.value),
                                    slot.tombstone ? 0 : 8),
                   slot.tombstone);
      }
    } else if (payload_.ReadEntry(slot.value, &key, &value, &expires_at_ms) &&
               in_range(key)) {
      // An expired record hides the key's older versions, as a tombstone.
      const bool gone = slot.tombstone || payload_.Expired(expires_at_ms);
      batch->Add(key, gone ? std::string_view() : value, gone,
                 gone ? 0 : expires_at_ms);
    }
  });
  return s;
}

}  // namespace plush
