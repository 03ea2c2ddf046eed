// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Migration (paper listing 2): moving a full entry's records to its
// children on the next level.
//
//   1. gather   read the source back to front (newest first); route each
//               record to its child by the next hash bits; drop versions
//               shadowed by a newer one of the same key, and payload
//               references whose chunk was recycled (dangling); expired
//               records become tombstones
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
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <limits>
#include <span>

#include "table/leveled_table.h"
#include "table/simd.h"

namespace plush::table {

// A record on its way to a child: its slot and its table hash.
struct LeveledTable::Routed {
  Slot slot;
  uint64_t hash;
  uint64_t expires_at_ms;  // of an indirect slot's record; 0 = none
};

// A child receiving records. Its records are a run of the migration's
// scratch array, newest first.
struct LeveledTable::Target {
  uint64_t index = 0;
  DirectoryEntry* entry = nullptr;
  unsigned old_size = 0;
  Routed* records = nullptr;
  unsigned count = 0;
};

namespace {

using Routed = LeveledTable::Routed;

// The newest version of each key among a source's records, found in one
// pass: an open-addressing set of the records kept so far, keyed by hash
// (twice the slots, so probes stay short). Equal hashes are compared as
// keys, since different keys may share a hash.
class NewestVersions {
 public:
  // Whether records[n] is a key that one of records[0, n) already is; if
  // not, remembers it. `same_key(a, b)`: whether two records are one key.
  template <typename SameKey>
  bool Repeats(const Routed* records, unsigned n, SameKey same_key) {
    const Routed& r = records[n];
    // The top bits of the hash times an odd constant, which depend on all
    // its bits: a source's records share their low hash bits (those chose
    // its entry on every level above it), and in pools with fingerprints
    // the hash's top bits are zero.
    const uint64_t mixed = r.hash * 0x9E3779B97F4A7C15;
    for (unsigned i = static_cast<unsigned>(mixed >> (64 - kBits));;
         i = (i + 1) & kMask) {
      if (index_[i] == 0) {
        index_[i] = static_cast<uint16_t>(n + 1);
        return false;
      }
      const Routed& other = records[index_[i] - 1];
      if (other.hash == r.hash && same_key(other, r)) return true;
    }
  }

 private:
  static constexpr unsigned kBits = std::bit_width(2 * kMaxSlots - 1);
  static constexpr unsigned kSize = 1u << kBits;  // at least twice the slots
  static constexpr unsigned kMask = kSize - 1;
  static_assert(kMaxSlots < 0xFFFF, "positions + 1 fit 16 bits");
  uint16_t index_[kSize] = {};  // 1 + position in `records`; 0 = empty
};

}  // namespace

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
    // (An expired record of an 8-byte key is such a tombstone: its older
    // versions may be inline.)
    key = LookupKey::For(key_bytes, hash);
  } else {
    key.bytes = std::string_view(reinterpret_cast<const char*>(&slot.key), 8);
    key.has_inline = true;
    key.inline_key = slot.key;
  }
  const FilterProbe probe = ProbeOf(hash);
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

Status LeveledTable::GatherNewest(unsigned level, uint64_t index,
                                  unsigned size, Routed* newest,
                                  unsigned* kept) const {
  const Level& src = levels_[level];
  const DirectoryEntry& e = EntryAt(src, index);
  *kept = 0;
  NewestVersions versions;
  const auto same_key = [&](const Routed& a, const Routed& b) {
    return SameKey(a.slot, a.hash, b.slot, b.hash);
  };
  for (int pos = static_cast<int>(size) - 1; pos >= 0; --pos) {
    const Bucket* bucket = BucketAt(src, index, e, pos / kSlotsPerBucket);
    if (bucket == nullptr)
      return Status::Corruption("level " + std::to_string(level) + " entry " +
                                std::to_string(index) +
                                ": bad bucket reference");
    const unsigned i = pos % kSlotsPerBucket;
    Routed& r = newest[*kept];
    r.slot = Slot{bucket->keys[i], bucket->values[i],
                  TestBit(e.tombstone, pos), TestBit(e.indirect, pos)};
    r.expires_at_ms = 0;
    if (r.slot.indirect) {
      const RefState state =
          resolver_ == nullptr
              ? RefState::kDangling
              : resolver_->StateOfRef(r.slot.value, &r.expires_at_ms);
      // A dangling payload reference: its record was superseded.
      if (state == RefState::kDangling) continue;
      // An expired record hides the key's older versions, as a tombstone
      // does; as one, it goes where nothing older is (step 3).
      if (state == RefState::kExpired) r.slot.tombstone = true;
    }
    r.hash = HashInEntry(r.slot.key, r.slot.indirect, level, index);
    if (versions.Repeats(newest, *kept, same_key)) continue;
    ++*kept;
  }
  return Status::OK();
}

Status LeveledTable::NewestInDram(uint64_t dram_index,
                                  std::vector<Slot>* slots,
                                  std::vector<uint64_t>* hashes,
                                  std::vector<uint64_t>* expiries) const {
  assert(DramLocked(dram_index));
  std::array<Routed, kMaxSlots> newest;
  unsigned kept = 0;
  Status s =
      GatherNewest(0, dram_index, DramState(dram_index).size, newest.data(),
                   &kept);
  if (!s.ok()) return s;
  slots->clear();
  hashes->clear();
  if (expiries != nullptr) expiries->clear();
  for (unsigned k = kept; k-- > 0;) {
    slots->push_back(newest[k].slot);
    hashes->push_back(newest[k].hash);
    if (expiries != nullptr) expiries->push_back(newest[k].expires_at_ms);
  }
  return Status::OK();
}

bool LeveledTable::HidesNothingBelowDram(uint64_t dram_index,
                                         const Slot& slot,
                                         uint64_t hash) const {
  return level_count() < 2 ||
         !ExistsAtOrBelow(1, ChildIndex(0, dram_index, hash), slot, hash);
}

void LeveledTable::RetireDramEpochs(std::span<const RetiredEpoch> entries) {
  assert(level_count() >= 2);
  // What was logged for these entries left its sync to this barrier
  // (Media::DrainBeforeSync): where barriers are syncs, one covers it all;
  // elsewhere its own fence made it durable. (A failed sync is the
  // media's sticky error, which refuses writes.)
  if (media_.ordered_barriers()) (void)media_.Sync();
  const Level& dram = levels_[0];
  for (const auto& [dram_index, epoch] : entries) {
    assert(DramLocked(dram_index));
    const uint64_t first_child = dram_index << dram.child_bits;
    if (!HasBlock(levels_[1], first_child)) {
      uint64_t& word = levels_[1].block_table[dram_index];
      if (EpochFloor(dram_index) >= epoch) continue;
      StoreRelaxed(word, pool::EpochFloorWord(epoch));
      media_.Flush(&word, sizeof(uint64_t));
      continue;
    }
    // Sizes stay: the children keep their records, and only the epoch up
    // to which the entry's log records reached them moves.
    for (uint64_t j = 0; j < (uint64_t{1} << dram.child_bits); ++j) {
      DirectoryEntry& child = MutableEntryAt(levels_[1], first_child + j);
      const EntryState st = EntryState::Decode(LoadRelaxed(child.state));
      if (st.epoch >= epoch) continue;
      StoreRelease(child.state, EntryState{epoch, st.size}.Encode());
      media_.Flush(&child.state, sizeof(uint64_t));
    }
  }
  media_.Drain();
}

// Step 1: the newest version of each key of the source's first `size`
// slots (dangling payload references dropped), routed to its child: each
// share becomes one run of `routed`, newest first (a counting sort by
// child), and the children's entries start loading.
Status LeveledTable::GatherShares(unsigned level, uint64_t index,
                                  unsigned size, std::span<Target> shares,
                                  Routed* routed) const {
  const Level& src = levels_[level];
  const Level& dst = levels_[level + 1];
  const DirectoryEntry& e = EntryAt(src, index);
  const auto children = static_cast<unsigned>(shares.size());
  for (unsigned j = 0; j < children; ++j) {
    Target& t = shares[j];
    t.index = index << src.child_bits | j;
    t.entry = &MutableEntryAt(dst, t.index);
    // The children are consecutive entries (8 KiB at fanout 16), far from
    // the source: start loading them now so that the misses overlap the
    // gathering below.
    for (unsigned line = 0; line < sizeof(DirectoryEntry); line += 64) {
      __builtin_prefetch(reinterpret_cast<const char*>(t.entry) + line, 1);
    }
  }
  // Whether a payload reference is live reads its chunk's header and entry
  // on media: start those misses for every indirect slot at once.
  if (resolver_ != nullptr) {
    for (unsigned pos = 0; pos < size; ++pos) {
      if (!TestBit(e.indirect, pos)) continue;
      const Bucket* bucket = BucketAt(src, index, e, pos / kSlotsPerBucket);
      if (bucket != nullptr)
        resolver_->PrefetchEntry(bucket->values[pos % kSlotsPerBucket]);
    }
  }
  std::array<Routed, kMaxSlots> newest;
  unsigned kept = 0;
  Status s = GatherNewest(level, index, size, newest.data(), &kept);
  if (!s.ok()) return s;
  for (unsigned k = 0; k < kept; ++k)
    ++shares[(newest[k].hash >> src.index_bits) & (children - 1)].count;
  unsigned offset = 0;
  for (Target& t : shares) {
    t.records = routed + offset;
    offset += t.count;
    t.count = 0;
  }
  for (unsigned k = 0; k < kept; ++k) {
    Target& t = shares[(newest[k].hash >> src.index_bits) & (children - 1)];
    t.records[t.count++] = newest[k];
  }
  return Status::OK();
}

Status LeveledTable::Migrate(unsigned level, uint64_t index) {
  const Level& src = levels_[level];
  const DirectoryEntry& e = EntryAt(src, index);
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  if (st.size > capacity_) {
    return Status::Corruption("level " + std::to_string(level) + " entry " +
                              std::to_string(index) +
                              ": size exceeds capacity");
  }
  Status s = EnsureLevel(level + 1);
  if (!s.ok()) return s;
  // An empty DRAM entry of a unit without a block on level 1 (a
  // re-balance raising the epoch of a unit it names) takes none: the block
  // table keeps the epoch its children would take (EpochFloor), one
  // persisted word where a block would be 8 KiB or more.
  if (level == 0 && st.size == 0 &&
      !HasBlock(levels_[1], index << src.child_bits)) {
    uint64_t& word = levels_[1].block_table[index];
    StoreRelaxed(word, pool::EpochFloorWord(st.epoch));
    media_.Persist(&word, sizeof(uint64_t));
    ClearSource(level, index);
    migrations_.Add(1);
    return Status::OK();
  }
  s = EnsureBlock(level + 1, index << src.child_bits);
  if (!s.ok()) return s;

  // 1. gather
  const unsigned children = 1u << src.child_bits;
  std::array<Target, kMaxFanout> targets;
  const std::span<Target> shares(targets.data(), children);
  std::array<Routed, kMaxSlots> routed;
  s = GatherShares(level, index, st.size, shares, routed.data());
  if (!s.ok()) return s;


  // 2. room
  for (Target& t : shares) {
    t.old_size = EntryState::Decode(LoadRelaxed(t.entry->state)).size;
    if (t.old_size > capacity_) {
      return Status::Corruption("level " + std::to_string(level + 1) +
                                " entry " + std::to_string(t.index) +
                                ": size exceeds capacity");
    }
  }
  for (Target& t : shares) {
    if (t.old_size + t.count > capacity_) {
      s = Migrate(level + 1, t.index);
      if (!s.ok()) return s;
      t.old_size = 0;
    }
  }

  // 3. cancel
  for (Target& t : shares) {
    const Routed* end = std::remove_if(
        t.records, t.records + t.count, [&](const Routed& r) {
          return r.slot.tombstone &&
                 !ExistsAtOrBelow(level + 1, t.index, r.slot, r.hash);
        });
    t.count = static_cast<unsigned>(end - t.records);
  }

  // 4. write (the children are consecutive entries)
  s = AllocateBuckets(level + 1, shares);
  if (!s.ok()) return s;
  for (Target& t : shares) PrefetchTarget(level + 1, t);
  for (Target& t : shares) WriteTarget(level + 1, t);
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
  for (Target& t : shares) {
    if (t.count == 0 && level != 0) continue;
    const unsigned size = t.old_size + t.count;
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
  // The unit's PMem records: the children's new ones, less the source's
  // (a PMem source; the DRAM level's are counted apart).
  int64_t kept = 0;
  uint64_t first_expiry = std::numeric_limits<uint64_t>::max();
  for (const Target& t : shares) {
    kept += t.count;
    for (const Routed* r = t.records; r != t.records + t.count; ++r) {
      if (r->expires_at_ms != 0 && !r->slot.tombstone)
        first_expiry = std::min(first_expiry, r->expires_at_ms);
    }
  }
  NoteSubtreeExpiry(UnitOfEntry(level, index), first_expiry);
  AddUnitRecords(level, index,
                 kept - (level == 0 ? 0 : static_cast<int64_t>(st.size)));
  return Status::OK();
}

Status LeveledTable::CheckSubtreeMigratable(uint64_t dram_index) const {
  for (unsigned l = 1; l < level_count(); ++l) {
    const Level& level = levels_[l];
    const uint64_t first = dram_index << level.unit_shift;
    if (!HasBlock(level, first)) continue;
    for (uint64_t i = first; i <= (first | level.unit_mask); ++i) {
      const DirectoryEntry& e = EntryAt(level, i);
      const auto where = [&] {
        return "level " + std::to_string(l) + " entry " + std::to_string(i);
      };
      const unsigned size = EntryState::Decode(LoadRelaxed(e.state)).size;
      if (size > capacity_)
        return Status::Corruption(where() + ": size exceeds capacity");
      if (!HasBucketRefs(level)) continue;
      const unsigned used = (size + kSlotsPerBucket - 1) / kSlotsPerBucket;
      for (unsigned b = 0; b < fanout_; ++b) {
        const uint64_t ref = LoadRelaxed(e.bucket[b]);
        if ((ref != 0 || b < used) && !WritableBucketRef(ref)) {
          return Status::Corruption(where() + ": bucket reference " +
                                    std::to_string(b) + " (" +
                                    std::to_string(ref) + ") is invalid");
        }
      }
    }
  }
  return Status::OK();
}

Status LeveledTable::AllocateBuckets(unsigned level,
                                     std::span<Target> targets) {
  const Level& dst = levels_[level];
  if (!HasBucketRefs(dst)) return Status::OK();
  uint64_t missing = 0;
  for (const Target& t : targets) {
    const unsigned needed =
        (t.old_size + t.count + kSlotsPerBucket - 1) / kSlotsPerBucket;
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
    const unsigned needed =
        (t.old_size + t.count + kSlotsPerBucket - 1) / kSlotsPerBucket;
    for (unsigned b = 0; b < needed; ++b) {
      if (LoadRelaxed(t.entry->bucket[b]) != 0) continue;
      StoreRelaxed(t.entry->bucket[b], offset);
      offset += sizeof(Bucket);
    }
  }
  return Status::OK();
}

// The bucket lines WriteTarget will write (its directory entry was
// prefetched when the migration began): started for every child before
// any is written, so that their misses overlap.
void LeveledTable::PrefetchTarget(unsigned level, const Target& t) const {
  if (t.count == 0) return;
  const Level& dst = levels_[level];
  const unsigned last = t.old_size + t.count - 1;
  for (unsigned b = t.old_size / kSlotsPerBucket; b <= last / kSlotsPerBucket;
       ++b) {
    const Bucket* bucket = BucketAt(dst, t.index, *t.entry, b);
    if (bucket == nullptr) continue;
    for (unsigned line = 0; line < sizeof(Bucket); line += 64) {
      __builtin_prefetch(reinterpret_cast<const char*>(bucket) + line, 1);
    }
  }
}

void LeveledTable::WriteTarget(unsigned level, const Target& t) {
  if (t.count == 0) return;
  const Level& dst = levels_[level];
  DirectoryEntry& te = *t.entry;
  const unsigned first = t.old_size;
  const unsigned last = first + t.count - 1;
  uint64_t* filter = MutableFilterOf(dst, t.index, te);
  unsigned pos = first;
  // Oldest first: newer versions take the later slots.
  for (const Routed* r = t.records + t.count; r-- != t.records; ++pos) {
    const Slot& slot = r->slot;
    const uint64_t hash = r->hash;
    const unsigned b = pos / kSlotsPerBucket;
    const unsigned i = pos % kSlotsPerBucket;
    Bucket* bucket = BucketAt(dst, t.index, te, b);
    StoreRelaxed(bucket->keys[i], slot.key);
    StoreRelaxed(bucket->values[i], slot.value);
    AssignBit(te.tombstone, pos, slot.tombstone);
    AssignBit(te.indirect, pos, slot.indirect);
    if (i == 0) FilterResetBucket(filter, b, fanout_);
    FilterAdd(filter, b, ProbeOf(hash));
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
  if (HasBucketRefs(dst)) {
    media_.Flush(&te.bucket[first_bucket],
                 (last_bucket - first_bucket + 1) * sizeof(uint64_t));
  }
}

void LeveledTable::ClearUnit(uint64_t dram_index) {
  const unsigned dram_bits = levels_[0].index_bits;
  for (unsigned l = 1; l < level_count(); ++l) {
    const unsigned shift = levels_[l].index_bits - dram_bits;
    if (!HasBlock(levels_[l], dram_index << shift)) continue;
    for (uint64_t i = dram_index << shift; i < (dram_index + 1) << shift; ++i) {
      if (EntryState::Decode(LoadRelaxed(EntryAt(levels_[l], i).state)).size > 0)
        ClearSource(l, i);
    }
  }
  SetUnitPmemRecords(dram_index, 0);
}

Status LeveledTable::ClearExpiredUnit(uint64_t dram_index) {
  ClearSource(0, dram_index);
  ClearUnit(dram_index);
  ResetUnitExpiryBound(dram_index);
  expired_units_cleared_.Add(1);
  return MigrateDram(dram_index);
}

void LeveledTable::ClearSource(unsigned level, uint64_t index, bool drain) {
  DirectoryEntry& e = MutableEntryAt(levels_[level], index);
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  // The DRAM entry moves to a new epoch: log entries carrying the old one
  // are now on PMem. A PMem entry keeps its epoch (its next refill brings a
  // larger one). One atomic word: a crash cannot tear a clear. The filter
  // is left as it is; refilling a bucket resets its partition (filter.h).
  const uint64_t epoch = level == 0 ? st.epoch + 1 : st.epoch;
  StoreRelease(e.state, EntryState{epoch, 0}.Encode());
  if (level == 0) {
    RaiseMaxDramEpoch(epoch);
    dram_cleared_.Add(st.size);
  }
  if (level == 0) {
    for (uint64_t& w : e.unlogged) StoreRelaxed(w, 0);
  }
  if (levels_[level].persistent) {
    media_.Flush(&e.state, sizeof(uint64_t));
    if (drain) media_.Drain();
  }
}

}  // namespace plush::table
