// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The consistency walk over the PMem levels. Every problem is reported with
// its location; the walk validates each reference before following it, so
// it never crashes on a damaged pool.

#include <algorithm>
#include <cstring>
#include <vector>

#include "placement/key_fingerprint.h"
#include "table/leveled_table.h"
#include "table/simd.h"

namespace plush::table {

// Scans leave out the records whose fingerprints put them outside what
// they read (placement/key_fingerprint.h): a wrong one hides a record. Every
// slot written on a unit that a position names has the fingerprint of its
// key on that position's lower bound, or on a lower bound the unit's range
// had before a split below its keys (fingerprint::Fits); slots written on
// another unit, and those of free units, are not read by fingerprint.
bool LeveledTable::FingerprintMatches(unsigned level, uint64_t index,
                                      uint64_t key_word,
                                      uint64_t ref) const {
  if (!hasher_.range()) return true;
  const uint64_t unit = UnitOfEntry(level, index);
  if ((key_word & (dram_entries() - 1)) != unit) return true;
  const std::optional<RangeMap::Range> range =
      hasher_.map()->RangeOfUnit(unit);
  std::string key;
  if (!range || !resolver_->ReadKey(ref, &key)) return true;
  return fingerprint::Fits(key_word, key, range->lower);
}

// What Verify() found: the count, the first kMaxReported lines, and every
// bucket reference seen (two entries sharing a bucket would overwrite each
// other's records).
struct LeveledTable::VerifyFindings {
  static constexpr uint64_t kMaxReported = 100;
  std::string* report;
  uint64_t problems = 0;
  std::vector<uint64_t> refs;

  void Add(const std::string& line) {
    if (++problems <= kMaxReported && report != nullptr) {
      *report += line;
      *report += '\n';
    }
  }
  void AtEntry(unsigned level, uint64_t index, const std::string& what) {
    Add("level " + std::to_string(level) + " entry " + std::to_string(index) +
        ": " + what);
  }
};

// Unit by unit, each under its DRAM entry's lock, which every writer of
// the unit's subtree holds (migrations, re-balancing moves): a unit is
// checked as of one moment while the other units' writers go on.
uint64_t LeveledTable::Verify(std::string* report) {
  VerifyFindings found{report};
  for (uint64_t u = 0; u < dram_entries(); ++u) {
    SpinLockRef unit_lock = DramLock(u);
    unit_lock.lock();
    for (unsigned l = 1; l < level_count(); ++l) VerifyUnitAt(l, u, &found);
    unit_lock.unlock();
  }
  std::sort(found.refs.begin(), found.refs.end());
  for (size_t k = 1; k < found.refs.size(); ++k) {
    if (found.refs[k] == found.refs[k - 1]) {
      found.Add("bucket " + std::to_string(found.refs[k]) +
                " is referenced by two directory entries");
    }
  }
  if (found.problems > VerifyFindings::kMaxReported && report != nullptr) {
    *report += "... and " +
               std::to_string(found.problems - VerifyFindings::kMaxReported) +
               " more problems\n";
  }
  return found.problems;
}

void LeveledTable::VerifyUnitAt(unsigned l, uint64_t u,
                                VerifyFindings* found) const {
  const Level& level = levels_[l];
  // The block table names the blocks the table uses (AttachLevels checked
  // where they lie).
  const DirectoryEntry* block = level.blocks[u].load(std::memory_order_acquire);
  const uint64_t word = LoadRelaxed(level.block_table[u]);
  // (Level 1 may hold an epoch where a unit has no block.)
  const bool floor = l == 1 && block == nullptr && pool::IsEpochFloor(word);
  const uint64_t expected =
      block == nullptr ? (floor ? word : 0)
                       : reinterpret_cast<uint64_t>(block) -
                             reinterpret_cast<uint64_t>(media_.base());
  if (word != expected) {
    found->Add("level " + std::to_string(l) + " unit " + std::to_string(u) +
               ": block table names " + std::to_string(word) +
               ", the block in use is at " + std::to_string(expected));
  }
  const uint64_t first = u << level.unit_shift;
  if (!HasBlock(level, first)) return;  // no entry of the unit was written
  for (uint64_t i = first; i <= (first | level.unit_mask); ++i) {
    const DirectoryEntry& e = EntryAt(level, i);
    const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
    if (st.size > capacity_) {
      found->AtEntry(l, i,
                     "size " + std::to_string(st.size) +
                         " exceeds capacity " + std::to_string(capacity_));
      continue;
    }
    const unsigned buckets = (st.size + kSlotsPerBucket - 1) / kSlotsPerBucket;
    // Every reference, also beyond the size (the next refill reuses those),
    // must be writable: a bucket of the heap, not a directory.
    for (unsigned b = 0; b < fanout_ && HasBucketRefs(level); ++b) {
      const uint64_t ref = LoadRelaxed(e.bucket[b]);
      if (ref == 0 && b >= buckets) continue;
      if (!WritableBucketRef(ref)) {
        found->AtEntry(l, i,
                       (b < buckets ? "bucket " : "spare bucket ") +
                           std::to_string(b) + " reference " +
                           std::to_string(ref) +
                           " is not a bucket of the heap");
      } else {
        found->refs.push_back(ref);
      }
    }
    for (unsigned b = 0; b < buckets; ++b) {
      const Bucket* bucket = BucketAt(level, i, e, b);
      if (bucket == nullptr) continue;  // reported above
      const unsigned used =
          std::min(st.size - b * kSlotsPerBucket, kSlotsPerBucket);
      for (unsigned s = 0; s < used; ++s) {
        VerifySlot(l, i, e, buckets, b * kSlotsPerBucket + s, *bucket, found);
      }
    }
  }
}

void LeveledTable::VerifySlot(unsigned l, uint64_t i, const DirectoryEntry& e,
                              unsigned buckets, unsigned pos,
                              const Bucket& bucket,
                              VerifyFindings* found) const {
  const unsigned b = pos / kSlotsPerBucket;
  const uint64_t key = LoadRelaxed(bucket.keys[pos % kSlotsPerBucket]);
  const uint64_t value = LoadRelaxed(bucket.values[pos % kSlotsPerBucket]);
  const bool indirect = TestBit(e.indirect, pos);
  const std::string slot = "slot " + std::to_string(pos);
  if (indirect && (resolver_ == nullptr || !resolver_->IsLive(value))) {
    return;  // dangling references are legal: dropped by the next migration
  }
  if (indirect &&
      !resolver_->EntryIsIntact(value, key & hasher_.hash_bits(),
                                filter_hash_mask_) &&
      resolver_->IsLive(value)) {  // not compacted meanwhile
    found->AtEntry(l, i,
                   slot + " references payload " + std::to_string(value) +
                       ", which is damaged or holds another key");
    return;
  }
  if (indirect && !FingerprintMatches(l, i, key, value)) {
    found->AtEntry(l, i, slot + "'s fingerprint does not match its key");
    return;
  }
  const uint64_t hash = HashOf(key, indirect);
  // Placement: the record must live in the entry its hash selects (in a
  // re-balanced range pool: in the unit it is in, which may hold copies of
  // keys that a re-balance moved elsewhere).
  uint64_t expected = units_move() ? UnitOfEntry(l, i) : DramIndex(hash);
  for (unsigned k = 1; k <= l; ++k) {
    expected = ChildIndex(k - 1, expected, hash);
  }
  if (expected != i) {
    found->AtEntry(l, i,
                   slot + " belongs to entry " + std::to_string(expected));
    return;
  }
  // Filter: lookups must not be able to miss the record.
  const uint32_t candidates =
      FilterCandidates(FilterOf(levels_[l], i, e), buckets, ProbeOf(hash));
  if (((candidates >> b) & 1) == 0) {
    found->AtEntry(l, i, slot + " is missing from the filter");
  }
}

}  // namespace plush::table
