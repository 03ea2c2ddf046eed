// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Migration (paper listing 2): moving a full entry's records to its
// children on the next level.
//
//   1. gather   read the source back to front (newest first); route each
//               record to its child by the next hash bits; drop versions
//               shadowed by a newer one of the same key, and payload
//               references whose chunk was recycled (dangling)
//   2. room     a child without room for its share migrates first
//               (recursively) and is then empty
//   3. cancel   drop tombstones that shadow nothing at or below the child
//   4. write    append each child's share after its current records, with
//               flags, filter bits and new bucket references;
//               flush all of it, one fence
//   5. publish  store every child's state word (size, and the source's
//               epoch); flush, one fence
//   6. clear    empty the source: one state word (one fence on PMem)
//
// A crash before 5 leaves the written records unreachable (size unchanged);
// between 5 and 6 it leaves them on both levels, which later migrations
// merge (same key: the newer position wins). Nothing is lost either way.

#include <algorithm>
#include <cassert>
#include <cstring>

#include "table/leveled_table.h"
#include "table/simd.h"
#include "util/hash.h"

namespace plush::table {

struct LeveledTable::Target {
  uint64_t index = 0;
  DirectoryEntry* entry = nullptr;
  unsigned old_size = 0;
  std::vector<std::pair<Slot, uint64_t>> records;  // (slot, hash), newest first
};

Status LeveledTable::MigrateDram(uint64_t dram_index) {
  assert(DramLocked(dram_index));
  return Migrate(0, dram_index);
}

bool LeveledTable::SameKey(const Slot& a, uint64_t hash_a, const Slot& b,
                           uint64_t hash_b) const {
  if (hash_a != hash_b) return false;
  if (!a.indirect && !b.indirect) return a.key == b.key;
  if (resolver_ == nullptr) return false;
  if (a.indirect && b.indirect)
    return resolver_->RefsHaveSameKey(a.value, b.value);
  const Slot& inline_slot = a.indirect ? b : a;
  const Slot& ref_slot = a.indirect ? a : b;
  return resolver_->RefHasKey(
             ref_slot.value,
             std::string_view(reinterpret_cast<const char*>(&inline_slot.key),
                              8)) == RefMatch::kYes;
}

bool LeveledTable::ExistsAtOrBelow(unsigned level, uint64_t index,
                                   const Slot& slot, uint64_t hash) const {
  std::string key_bytes;
  LookupKey key;
  key.hash = hash;
  if (slot.indirect) {
    // Without the key we cannot prove the tombstone is useless: keep it.
    if (resolver_ == nullptr || !resolver_->ReadKey(slot.value, &key_bytes))
      return true;
    key.bytes = key_bytes;
  } else {
    key.bytes = std::string_view(reinterpret_cast<const char*>(&slot.key), 8);
    key.has_inline = true;
    key.inline_key = slot.key;
  }
  const FilterProbe probe = MakeProbe(hash, fanout_);
  Slot found;
  for (unsigned l = level; l < level_count(); ++l) {
    if (l > level) index = ChildIndex(l - 1, index, hash);
    // A dangling reference below is an older version: it does not count.
    const Found f = SearchEntry(levels_[l], index, key, probe,
                                /*skip_dangling=*/true,
                                /*skip_unlogged=*/false, &found);
    // The newest version below decides: a tombstone there already hides
    // everything older — unless it lives in a payload chunk, which a
    // compaction may free (after relocating it: possibly into the very
    // tombstone being cancelled here), so it cannot stand in for this one.
    if (f != Found::kAbsent) return f == Found::kValue || found.indirect;
  }
  return false;
}

Status LeveledTable::Migrate(unsigned level, uint64_t index) {
  const Level& src = levels_[level];
  DirectoryEntry& e = src.entries[index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  const std::string where =
      "level " + std::to_string(level) + " entry " + std::to_string(index);
  if (st.size > capacity_)
    return Status::Corruption(where + ": size exceeds capacity");
  Status s = EnsureLevel(level + 1);
  if (!s.ok()) return s;
  const Level& dst = levels_[level + 1];

  // 1. gather
  const unsigned children = 1u << src.child_bits;
  std::vector<Target> targets(children);
  for (unsigned j = 0; j < children; ++j) {
    Target& t = targets[j];
    t.index = index << src.child_bits | j;
    t.entry = &dst.entries[t.index];
    // The children are consecutive entries (8 KiB at fanout 16), far from
    // the source: start loading them now so that the misses overlap the
    // gathering below.
    for (unsigned line = 0; line < sizeof(DirectoryEntry); line += 64) {
      __builtin_prefetch(reinterpret_cast<const char*>(t.entry) + line, 1);
    }
  }
  for (int pos = static_cast<int>(st.size) - 1; pos >= 0; --pos) {
    const Bucket* bucket = BucketAt(src, index, e, pos / kSlotsPerBucket);
    if (bucket == nullptr)
      return Status::Corruption(where + ": bad bucket reference");
    const unsigned i = pos % kSlotsPerBucket;
    const Slot slot{bucket->keys[i], bucket->values[i],
                    TestBit(e.tombstone, pos), TestBit(e.indirect, pos)};
    if (slot.indirect &&
        (resolver_ == nullptr || !resolver_->IsLive(slot.value))) {
      continue;  // dangling payload reference: its record was superseded
    }
    const uint64_t hash = HashOf(slot.key, slot.indirect);
    Target& t = targets[(hash >> src.index_bits) & (children - 1)];
    const bool shadowed =
        std::any_of(t.records.begin(), t.records.end(), [&](const auto& newer) {
          return SameKey(newer.first, newer.second, slot, hash);
        });
    if (!shadowed) t.records.emplace_back(slot, hash);
  }

  // 2. room
  for (Target& t : targets) {
    t.old_size = EntryState::Decode(LoadRelaxed(t.entry->state)).size;
    if (t.old_size > capacity_) {
      return Status::Corruption("level " + std::to_string(level + 1) +
                                " entry " + std::to_string(t.index) +
                                ": size exceeds capacity");
    }
  }
  for (Target& t : targets) {
    if (t.old_size + t.records.size() > capacity_) {
      s = Migrate(level + 1, t.index);
      if (!s.ok()) return s;
      t.old_size = 0;
    }
  }

  // 3. cancel
  for (Target& t : targets) {
    std::erase_if(t.records, [&](const auto& r) {
      return r.first.tombstone &&
             !ExistsAtOrBelow(level + 1, t.index, r.first, r.second);
    });
  }

  // 4. write
  s = AllocateBuckets(level + 1, targets);
  if (!s.ok()) return s;
  for (Target& t : targets) WriteTarget(level + 1, t);
  media_.Drain();

  // 5. publish. Every child of a DRAM entry takes the epoch, even without
  // new records: recovery compares log entries with it (and it is above
  // every child's epoch: DRAM epochs only grow, and recovery resumes them
  // above their children's). A PMem source's epoch is normally above its
  // children's too — except when a crash interrupted its previous
  // migration after this step: the source then migrates again with the
  // same epoch, and a child that was cleared in between (step 2) would go
  // back to a state it had before. Such a child takes the next epoch
  // instead: published states only ever grow (table_format.h).
  for (Target& t : targets) {
    if (t.records.empty() && level != 0) continue;
    const unsigned size = t.old_size + static_cast<unsigned>(t.records.size());
    const uint64_t child_epoch =
        EntryState::Decode(LoadRelaxed(t.entry->state)).epoch;
    const uint64_t epoch =
        level == 0 ? st.epoch : std::max(st.epoch, child_epoch + 1);
    StoreRelease(t.entry->state, EntryState{epoch, size}.Encode());
    media_.Flush(&t.entry->state, sizeof(uint64_t));
  }
  media_.Drain();

  // 6. clear
  ClearSource(level, index);
  migrations_.Add(1);
  return Status::OK();
}

Status LeveledTable::AllocateBuckets(unsigned level,
                                     std::vector<Target>& targets) {
  const Level& dst = levels_[level];
  if (dst.bucket_area != nullptr) return Status::OK();
  uint64_t missing = 0;
  for (const Target& t : targets) {
    const unsigned needed = static_cast<unsigned>(
        (t.old_size + t.records.size() + kSlotsPerBucket - 1) /
        kSlotsPerBucket);
    for (unsigned b = 0; b < needed; ++b) {
      const uint64_t ref = LoadRelaxed(t.entry->bucket[b]);
      if (ref == 0) {
        ++missing;
      } else if (!WritableBucketRef(ref)) {
        return Status::Corruption("level " + std::to_string(level) + " entry " +
                                  std::to_string(t.index) +
                                  ": bucket reference " + std::to_string(b) +
                                  " (" + std::to_string(ref) + ") is invalid");
      }
    }
  }
  if (missing == 0) return Status::OK();
  uint64_t offset = 0;
  Status s = pool_->allocator().Allocate(missing * sizeof(Bucket),
                                         sizeof(Bucket), &offset);
  if (!s.ok()) return s;
  // Readers never follow references at or beyond an entry's size, so the
  // new ones may be stored before the records are published.
  for (const Target& t : targets) {
    const unsigned needed = static_cast<unsigned>(
        (t.old_size + t.records.size() + kSlotsPerBucket - 1) /
        kSlotsPerBucket);
    for (unsigned b = 0; b < needed; ++b) {
      if (LoadRelaxed(t.entry->bucket[b]) != 0) continue;
      StoreRelaxed(t.entry->bucket[b], offset);
      offset += sizeof(Bucket);
    }
  }
  return Status::OK();
}

void LeveledTable::WriteTarget(unsigned level, Target& t) {
  if (t.records.empty()) return;
  const Level& dst = levels_[level];
  DirectoryEntry& te = *t.entry;
  const unsigned first = t.old_size;
  const unsigned last = first + static_cast<unsigned>(t.records.size()) - 1;
  uint64_t* filter = FilterOf(dst, t.index);
  unsigned pos = first;
  for (auto it = t.records.rbegin(); it != t.records.rend(); ++it, ++pos) {
    const auto& [slot, hash] = *it;
    const unsigned b = pos / kSlotsPerBucket;
    const unsigned i = pos % kSlotsPerBucket;
    Bucket* bucket = BucketAt(dst, t.index, te, b);
    StoreRelaxed(bucket->keys[i], slot.key);
    StoreRelaxed(bucket->values[i], slot.value);
    AssignBit(te.tombstone, pos, slot.tombstone);
    AssignBit(te.indirect, pos, slot.indirect);
    if (i == 0) FilterResetBucket(filter, b, fanout_);
    FilterAdd(filter, b, MakeProbe(hash, fanout_));
  }
  // Flush the lines written: keys and values of each touched bucket, the
  // filter (a share of ~16 records touches every plane), the flag line and
  // new bucket references.
  const unsigned first_bucket = first / kSlotsPerBucket;
  const unsigned last_bucket = last / kSlotsPerBucket;
  for (unsigned b = first_bucket; b <= last_bucket; ++b) {
    Bucket* bucket = BucketAt(dst, t.index, te, b);
    const unsigned lo = b == first_bucket ? first % kSlotsPerBucket : 0;
    const unsigned hi =
        b == last_bucket ? last % kSlotsPerBucket : kSlotsPerBucket - 1;
    media_.Flush(&bucket->keys[lo], (hi - lo + 1) * sizeof(uint64_t));
    media_.Flush(&bucket->values[lo], (hi - lo + 1) * sizeof(uint64_t));
  }
  if (dst.dram_filters == nullptr) media_.Flush(te.filter, sizeof(te.filter));
  media_.Flush(te.tombstone, sizeof(te.tombstone) + sizeof(te.indirect));
  if (dst.bucket_area == nullptr) {
    media_.Flush(&te.bucket[first_bucket],
                 (last_bucket - first_bucket + 1) * sizeof(uint64_t));
  }
}

void LeveledTable::ClearSource(unsigned level, uint64_t index) {
  DirectoryEntry& e = levels_[level].entries[index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  // The DRAM entry moves to a new epoch: log entries carrying the old one
  // are now on PMem. A PMem entry keeps its epoch (its next refill brings a
  // larger one). One atomic word: a crash cannot tear a clear. The filter
  // is left as it is; refilling a bucket resets its partition (filter.h).
  const uint64_t epoch = level == 0 ? st.epoch + 1 : st.epoch;
  StoreRelease(e.state, EntryState{epoch, 0}.Encode());
  if (level == 0) {
    for (uint64_t& w : e.unlogged) StoreRelaxed(w, 0);
  }
  if (levels_[level].persistent) media_.Persist(&e.state, sizeof(uint64_t));
}

}  // namespace plush::table
