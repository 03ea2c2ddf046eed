// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Levels, addressing, DRAM inserts and lock-free lookups. Migration lives
// in migration.cc, the consistency walk in table_verify.cc.

#include "table/leveled_table.h"

#include <sys/mman.h>

#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <thread>

#include "table/simd.h"

namespace plush::table {

LookupKey LookupKey::For(std::string_view key, uint64_t hash) {
  LookupKey k;
  k.bytes = key;
  k.hash = hash;
  k.has_inline = key.size() == 8;
  if (k.has_inline) std::memcpy(&k.inline_key, key.data(), 8);
  return k;
}

LeveledTable::LeveledTable(pool::Pool* pool)
    : pool_(pool),
      media_(pool->media()),
      fanout_(1u << pool->params().fanout_bits),
      capacity_(kSlotsPerBucket << pool->params().fanout_bits),
      hasher_(pool->key_hasher()),
      filter_hash_mask_(
          pool->params().partitioning == Partitioning::kRange
              ? ~((uint64_t{1} << pool->params().dram_directory_bits) - 1)
              : ~uint64_t{0}) {}

namespace {

// DRAM reserved in full (the DRAM budget is fixed) but resident only as
// entries are first written: a small store stays small. (Pages fault in
// zeroed; with transparent huge pages, 2 MiB at a time.)
void* MapDram(uint64_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  madvise(memory, bytes, MADV_HUGEPAGE);
  return memory;
}

}  // namespace

LeveledTable::~LeveledTable() {
  if (dram_memory_ != nullptr) munmap(dram_memory_, dram_level_bytes_);
  if (dram_filter_memory_ != nullptr)
    munmap(dram_filter_memory_, dram_filter_bytes_);
}

Status LeveledTable::Open(pool::Pool* pool,
                          std::unique_ptr<LeveledTable>* table) {
  std::unique_ptr<LeveledTable> t(new LeveledTable(pool));
  const pool::PoolParams& p = pool->params();

  // The DRAM level is reserved in full up front: its size is the whole
  // DRAM budget, and it must not grow with the record count.
  Level& dram = t->levels_[0];
  dram.entry_count = uint64_t{1} << p.dram_directory_bits;
  dram.index_bits = p.dram_directory_bits;
  dram.child_bits = p.first_level_fanout_bits;
  const uint64_t entry_bytes = dram.entry_count * sizeof(DirectoryEntry);
  const uint64_t bucket_bytes = dram.entry_count * t->fanout_ * sizeof(Bucket);
  t->dram_level_bytes_ = entry_bytes + bucket_bytes;
  void* memory = MapDram(t->dram_level_bytes_);
  if (memory == nullptr) {
    return Status::IOError("cannot allocate " +
                           std::to_string(t->dram_level_bytes_) +
                           " bytes for the DRAM level");
  }
  t->dram_memory_ = memory;
  dram.entries = static_cast<DirectoryEntry*>(memory);
  dram.bucket_area =
      reinterpret_cast<Bucket*>(static_cast<char*>(memory) + entry_bytes);
  // Epoch 0 is what a level-1 entry that never received records holds; the
  // DRAM level starts above it (recovery raises it further).
  for (uint64_t i = 0; i < dram.entry_count; ++i) {
    dram.entries[i].state = EntryState{1, 0}.Encode();
  }
  t->max_dram_epoch_.store(1, std::memory_order_relaxed);
  t->unit_records_.reset(new std::atomic<uint64_t>[dram.entry_count]);
  for (uint64_t i = 0; i < dram.entry_count; ++i)
    t->unit_records_[i].store(0, std::memory_order_relaxed);
  // Due at once: what the levels hold is not known until a sweep read it.
  t->subtree_due_.reset(new std::atomic<uint64_t>[dram.entry_count]);
  for (uint64_t i = 0; i < dram.entry_count; ++i)
    t->subtree_due_[i].store(0, std::memory_order_relaxed);
  t->unit_expiry_bound_.reset(new std::atomic<uint64_t>[dram.entry_count]);

  Status s = t->AllocateDramFilters();
  if (s.ok()) s = t->AttachLevels();
  if (!s.ok()) return s;
  // A unit with records on PMem has a block on level 1: what they expire
  // by is not known. One without holds nothing yet (recovery pins the
  // units it replays records into: RecoverIntoDram).
  for (uint64_t i = 0; i < dram.entry_count; ++i) {
    t->unit_expiry_bound_[i].store(t->UnitHasBlocks(i) ? kNoExpiryBound : 0,
                                   std::memory_order_relaxed);
  }
  *table = std::move(t);
  return Status::OK();
}

Status LeveledTable::AllocateDramFilters() {
  const pool::PoolParams& p = pool_->params();
  const unsigned bits = p.dram_directory_bits + p.first_level_fanout_bits;
  std::array<uint64_t, 3> offsets{};  // of levels 1..dram_filter_levels
  for (unsigned l = 1; l <= p.dram_filter_levels; ++l) {
    offsets[l] = dram_filter_bytes_;
    dram_filter_bytes_ +=
        (uint64_t{1} << (bits + (l - 1) * p.fanout_bits)) * kFilterBytes;
  }
  if (dram_filter_bytes_ == 0) return Status::OK();
  dram_filter_memory_ = MapDram(dram_filter_bytes_);
  if (dram_filter_memory_ == nullptr) {
    dram_filter_bytes_ = 0;
    return Status::IOError("cannot allocate DRAM for the filters of " +
                           std::to_string(p.dram_filter_levels) +
                           " PMem levels");
  }
  for (unsigned l = 1; l <= p.dram_filter_levels; ++l) {
    levels_[l].dram_filters = reinterpret_cast<uint64_t*>(
        static_cast<char*>(dram_filter_memory_) + offsets[l]);
  }
  return Status::OK();
}

// The filters of a level kept in DRAM are not on PMem: derive them from
// the level's records (every slot below each entry's size).
void LeveledTable::RebuildDramFilters(unsigned level) {
  const Level& l = levels_[level];
  for (uint64_t i = 0; i < l.entry_count; ++i) {
    if (!HasBlock(l, i)) {
      i |= l.unit_mask;  // the unit's entries are all empty
      continue;
    }
    const DirectoryEntry& e = EntryAt(l, i);
    const unsigned size = std::min(EntryState::Decode(e.state).size, capacity_);
    uint64_t* filter = l.dram_filters + i * (kFilterBytes / 8);
    for (unsigned pos = 0; pos < size; ++pos) {
      const unsigned b = pos / kSlotsPerBucket;
      const Bucket* bucket = BucketAt(l, i, e, b);
      if (bucket == nullptr) break;  // Verify() reports it
      const uint64_t key = bucket->keys[pos % kSlotsPerBucket];
      const uint64_t hash = HashInEntry(key, TestBit(e.indirect, pos), level, i);
      if (pos % kSlotsPerBucket == 0) FilterResetBucket(filter, b, fanout_);
      FilterAdd(filter, b, ProbeOf(hash));
    }
  }
}

const DirectoryEntry LeveledTable::kNoEntry{};

LeveledTable::Level LeveledTable::PmemLevelShape(unsigned level) const {
  const pool::PoolParams& p = pool_->params();
  const Level& parent = levels_[level - 1];
  Level l;
  l.dram_filters = levels_[level].dram_filters;
  l.index_bits = parent.index_bits + parent.child_bits;
  l.child_bits = p.fanout_bits;
  l.entry_count = uint64_t{1} << l.index_bits;
  l.persistent = true;
  l.unit_shift = l.index_bits - levels_[0].index_bits;
  l.unit_mask = (uint64_t{1} << l.unit_shift) - 1;
  l.preallocated = level <= p.preallocated_levels;
  const uint64_t entries = l.unit_mask + 1;
  const uint64_t bytes =
      entries * sizeof(DirectoryEntry) +
      (l.preallocated ? entries * fanout_ * sizeof(Bucket) : 0);
  l.block_bytes = (bytes + kBlockAlignment - 1) / kBlockAlignment *
                  kBlockAlignment;
  const uint64_t units = dram_entries();
  l.blocks.reset(new std::atomic<DirectoryEntry*>[units]);
  for (uint64_t u = 0; u < units; ++u)
    l.blocks[u].store(nullptr, std::memory_order_relaxed);
  return l;
}

bool LeveledTable::InHeap(uint64_t offset, uint64_t bytes) const {
  const uint64_t end = pool_->allocated_end();
  return offset >= pool_->heap_offset() && bytes <= end &&
         offset <= end - bytes;
}

Status LeveledTable::AttachLevels() {
  const uint64_t n = pool_->level_count();
  const uint64_t units = dram_entries();
  for (uint64_t i = 0; i < n; ++i) {
    const auto level = static_cast<unsigned>(i + 1);
    const pool::LevelDescriptor& d = pool_->level(static_cast<unsigned>(i));
    Level l = PmemLevelShape(level);
    const std::string where = "level " + std::to_string(level);
    if (d.entry_count != l.entry_count || d.block_bytes != l.block_bytes) {
      return Status::Corruption(
          where + " has " + std::to_string(d.entry_count) +
          " directory entries in blocks of " + std::to_string(d.block_bytes) +
          " bytes, expected " + std::to_string(l.entry_count) + " in blocks of " +
          std::to_string(l.block_bytes));
    }
    if (d.block_table_offset % 8 != 0 ||
        !InHeap(d.block_table_offset, units * sizeof(uint64_t))) {
      return Status::Corruption(where + ": block table at " +
                                std::to_string(d.block_table_offset) +
                                " is not inside the heap");
    }
    l.block_table = media_.At<uint64_t>(d.block_table_offset);
    NoteBlock(d.block_table_offset, units * sizeof(uint64_t));
    for (uint64_t u = 0; u < units; ++u) {
      const uint64_t offset = LoadRelaxed(l.block_table[u]);
      if (offset == 0) continue;
      if (pool::IsEpochFloor(offset)) {
        if (level == 1) continue;
        return Status::Corruption(
            where + " unit " + std::to_string(u) +
            ": the block table holds an epoch, which only level 1's may");
      }
      if (offset % kBlockAlignment != 0 || !InHeap(offset, l.block_bytes)) {
        return Status::Corruption(where + " unit " + std::to_string(u) +
                                  ": directory block at " +
                                  std::to_string(offset) +
                                  " is not inside the heap");
      }
      l.blocks[u].store(media_.At<DirectoryEntry>(offset),
                        std::memory_order_relaxed);
      NoteBlock(offset, l.block_bytes);
    }
    levels_[level] = l;
    if (l.dram_filters != nullptr) RebuildDramFilters(level);
  }
  // Blocks that share space would overwrite each other's entries.
  MutexLock lock(&blocks_mu_);
  for (size_t k = 1; k < block_ranges_.size(); ++k) {
    if (block_ranges_[k].first < block_ranges_[k - 1].second) {
      return Status::Corruption(
          "directory blocks (or block tables) at " +
          std::to_string(block_ranges_[k - 1].first) + " and " +
          std::to_string(block_ranges_[k].first) + " overlap");
    }
  }
  level_count_.store(static_cast<unsigned>(n + 1), std::memory_order_release);
  return Status::OK();
}

// Creating a level costs its block table only (8 bytes a unit): the units
// whose subtrees reach it allocate their blocks as they do (EnsureBlock),
// so that a unit holding most records costs its own records' space.
Status LeveledTable::EnsureLevel(unsigned level) {
  if (level < level_count()) return Status::OK();
  MutexLock lock(&level_mu_);
  if (level < level_count()) return Status::OK();
  if (level > pool::kMaxPmemLevels) return Status::NoSpace("too many levels");
  Level l = PmemLevelShape(level);
  if (l.index_bits > 40)
    return Status::NoSpace("level directory would exceed 512 TiB");
  pool::LevelDescriptor d{};
  d.entry_count = l.entry_count;
  d.block_bytes = l.block_bytes;
  const uint64_t table_bytes = dram_entries() * sizeof(uint64_t);
  Status s = pool_->allocator().Allocate(table_bytes, 64, &d.block_table_offset);
  if (!s.ok()) return s.WithContext("creating level " + std::to_string(level));
  // Fresh heap space is zero: no unit has a block yet.
  l.block_table = media_.At<uint64_t>(d.block_table_offset);
  NoteBlock(d.block_table_offset, table_bytes);
  s = pool_->AddLevel(d);
  if (!s.ok()) return s;
  levels_[level] = l;
  level_count_.store(level + 1, std::memory_order_release);
  return Status::OK();
}

Status LeveledTable::EnsureBlock(unsigned level, uint64_t index) {
  const Level& l = levels_[level];
  const uint64_t unit = index >> l.unit_shift;
  if (l.blocks[unit].load(std::memory_order_relaxed) != nullptr)
    return Status::OK();
  uint64_t offset = 0;
  Status s = pool_->allocator().Allocate(l.block_bytes, kBlockAlignment, &offset);
  if (!s.ok()) {
    return s.WithContext("allocating the directory block of unit " +
                         std::to_string(unit) + " on level " +
                         std::to_string(level) + " (" +
                         std::to_string(l.block_bytes) + " bytes)");
  }
  // Fresh heap space is zero: every entry of the block is empty, at epoch
  // 0, or on level 1 at the unit's epoch floor, which the block table word
  // held until now (recovery reads a unit's epoch from its children). The
  // block is durably named before any record moves into it.
  if (l.preallocated) media_.Prefault(offset, l.block_bytes);
  if (const uint64_t floor = level == 1 ? EpochFloor(unit) : 0; floor != 0) {
    auto* entries = media_.At<DirectoryEntry>(offset);
    for (uint64_t i = 0; i <= l.unit_mask; ++i) {
      StoreRelaxed(entries[i].state, EntryState{floor, 0}.Encode());
      media_.Flush(&entries[i].state, sizeof(uint64_t));
    }
    media_.Drain();
  }
  StoreRelaxed(l.block_table[unit], offset);
  media_.Persist(&l.block_table[unit], sizeof(uint64_t));
  NoteBlock(offset, l.block_bytes);
  l.blocks[unit].store(media_.At<DirectoryEntry>(offset),
                       std::memory_order_release);
  return Status::OK();
}

void LeveledTable::NoteBlock(uint64_t offset, uint64_t bytes) {
  MutexLock lock(&blocks_mu_);
  const std::pair<uint64_t, uint64_t> range{offset, offset + bytes};
  block_ranges_.insert(
      std::upper_bound(block_ranges_.begin(), block_ranges_.end(), range),
      range);
}

uint64_t LeveledTable::ChildIndex(unsigned level, uint64_t index,
                                  uint64_t hash) const {
  const Level& l = levels_[level];
  const uint64_t digit =
      (hash >> l.index_bits) & ((uint64_t{1} << l.child_bits) - 1);
  return index << l.child_bits | digit;
}

Bucket* LeveledTable::BucketAt(const Level& level, uint64_t index,
                               const DirectoryEntry& e, unsigned b) const {
  if (level.bucket_area != nullptr)
    return &level.bucket_area[index * fanout_ + b];
  if (level.preallocated) {
    if (&e == &kNoEntry) return nullptr;
    // The block's buckets follow its entries.
    const uint64_t local = index & level.unit_mask;
    auto* block = reinterpret_cast<char*>(const_cast<DirectoryEntry*>(&e - local));
    return reinterpret_cast<Bucket*>(
               block + (level.unit_mask + 1) * sizeof(DirectoryEntry)) +
           local * fanout_ + b;
  }
  const uint64_t offset = LoadRelaxed(e.bucket[b]);
  return ValidBucketRef(offset) ? media_.At<Bucket>(offset) : nullptr;
}

void LeveledTable::PrefetchDramSlot(uint64_t dram_index) const {
  assert(DramLocked(dram_index));
  const DirectoryEntry& e = levels_[0].entries[dram_index];
  PrefetchDramSlotAt(dram_index,
                     EntryState::Decode(LoadRelaxed(e.state)).size);
}

void LeveledTable::PrefetchDramSlotAt(uint64_t dram_index,
                                      unsigned position) const {
  const unsigned pos = std::min(position, capacity_ - 1);
  const Bucket& bucket =
      levels_[0].bucket_area[dram_index * fanout_ + pos / kSlotsPerBucket];
  __builtin_prefetch(&bucket.keys[pos % kSlotsPerBucket], 1);
  __builtin_prefetch(&bucket.values[pos % kSlotsPerBucket], 1);
}

bool LeveledTable::ValidBucketRef(uint64_t offset) const {
  // Validated before every use, so that a damaged pool yields an error
  // instead of a wild access or the reuse of space handed out again.
  return offset >= pool_->heap_offset() && offset % sizeof(Bucket) == 0 &&
         offset <= pool_->allocated_end() - sizeof(Bucket);
}

bool LeveledTable::WritableBucketRef(uint64_t offset) const {
  if (!ValidBucketRef(offset)) return false;
  // Blocks do not overlap (AttachLevels): only the last one that starts
  // below the bucket's end can hold part of it.
  MutexLock lock(&blocks_mu_);
  const auto next = std::upper_bound(
      block_ranges_.begin(), block_ranges_.end(),
      std::pair<uint64_t, uint64_t>{offset + sizeof(Bucket) - 1, ~uint64_t{0}});
  return next == block_ranges_.begin() || std::prev(next)->second <= offset;
}

EntryState LeveledTable::DramState(uint64_t dram_index) const {
  return EntryState::Decode(LoadRelaxed(levels_[0].entries[dram_index].state));
}

unsigned LeveledTable::InsertDram(uint64_t dram_index, uint64_t hash,
                                  const Slot& slot, bool logged,
                                  uint64_t expires_at_ms) {
  assert(DramLocked(dram_index));
  if (!slot.tombstone) {
    const uint64_t expiry = expires_at_ms == 0 ? kNoExpiryBound : expires_at_ms;
    std::atomic<uint64_t>& bound = unit_expiry_bound_[dram_index];
    if (bound.load(std::memory_order_relaxed) < expiry)
      bound.store(expiry, std::memory_order_relaxed);
  }
  return AppendDram(dram_index, hash, slot, logged);
}

void LeveledTable::WriteDramSlot(uint64_t dram_index, unsigned pos,
                                 uint64_t hash, const Slot& slot,
                                 bool logged) {
  DirectoryEntry& e = levels_[0].entries[dram_index];
  AssignBit(e.unlogged, pos, !logged);
  const unsigned b = pos / kSlotsPerBucket;
  const unsigned i = pos % kSlotsPerBucket;
  Bucket& bucket = levels_[0].bucket_area[dram_index * fanout_ + b];
  StoreRelaxed(bucket.keys[i], slot.key);
  StoreRelaxed(bucket.values[i], slot.value);
  AssignBit(e.tombstone, pos, slot.tombstone);
  AssignBit(e.indirect, pos, slot.indirect);
  if (i == 0) FilterResetBucket(e.filter, b, fanout_);
  FilterAdd(e.filter, b, ProbeOf(hash));
}

unsigned LeveledTable::AppendDram(uint64_t dram_index, uint64_t hash,
                                  const Slot& slot, bool logged) {
  DirectoryEntry& e = levels_[0].entries[dram_index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  const unsigned pos = st.size;
  WriteDramSlot(dram_index, pos, hash, slot, logged);
  StoreRelease(e.state, EntryState{st.epoch, pos + 1}.Encode());
  dram_inserted_.Add(1);
  return pos + 1;
}

void LeveledTable::RewriteDram(uint64_t dram_index,
                               std::span<const Slot> slots,
                               std::span<const uint64_t> hashes) {
  assert(DramLocked(dram_index) && !DramHasUnlogged(dram_index));
  assert(slots.size() <= capacity_ && slots.size() == hashes.size());
  DirectoryEntry& e = levels_[0].entries[dram_index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  const uint64_t epoch = st.epoch + 1;
  // A reader that read slots before this store sees the epoch change
  // when it validates, and one that comes after waits for the next
  // store: no reader takes a half-rewritten slot for an answer.
  StoreBeforeWrites(e.state,
                    EntryState{epoch, EntryState::kRewriting}.Encode());
  for (unsigned pos = 0; pos < slots.size(); ++pos)
    WriteDramSlot(dram_index, pos, hashes[pos], slots[pos], /*logged=*/true);
  const auto size = static_cast<unsigned>(slots.size());
  StoreRelease(e.state, EntryState{epoch, size}.Encode());
  RaiseMaxDramEpoch(epoch);
  dram_cleared_.Add(st.size);
  dram_inserted_.Add(size);
}

unsigned LeveledTable::DroppableInDramSample(uint64_t dram_index,
                                             unsigned samples) const {
  const DirectoryEntry& e = levels_[0].entries[dram_index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  if (st.size == 0 || st.size > capacity_) return 0;
  unsigned droppable = 0;
  for (unsigned i = 0; i < samples; ++i) {
    const unsigned pos = i * st.size / samples;
    const Bucket& bucket =
        levels_[0].bucket_area[dram_index * fanout_ + pos / kSlotsPerBucket];
    if (DramSlotDroppable(dram_index, st.epoch, pos,
                          LoadRelaxed(bucket.keys[pos % kSlotsPerBucket]),
                          TestBit(e.indirect, pos),
                          LoadRelaxed(bucket.values[pos % kSlotsPerBucket]))) {
      ++droppable;
    }
  }
  return droppable;
}

bool LeveledTable::DramSlotDroppable(uint64_t dram_index, uint64_t epoch,
                                     unsigned position, uint64_t key_word,
                                     bool indirect, uint64_t value) const {
  return DramSlotSuperseded(dram_index, epoch, position, key_word,
                            indirect) ||
         (indirect && resolver_ != nullptr &&
          resolver_->StateOfRef(value) == RefState::kExpired);
}

bool LeveledTable::DramSlotSuperseded(uint64_t dram_index, uint64_t epoch,
                                      unsigned position, uint64_t key_word,
                                      bool indirect) const {
  const DirectoryEntry& e = levels_[0].entries[dram_index];
  const EntryState st = EntryState::Decode(LoadAcquire(e.state));
  if (epoch < st.epoch) return true;
  if (epoch > st.epoch || st.size > capacity_) return false;
  // Only the buckets the filter names can hold the key: a few lines read,
  // not the entry's.
  const unsigned buckets = (st.size + kSlotsPerBucket - 1) / kSlotsPerBucket;
  uint32_t candidates = FilterCandidates(
      e.filter, buckets, ProbeOf(HashOf(key_word, indirect)));
  candidates &= ~((1u << (position / kSlotsPerBucket)) - 1);
  for (; candidates != 0; candidates &= candidates - 1) {
    const unsigned b = std::countr_zero(candidates);
    const Bucket& bucket = levels_[0].bucket_area[dram_index * fanout_ + b];
    for (unsigned pos = std::max(b * kSlotsPerBucket, position + 1);
         pos < std::min((b + 1) * kSlotsPerBucket, st.size); ++pos) {
      if (LoadRelaxed(bucket.keys[pos % kSlotsPerBucket]) == key_word &&
          TestBit(e.indirect, pos) == indirect) {
        return true;
      }
    }
  }
  return false;
}

void LeveledTable::RaiseMaxDramEpoch(uint64_t epoch) {
  uint64_t max = max_dram_epoch_.load(std::memory_order_relaxed);
  while (epoch > max && !max_dram_epoch_.compare_exchange_weak(
                            max, epoch, std::memory_order_acq_rel)) {
  }
}

void LeveledTable::AddUnitRecords(unsigned level, uint64_t index,
                                  int64_t delta) {
  const unsigned unit_shift = levels_[level].index_bits - levels_[0].index_bits;
  std::atomic<uint64_t>& records = unit_records_[index >> unit_shift];
  records.store(records.load(std::memory_order_relaxed) +
                    static_cast<uint64_t>(delta),
                std::memory_order_relaxed);
  total_unit_records_.fetch_add(static_cast<uint64_t>(delta),
                                std::memory_order_relaxed);
}

void LeveledTable::SetDramEpoch(uint64_t dram_index, uint64_t epoch) {
  DirectoryEntry& e = levels_[0].entries[dram_index];
  const EntryState st = EntryState::Decode(LoadRelaxed(e.state));
  StoreRelease(e.state, EntryState{epoch, st.size}.Encode());
  RaiseMaxDramEpoch(epoch);
}

void LeveledTable::PrefetchDram(uint64_t hash) const {
  const DirectoryEntry& e = levels_[0].entries[DramIndex(hash)];
  __builtin_prefetch(&e.state, 1);
  __builtin_prefetch(&e.tombstone, 1);
  __builtin_prefetch(FilterLine(e.filter, ProbeOf(hash)), 1);
}

// Memory latency, not computation, decides lookup speed, and dependent
// misses are the expensive kind. Every level's entry follows from the hash
// alone, so all of them are loaded at once (round 1: PlanLookup); their
// filters then name the candidate buckets of every level, loaded at once
// too, with the flag lines a match reads (round 2: PrefetchCandidates).
// The search proper (FinishLookup) then mostly hits the cache. MultiGet
// runs each round for a group of keys before the next, so that the misses
// of different keys overlap as well.
void LeveledTable::PlanLookup(const LookupKey& key, LookupPlan* plan) const {
  plan->key = key;
  plan->probe = ProbeOf(key.hash);
  plan->levels = level_count();
  plan->index[0] = DramIndex(key.hash);
  for (unsigned l = 0; l < plan->levels; ++l) {
    if (l > 0) plan->index[l] = ChildIndex(l - 1, plan->index[l - 1], key.hash);
    const DirectoryEntry& e = EntryAt(levels_[l], plan->index[l]);
    __builtin_prefetch(&e.state);
    __builtin_prefetch(FilterLine(FilterOf(levels_[l], plan->index[l], e),
                                  plan->probe));
    if (HasBucketRefs(levels_[l])) {
      __builtin_prefetch(&e.bucket[0]);
      __builtin_prefetch(&e.bucket[8]);
    }
  }
}

void LeveledTable::PrefetchCandidates(const LookupPlan& plan) const {
  for (unsigned l = 0; l < plan.levels; ++l) {
    const Level& level = levels_[l];
    const DirectoryEntry& e = EntryAt(level, plan.index[l]);
    const unsigned size =
        std::min(EntryState::Decode(LoadRelaxed(e.state)).size, capacity_);
    const unsigned buckets = (size + kSlotsPerBucket - 1) / kSlotsPerBucket;
    uint32_t c = FilterCandidates(FilterOf(level, plan.index[l], e), buckets,
                                  plan.probe);
    // A candidate bucket is searched with the entry's flag line (indirect
    // and tombstone bits): load it with the bucket, not after.
    if (c != 0) __builtin_prefetch(&e.tombstone);
    for (; c != 0; c &= c - 1) {
      const Bucket* bucket =
          BucketAt(level, plan.index[l], e, std::countr_zero(c));
      if (bucket == nullptr) continue;
      for (unsigned line = 0; line < sizeof(Bucket); line += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(bucket) + line);
      }
    }
  }
}

// Round 3, for keys that live in the payload logs: the search confirms a
// hash match by reading the key from the match's payload entry, one more
// dependent miss. Its line is the newest matching slot's reference, which
// round 2's lines (in cache by now) name.
void LeveledTable::PrefetchNewestPayload(const LookupPlan& plan) const {
  if (plan.key.has_inline || resolver_ == nullptr) return;
  for (unsigned l = 0; l < plan.levels; ++l) {
    const Level& level = levels_[l];
    const DirectoryEntry& e = EntryAt(level, plan.index[l]);
    const unsigned size =
        std::min(EntryState::Decode(LoadRelaxed(e.state)).size, capacity_);
    const unsigned buckets = (size + kSlotsPerBucket - 1) / kSlotsPerBucket;
    for (uint32_t c = FilterCandidates(FilterOf(level, plan.index[l], e), buckets,
                                       plan.probe);
         c != 0;) {
      const unsigned b = 31 - std::countl_zero(c);
      c &= ~(1u << b);
      const Bucket* bucket = BucketAt(level, plan.index[l], e, b);
      if (bucket == nullptr) continue;
      const unsigned used = std::min(size - b * kSlotsPerBucket, kSlotsPerBucket);
      const uint32_t indirect =
          static_cast<uint32_t>(LoadRelaxed(e.indirect[b / 4]) >> (b % 4 * 16)) &
          ((1u << used) - 1);
      const uint32_t matches =
          MatchKeys(bucket->keys, plan.key.hash, hasher_.hash_bits()) &
          indirect;
      if (matches != 0) {
        resolver_->PrefetchEntry(
            LoadRelaxed(bucket->values[31 - std::countl_zero(matches)]));
        return;
      }
    }
  }
}

Found LeveledTable::Lookup(const LookupKey& key, Slot* slot,
                           bool durable_only) const {
  LookupPlan plan;
  PlanLookup(key, &plan);
  PrefetchCandidates(plan);
  return FinishLookup(&plan, slot, durable_only);
}

Found LeveledTable::FinishLookup(LookupPlan* plan, Slot* slot,
                                 bool durable_only) const {
  const LookupKey& key = plan->key;
  auto& index = plan->index;
  // Re-reading the level count each step matters: records only move down,
  // and a level is published before any record moves into it. A dangling
  // payload reference means a compaction raced this lookup after a newer
  // version was written: the search starts over and finds that version.
  // Only a damaged pool shows one that no compaction explains; the search
  // then treats it as another key, so that it ends.
  //
  // One move is not downwards: a migration drops a dangling reference,
  // whose newer version went into the DRAM entry (a write, or a
  // compaction's relocation) — possibly after this search passed the DRAM
  // level. Both that insert and every migration change the DRAM entry's
  // state, so an answer from below the DRAM level counts only if that
  // state held still meanwhile. (Every restart follows another thread's
  // progress: an insert, a migration or a compaction.)
  const uint64_t& dram_state = levels_[0].entries[index[0]].state;
  bool skip_dangling = false;
  for (;;) {
    const uint64_t frees =
        resolver_ != nullptr ? resolver_->chunk_frees_started() : 0;
    const uint64_t dram_before = LoadAcquire(dram_state);
    Found found = Found::kAbsent;
    unsigned l = 0;
    for (unsigned n; l < (n = level_count()); ++l) {
      if (l > 0) index[l] = ChildIndex(l - 1, index[l - 1], key.hash);
      found = SearchEntry(levels_[l], index[l], key, plan->probe,
                          skip_dangling, durable_only && l == 0, slot);
      if (found != Found::kAbsent) break;
    }
    if (found == Found::kRetry) {
      skip_dangling = resolver_->chunk_frees_started() == frees;
      continue;
    }
    if (l == 0 || ReloadAfterReads(dram_state) == dram_before) return found;
  }
}

Found LeveledTable::Get(const LookupKey& key, std::string* value,
                        uint64_t* expires_at_ms) const {
  Slot slot;
  const Found found = Lookup(key, &slot);
  return found == Found::kValue ? ReadValue(key, slot, value, expires_at_ms)
                                : found;
}

// A compaction may free the payload between the lookup and the copy (the
// copy then sees a dangling reference): look up again, which finds the
// relocated version. Each retry follows a chunk free; on a pool that
// nothing changes, lookup and copy agree.
Found LeveledTable::ReadValue(const LookupKey& key, Slot slot,
                              std::string* value,
                              uint64_t* expires_at_ms) const {
  for (;;) {
    if (!slot.indirect) {
      value->assign(reinterpret_cast<const char*>(&slot.value),
                    sizeof(slot.value));
      if (expires_at_ms != nullptr) *expires_at_ms = 0;
      return Found::kValue;
    }
    switch (resolver_->ReadValue(slot.value, key.bytes, value,
                                 expires_at_ms)) {
      case RefMatch::kYes:
        return Found::kValue;
      case RefMatch::kExpired:
        value->clear();
        return Found::kTombstone;
      case RefMatch::kNo:
        return Found::kDamaged;  // the lookup matched this very entry
      case RefMatch::kDangling:
        break;
    }
    const Found found = Lookup(key, &slot);
    if (found != Found::kValue) return found;
  }
}

// Groups small enough that their prefetches fit the CPU's outstanding
// misses (a key loads a few lines per level).
constexpr size_t kLookupGroup = 16;

void LeveledTable::MultiLookup(const LookupKey* keys, size_t n, Slot* slots,
                               Found* found) const {
  std::array<LookupPlan, kLookupGroup> plans;
  for (size_t first = 0; first < n; first += kLookupGroup) {
    const size_t m = std::min(kLookupGroup, n - first);
    for (size_t i = 0; i < m; ++i) PlanLookup(keys[first + i], &plans[i]);
    for (size_t i = 0; i < m; ++i) PrefetchCandidates(plans[i]);
    for (size_t i = 0; i < m; ++i) PrefetchNewestPayload(plans[i]);
    for (size_t i = 0; i < m; ++i)
      found[first + i] = FinishLookup(&plans[i], &slots[first + i]);
  }
}

void LeveledTable::MultiGet(const LookupKey* keys, size_t n,
                            std::string* values, Found* found) const {
  std::array<Slot, kLookupGroup> slots;
  for (size_t first = 0; first < n; first += kLookupGroup) {
    const size_t m = std::min(kLookupGroup, n - first);
    MultiLookup(keys + first, m, slots.data(), found + first);
    for (size_t i = 0; i < m; ++i) {
      if (found[first + i] == Found::kValue && slots[i].indirect)
        resolver_->PrefetchEntry(slots[i].value);
    }
    for (size_t i = 0; i < m; ++i) {
      if (found[first + i] != Found::kValue) continue;
      found[first + i] = ReadValue(keys[first + i], slots[i], &values[first + i]);
    }
  }
}

Found LeveledTable::SearchEntry(const Level& level, uint64_t index,
                                const LookupKey& key, const FilterProbe& probe,
                                bool skip_dangling, bool skip_unlogged,
                                Slot* slot) const {
  const DirectoryEntry& e = EntryAt(level, index);
  if (&e == &kNoEntry) return Found::kAbsent;  // no block: never written
  for (;;) {
    const uint64_t before = LoadAcquire(e.state);
    const EntryState st = EntryState::Decode(before);
    // (Only a DRAM entry is ever rewritten in place; on a PMem level the
    // value is damage, read as the size over capacity that it is.)
    if (st.size == EntryState::kRewriting && &level == &levels_[0]) {
      std::this_thread::yield();  // a rewrite takes microseconds
      continue;
    }
    const unsigned size = std::min(st.size, capacity_);
    Found found = Found::kAbsent;
    if (size > 0) {
      const unsigned buckets = (size + kSlotsPerBucket - 1) / kSlotsPerBucket;
      uint32_t candidates =
          FilterCandidates(FilterOf(level, index, e), buckets, probe);
      while (candidates != 0 && found == Found::kAbsent) {
        const unsigned b = 31 - std::countl_zero(candidates);
        candidates &= ~(1u << b);
        const Bucket* bucket = BucketAt(level, index, e, b);
        if (bucket == nullptr) continue;
        const unsigned used =
            std::min(size - b * kSlotsPerBucket, kSlotsPerBucket);
        const uint32_t valid = (1u << used) - 1;
        const uint32_t indirect =
            static_cast<uint32_t>(LoadRelaxed(e.indirect[b / 4]) >>
                                  (b % 4 * 16)) &
            0xFFFF;
        uint32_t matches = 0;
        if (key.has_inline)
          matches |= MatchKeys(bucket->keys, key.inline_key) & ~indirect;
        if (indirect != 0 && resolver_ != nullptr) {
          matches |=
              MatchKeys(bucket->keys, key.hash, hasher_.hash_bits()) &
              indirect;
        }
        matches &= valid;
        if (skip_unlogged) {
          matches &= ~static_cast<uint32_t>(LoadRelaxed(e.unlogged[b / 4]) >>
                                            (b % 4 * 16));
        }
        while (matches != 0) {
          const unsigned i = 31 - std::countl_zero(matches);
          matches &= ~(1u << i);
          const unsigned pos = b * kSlotsPerBucket + i;
          Slot s{LoadRelaxed(bucket->keys[i]), LoadRelaxed(bucket->values[i]),
                 TestBit(e.tombstone, pos), ((indirect >> i) & 1) != 0};
          if (s.indirect) {
            const RefMatch m = resolver_->RefHasKey(s.value, key.bytes);
            if (m == RefMatch::kNo) continue;
            if (m == RefMatch::kDangling) {
              if (skip_dangling) continue;
              found = Found::kRetry;
              break;
            }
          }
          *slot = s;
          found = s.tombstone ? Found::kTombstone : Found::kValue;
          break;
        }
      }
    }
    // Validate: the entry was neither cleared nor refilled meanwhile. An
    // append (same epoch, larger size) leaves the slots read untouched.
    const EntryState after = EntryState::Decode(ReloadAfterReads(e.state));
    if (after.epoch == st.epoch && after.size >= st.size) return found;
  }
}

uint64_t LeveledTable::FirstLevelEpoch(uint64_t hash) const {
  if (level_count() < 2) return 0;
  const uint64_t index = ChildIndex(0, DramIndex(hash), hash);
  if (!HasBlock(levels_[1], index)) return EpochFloor(DramIndex(hash));
  return EntryState::Decode(LoadAcquire(EntryAt(levels_[1], index).state))
      .epoch;
}

uint64_t LeveledTable::EpochFloor(uint64_t dram_index) const {
  if (level_count() < 2) return 0;
  const uint64_t word = LoadRelaxed(levels_[1].block_table[dram_index]);
  return pool::IsEpochFloor(word) ? pool::EpochOfFloor(word) : 0;
}

std::pair<uint64_t, uint64_t> LeveledTable::ChildEpochRange(
    uint64_t dram_index) const {
  if (level_count() < 2) return {0, 0};
  if (!HasBlock(levels_[1], dram_index << levels_[0].child_bits)) {
    const uint64_t floor = EpochFloor(dram_index);
    return {floor, floor};
  }
  uint64_t min = ~uint64_t{0};
  uint64_t max = 0;
  const unsigned children = 1u << levels_[0].child_bits;
  for (unsigned j = 0; j < children; ++j) {
    const DirectoryEntry& child = EntryAt(levels_[1], dram_index * children + j);
    const uint64_t epoch = EntryState::Decode(LoadAcquire(child.state)).epoch;
    min = std::min(min, epoch);
    max = std::max(max, epoch);
  }
  return {min, max};
}

void LeveledTable::CountUnit(uint64_t dram_index) {
  const unsigned dram_bits = levels_[0].index_bits;
  uint64_t n = 0;
  for (unsigned l = 1; l < level_count(); ++l) {
    const unsigned shift = levels_[l].index_bits - dram_bits;
    if (!HasBlock(levels_[l], dram_index << shift)) continue;
    for (uint64_t i = dram_index << shift; i < (dram_index + 1) << shift; ++i) {
      n += std::min(
          EntryState::Decode(LoadRelaxed(EntryAt(levels_[l], i).state)).size,
          capacity_);
    }
  }
  SetUnitPmemRecords(dram_index, n);
}

LeveledTable::Occupancy LeveledTable::CountRecords() const {
  Occupancy o;
  o.per_unit.assign(dram_entries(), 0);
  const unsigned dram_bits = levels_[0].index_bits;
  for (unsigned l = 0; l < level_count(); ++l) {
    // The subtree of DRAM entry u covers a contiguous run of each level's
    // entries (ChildIndex appends digits below the parent's index).
    const unsigned unit_shift = levels_[l].index_bits - dram_bits;
    uint64_t n = 0;
    for (uint64_t i = 0; i < levels_[l].entry_count; ++i) {
      if (l > 0 && !HasBlock(levels_[l], i)) {
        i |= levels_[l].unit_mask;  // the unit's entries are all empty
        continue;
      }
      const unsigned size = std::min(
          EntryState::Decode(LoadRelaxed(EntryAt(levels_[l], i).state)).size,
          capacity_);
      n += size;
      o.per_unit[i >> unit_shift] += size;
    }
    o.per_level.push_back(n);
  }
  return o;
}

}  // namespace plush::table
