// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The leveled hash table (paper §4.1, §5.1-5.3, listings 1-3).
//
//   level 0 (DRAM)   D entries                      hash bits [0, d)
//   level 1 (PMem)   D * f1 entries                 hash bits [0, d + a)
//   level k+1        (entries of level k) * f       hash bits [0, d + a + k*b)
//
// with D = 2^d = 2^dram_directory_bits, f1 = 2^a the first-level fanout and
// f = 2^b the fanout. The children of entry i of level k are the f
// contiguous entries i*f .. i*f + f-1 of level k+1, told apart by the next
// b hash bits. Every entry, DRAM included, holds up to f buckets of 16
// slots (table_format.h), filled in order.
//
// A PMem level's directory is cut into one block per unit (DRAM entry):
// the unit's entries on the level, which are consecutive, allocated when a
// migration of the unit first writes to the level (EnsureBlock) and named
// by the level's block table (docs/format.md §3.2). A unit whose subtree
// grows deep takes directory space on its own levels only.
//
// Writes go to the DRAM level only. When a DRAM entry is full, its records
// migrate to its children on level 1 (rehashed by the next bits; newest
// version of each key wins; tombstones cancel what they shadow), recursively
// when a child is full, creating levels on demand. Persist order of a
// migration: records + filters + flags of all targets (one fence), then the
// targets' state words (one fence), then the source is cleared (one more
// fence when the source is on PMem). A crash can therefore duplicate
// records on two levels but never lose one; duplicates merge at the next
// migration.
//
// Reads search the DRAM level, then every PMem level, newest first; in each
// entry they test the filter, then search candidate buckets back to front.
// They take no locks: an entry's state word is read before and after, and
// the read is retried if the entry was cleared or refilled in between.
//
// Concurrency contract:
//   * a writer locks the DRAM entry of its key (LockDram) before Insert or
//     Migrate; the lock covers the entry and its whole subtree on the PMem
//     levels (children only ever receive records from their parent);
//   * any number of readers run concurrently with writers, lock-free;
//   * nothing is ever freed while the table is open (buckets are reused in
//     place under the state-word protocol), so readers need no reclamation.

#ifndef PLUSH_TABLE_LEVELED_TABLE_H_
#define PLUSH_TABLE_LEVELED_TABLE_H_

#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "placement/key_hasher.h"
#include "plush/status.h"
#include "pool/pool.h"
#include "table/filter.h"
#include "table/payload_resolver.h"
#include "table/table_format.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/spin_lock.h"

namespace plush::table {

// The content of one slot.
struct Slot {
  uint64_t key = 0;    // the 8-byte key, or the key hash if `indirect`
  uint64_t value = 0;  // the 8-byte value, or a payload reference
  bool tombstone = false;
  bool indirect = false;
};

// What a lookup looks for.
struct LookupKey {
  std::string_view bytes;  // the whole key
  uint64_t hash = 0;       // the table's hasher().Hash(bytes)
  // Present iff the key is exactly 8 bytes: such keys may be stored inline.
  bool has_inline = false;
  uint64_t inline_key = 0;

  static LookupKey For(std::string_view key, uint64_t hash);
};

enum class Found {
  kAbsent,
  kValue,
  kTombstone,
  kRetry,    // SearchEntry only: a dangling reference was met; start over
  kDamaged,  // Get only: the newest version's payload holds another key
};

class LeveledTable {
 public:
  // Attaches to the levels recorded in `pool` and allocates the DRAM level.
  static Status Open(pool::Pool* pool, std::unique_ptr<LeveledTable>* table);
  ~LeveledTable();

  void set_resolver(const PayloadResolver* resolver) { resolver_ = resolver; }

  // The placement of keys (hash or range partitioning).
  const KeyHasher& hasher() const { return hasher_; }
  // The table hash of a slot's key: stored in indirect slots (beside a
  // fingerprint, in pools with them), computed from the key of inline
  // ones.
  uint64_t HashOf(uint64_t key_word, bool indirect) const {
    return indirect ? key_word & hasher_.hash_bits()
                    : hasher_.InlineHash(key_word);
  }
  // HashOf() a slot of entry `index` of level `level`, as written there
  // (KeyHasher::InlineHashOnUnit: no range map search per slot).
  uint64_t HashInEntry(uint64_t key_word, bool indirect, unsigned level,
                       uint64_t index) const {
    return indirect ? key_word & hasher_.hash_bits()
                    : hasher_.InlineHashOnUnit(key_word,
                                               UnitOfEntry(level, index));
  }
  // The DRAM entry whose subtree holds entry `index` of level `level`.
  uint64_t UnitOfEntry(unsigned level, uint64_t index) const {
    return index >> (levels_[level].index_bits - levels_[0].index_bits);
  }

  uint64_t dram_entries() const { return levels_[0].entry_count; }
  unsigned capacity() const { return capacity_; }
  // The DRAM entry size at which an entry is migrated ahead of need
  // (db/background_work.h): 7/8 of its capacity. An entry that reaches it
  // receives capacity/8 more records (32 at the default fanout) before a
  // writer would have to migrate it, which at millions of inserts per
  // second spread over the DRAM level is many milliseconds; migrating at
  // 7/8 instead of full costs 1/7 more migrations.
  unsigned high_water() const { return capacity_ - capacity_ / 8; }
  // Index of the DRAM entry of a key hash.
  uint64_t DramIndex(uint64_t hash) const {
    return hash & (dram_entries() - 1);
  }

  // ---- Writers (REQUIRE the DRAM entry's lock) -----------------------------

  // Starts loading the lines of the DRAM entry of `hash` that an insert
  // reads before it knows its slot: the lock and state line, the flag
  // line and the key's filter line. Call before taking the entry's lock:
  // all three misses then overlap the lock's (one round instead of two).
  void PrefetchDram(uint64_t hash) const;
  // Starts loading the lines the next InsertDram into the entry writes.
  // REQUIRES: the entry's lock.
  void PrefetchDramSlot(uint64_t dram_index) const;
  // The same for the slot at `position` (a batch fills several slots).
  void PrefetchDramSlotAt(uint64_t dram_index, unsigned position) const;
  SpinLockRef DramLock(uint64_t dram_index) {
    return SpinLockRef(levels_[0].entries[dram_index].lock);
  }
  // Whether some thread holds the entry's lock: what debug builds assert
  // where a lock is REQUIRED (the per-entry locks are words, which the
  // compile-time analysis of util/thread_annotations.h cannot name).
  bool DramLocked(uint64_t dram_index) const {
    return LoadRelaxed(levels_[0].entries[dram_index].lock) != 0;
  }
  EntryState DramState(uint64_t dram_index) const;
  bool DramFull(uint64_t dram_index) const {
    return DramState(dram_index).size >= capacity_;
  }
  // Appends a slot to the DRAM entry and returns the entry's new size.
  // REQUIRES: the entry's lock, !DramFull(dram_index). `logged`: the slot's
  // record is in the recovery log (else it is durable only once the entry
  // migrates). `expires_at_ms`: the record's expiry (0 = none), which the
  // unit's expiry bound takes in (UnitExpiryBound).
  unsigned InsertDram(uint64_t dram_index, uint64_t hash, const Slot& slot,
                      bool logged, uint64_t expires_at_ms);
  // True while the DRAM entry holds records that are not in the recovery
  // log (unlogged writes not yet migrated).
  bool DramHasUnlogged(uint64_t dram_index) const {
    for (const uint64_t& w : levels_[0].entries[dram_index].unlogged) {
      if (LoadRelaxed(w) != 0) return true;
    }
    return false;
  }
  // Moves the DRAM entry's records to PMem and advances its epoch.
  // NoSpace if the pool cannot hold them (nothing moved then).
  Status MigrateDram(uint64_t dram_index);
  // Reads only: Corruption if a directory entry of the DRAM entry's
  // subtree holds what a migration through it refuses (a size over the
  // capacity, a bucket reference that is not a bucket of the heap).
  // Recovery checks every entry it will migrate before it writes to any,
  // so that a pool it rejects is left as it was.
  Status CheckSubtreeMigratable(uint64_t dram_index) const;
  // The newest version of each key of the DRAM entry, oldest first, their
  // hashes and (if `expiries` is not null) their expiries (0 = none): what
  // a migration would move (dangling payload references dropped, expired
  // records as tombstones). REQUIRES: the entry's lock.
  Status NewestInDram(uint64_t dram_index, std::vector<Slot>* slots,
                      std::vector<uint64_t>* hashes,
                      std::vector<uint64_t>* expiries = nullptr) const;
  // Whether a tombstone of the DRAM entry (`slot`, with table hash `hash`)
  // hides nothing: no version of its key on the PMem levels.
  bool HidesNothingBelowDram(uint64_t dram_index, const Slot& slot,
                             uint64_t hash) const;
  // Creates PMem level 1 if the table has none yet (RetireDramEpochs needs
  // it). NoSpace if the pool cannot hold its block table.
  Status EnsureFirstLevel() { return EnsureLevel(1); }
  // A DRAM entry and the epoch up to which its log records need no replay.
  struct RetiredEpoch {
    uint64_t dram_index;
    uint64_t epoch;
  };
  // Records for each entry that its log records up to `epoch` need no
  // replay (the entry's records of those epochs were logged again in a
  // later one, or dropped as hiding nothing): its level-1 children, or its
  // epoch floor where it has no block, take `epoch`, persisted — as a
  // migration without records would. What was logged before them (the
  // records logged again, their sync left to this: DrainBeforeSync) is
  // made durable first, and one barrier follows. REQUIRES: each entry's
  // lock, level 1, each `epoch` at most its entry's.
  void RetireDramEpochs(std::span<const RetiredEpoch> entries);
  // Replaces the DRAM entry's records with `slots` (NewestInDram's) in
  // the entry's next epoch, as a migration moves on to it: the log records
  // of the epochs before are no longer needed. Readers that meet the entry
  // meanwhile wait (EntryState::kRewriting). REQUIRES: the entry's lock,
  // no unlogged records in it, and `slots` in the recovery log at their
  // positions of the next epoch.
  void RewriteDram(uint64_t dram_index, std::span<const Slot> slots,
                   std::span<const uint64_t> hashes);
  // Whether the record that took slot `position` of the DRAM entry in
  // `epoch` is no longer its key's newest version there: the entry has
  // moved past that epoch, or a later slot holds the same key word (for
  // an indirect slot a hash, so an estimate). Lock-free and racy: for
  // deciding whether a rewrite pays, never for what a rewrite keeps.
  bool DramSlotSuperseded(uint64_t dram_index, uint64_t epoch,
                          unsigned position, uint64_t key_word,
                          bool indirect) const;
  // DramSlotSuperseded(), or the record (`value`: its slot's) expired:
  // whether a rewrite of the entry would drop it. As racy.
  bool DramSlotDroppable(uint64_t dram_index, uint64_t epoch,
                         unsigned position, uint64_t key_word, bool indirect,
                         uint64_t value) const;
  // How many of `samples` slots spread over the DRAM entry a rewrite
  // could drop (DramSlotDroppable). REQUIRES: the entry's lock.
  unsigned DroppableInDramSample(uint64_t dram_index,
                                  unsigned samples) const;
  // Recovery only (one thread per DRAM entry, no readers): appends a
  // replayed record, in the order the entry first received them.
  // REQUIRES: !DramFull(dram_index).
  // The unit's expiry bound becomes "not known" (what the replayed
  // records expire by is in their payload entries).
  void RecoverIntoDram(uint64_t dram_index, uint64_t hash, const Slot& slot) {
    unit_expiry_bound_[dram_index].store(kNoExpiryBound,
                                         std::memory_order_relaxed);
    AppendDram(dram_index, hash, slot, /*logged=*/true);
  }
  // Recovery only: sets the DRAM entry's epoch, keeping its records.
  void SetDramEpoch(uint64_t dram_index, uint64_t epoch);
  // The smallest and largest epoch among the level-1 children of a DRAM
  // entry ({0, 0} if level 1 does not exist).
  std::pair<uint64_t, uint64_t> ChildEpochRange(uint64_t dram_index) const;

  // ---- Readers (lock-free) -------------------------------------------------

  // Finds the newest version of `key`; on kValue/kTombstone fills *slot.
  // Never returns kRetry. `durable_only`: the newest version a crash would
  // leave, i.e. ignoring the DRAM level's unlogged records.
  Found Lookup(const LookupKey& key, Slot* slot,
               bool durable_only = false) const;
  // Lookup() of n keys, run in lockstep so that their cache misses overlap
  // (same answers). found[i] and slots[i] answer keys[i].
  void MultiLookup(const LookupKey* keys, size_t n, Slot* slots,
                   Found* found) const;
  // Lookup() and the copy of the value it finds (from the slot, or from the
  // payload logs). kValue: *value holds it, and *expires_at_ms (if not
  // null) its expiry (0 = none); kAbsent or kTombstone: no value (an
  // expired newest version is a tombstone). kDamaged: the newest version
  // references a payload entry of another key (only a damaged pool does
  // that).
  Found Get(const LookupKey& key, std::string* value,
            uint64_t* expires_at_ms = nullptr) const;
  // Get() of n keys, their lookups and value copies run in lockstep (same
  // answers as Get). found[i] and values[i] answer keys[i].
  void MultiGet(const LookupKey* keys, size_t n, std::string* values,
                Found* found) const;


  // ---- Ordered scans (REQUIRE the DRAM entry's lock) -----------------------

  // Appends every occupied slot of the DRAM entry and of its subtree on the
  // PMem levels (all records whose hash selects the DRAM entry) to *slots,
  // newest first: the DRAM entry, then level 1, 2, ...; within an entry the
  // last slot first. (Across the entries of one level order does not
  // matter: they hold different keys.) An indirect slot comes with key 0
  // (its hash is not read) unless the pool has fingerprints: then with
  // its key word. The lock keeps the subtree still. Corruption if
  // a bucket reference is damaged.
  Status CollectSubtree(uint64_t dram_index, std::vector<Slot>* slots) const;

  // ---- A unit's expiry bound ----------------------------------------------

  // The latest expiry among the records put into the unit (its DRAM entry,
  // by InsertDram) since it was last emptied, tombstones aside: once the
  // clock has passed it, the unit holds nothing a reader sees, whatever
  // versions it stores, and may be cleared whole (a range pool's
  // re-balancer then takes it for a new range without waiting for the
  // expiry sweep). kNoExpiryBound: a record that never expires went in,
  // or it is not known (after Open, for every unit that holds records on
  // PMem or in the recovery logs, until it is found or made empty).
  // 0: nothing went in. Lock-free, relaxed: a hint; decisions read it
  // under the entry's lock.
  static constexpr uint64_t kNoExpiryBound =
      std::numeric_limits<uint64_t>::max();
  uint64_t UnitExpiryBound(uint64_t dram_index) const {
    return unit_expiry_bound_[dram_index].load(std::memory_order_relaxed);
  }
  // Whether everything put into the unit since it was emptied had expired
  // at `now_ms` (the DB's clock): its bound is known and passed.
  bool UnitExpiredAt(uint64_t dram_index, uint64_t now_ms) const {
    const uint64_t bound = UnitExpiryBound(dram_index);
    return bound != kNoExpiryBound && now_ms > bound;
  }
  // Whether the unit's subtree has directory blocks on the PMem levels
  // (level 1's: a unit's records reach deeper levels through it), which a
  // unit that takes a new range reuses. Lock-free.
  bool UnitHasBlocks(uint64_t dram_index) const {
    return level_count() > 1 &&
           HasBlock(levels_[1], dram_index << (levels_[1].index_bits -
                                               levels_[0].index_bits));
  }
  // Records that the unit holds nothing, on PMem or in DRAM: its bound
  // starts again from 0. REQUIRES: the entry's lock, the unit empty.
  void ResetUnitExpiryBound(uint64_t dram_index) {
    unit_expiry_bound_[dram_index].store(0, std::memory_order_relaxed);
  }

  // ---- Expiry on the PMem levels (REQUIRE the DRAM entry's lock) ----------

  // When the unit's subtree on the PMem levels may next hold a directory
  // entry that SweepSubtree clears (Unix ms; UINT64_MAX: not known to):
  // the earliest expiry a migration moved into it since its last sweep,
  // or what that sweep found; 0 (at once) after Open. Lock-free, relaxed.
  uint64_t SubtreeDueMs(uint64_t dram_index) const {
    return subtree_due_[dram_index].load(std::memory_order_relaxed);
  }
  // Empties each directory entry of the unit's subtree whose records are
  // all gone to readers — expired, tombstones or superseded payload
  // references — where none of them hides an older version further down,
  // so that migrations refill its buckets, and learns when to look again
  // (SubtreeDueMs). An entry holding any record that never expires is
  // left to its migration. A sweep goes in parts of about kSweepSlots
  // slots read, each under the unit's lock (a call), so that a deep
  // subtree does not hold its writers up: start with a new SubtreeSweep
  // and call again until `done`; the unit may change in between.
  struct SubtreeSweep {
    unsigned level = 1;
    uint64_t offset = 0;  // of the next entry in the unit's block
    uint64_t next_due = std::numeric_limits<uint64_t>::max();
    uint64_t emptied = 0;  // entries emptied (made durable)
    bool done = false;
  };
  static constexpr unsigned kSweepSlots = 4096;
  void SweepSubtree(uint64_t dram_index, SubtreeSweep* sweep);

  // ---- Recovery, inspection ------------------------------------------------

  // The epoch of the level-1 entry of `hash`, or 0 if level 1 does not
  // exist yet. Log entries with an epoch at most this are on PMem.
  uint64_t FirstLevelEpoch(uint64_t hash) const;
  unsigned level_count() const {
    return level_count_.load(std::memory_order_acquire);
  }
  // Occupied slots per level (DRAM first), and per unit: a DRAM entry
  // with its subtree on the PMem levels (the part of the table a range
  // pool's ordered scans read at once). Counts stored versions; walks
  // every directory.
  struct Occupancy {
    std::vector<uint64_t> per_level;
    std::vector<uint64_t> per_unit;  // indexed by DRAM entry
  };
  Occupancy CountRecords() const;
  // The stored versions of unit `dram_index` on the PMem levels (its
  // subtree), kept up to date by migrations under the DRAM entry's lock;
  // counted from the levels by CountUnit() (until then: the changes since
  // the pool was opened). One contiguous array: a re-balance sums it and
  // looks for light neighbours in it. Lock-free, relaxed.
  uint64_t UnitPmemRecords(uint64_t dram_index) const {
    return unit_records_[dram_index].load(std::memory_order_relaxed);
  }
  // The sum of UnitPmemRecords() over every unit (a re-balance's mean).
  uint64_t TotalUnitPmemRecords() const {
    return total_unit_records_.load(std::memory_order_relaxed);
  }
  // The same with the DRAM entry's records.
  uint64_t UnitRecords(uint64_t dram_index) const {
    return UnitPmemRecords(dram_index) + DramState(dram_index).size;
  }
  // The records in the DRAM level (its entries' sizes summed, kept as they
  // change: no walk). Lock-free; may miss changes racing with it.
  uint64_t DramRecords() const {
    return dram_inserted_.Read() - dram_cleared_.Read();
  }
  // The largest epoch of any DRAM entry (epochs only grow): no log record
  // carries a larger one.
  uint64_t MaxDramEpoch() const {
    return max_dram_epoch_.load(std::memory_order_acquire);
  }
  // Counts unit `dram_index` from its entries' sizes into UnitPmemRecords().
  // REQUIRES: the DRAM entry's lock.
  void CountUnit(uint64_t dram_index);
  // Sets UnitPmemRecords() (what a re-balance moved out no longer
  // counts). REQUIRES: the DRAM entry's lock.
  void SetUnitPmemRecords(uint64_t dram_index, uint64_t records) {
    const uint64_t before = unit_records_[dram_index].load(std::memory_order_relaxed);
    unit_records_[dram_index].store(records, std::memory_order_relaxed);
    total_unit_records_.fetch_add(records - before, std::memory_order_relaxed);
  }
  // Empties every entry of the unit's subtree on the PMem levels, each in
  // one persisted store of its state word (epochs kept): a re-balance
  // moved every record of the unit elsewhere. A crash in between leaves
  // some of them, which no lookup reaches. REQUIRES: the DRAM entry's lock,
  // an empty DRAM entry.
  void ClearUnit(uint64_t dram_index);
  // Empties the unit whole, its DRAM entry and its subtree, for a unit
  // whose records no reader sees any more (UnitExpiredAt), and records
  // its DRAM entry's new epoch as an empty migration does (persisted):
  // none of the dropped records is replayed after a crash. Its expiry
  // bound starts again from 0. REQUIRES: the DRAM entry's lock. NoSpace
  // if level 1 cannot be created (the unit is empty all the same).
  Status ClearExpiredUnit(uint64_t dram_index);
  // The units ClearExpiredUnit emptied since Open.
  uint64_t expired_units_cleared() const {
    return expired_units_cleared_.Read();
  }
  // The state word of entry `index` of `level` (0 = DRAM), for inspection.
  // REQUIRES: level < level_count(), index < entry_count(level).
  EntryState StateOf(unsigned level, uint64_t index) const {
    return EntryState::Decode(LoadAcquire(EntryAt(levels_[level], index).state));
  }
  uint64_t entry_count(unsigned level) const {
    return levels_[level].entry_count;
  }
  // The pool offset of entry `index` of PMem level `level`, or 0 while its
  // unit has no block there (inspection and tests).
  uint64_t EntryOffset(unsigned level, uint64_t index) const {
    const DirectoryEntry& e = EntryAt(levels_[level], index);
    return &e == &kNoEntry ? 0
                           : reinterpret_cast<uint64_t>(&e) -
                                 reinterpret_cast<uint64_t>(media_.base());
  }
  // The DRAM level, the filters kept in DRAM and the block pointers.
  uint64_t dram_bytes() const {
    return dram_level_bytes_ + dram_filter_bytes_ +
           (level_count() - 1) * dram_entries() * sizeof(DirectoryEntry*);
  }
  uint64_t migrations() const { return migrations_.Read(); }

  // Walks every PMem level and checks its invariants (see table_verify.cc);
  // appends one line per problem to *report; returns the problem count.
  // Online: each unit is checked under its DRAM entry's lock, in turn.
  uint64_t Verify(std::string* report);

 private:
  struct VerifyFindings;
  // Verify() of unit `u`'s block and entries on PMem level `l`. REQUIRES:
  // the unit's DRAM entry lock.
  void VerifyUnitAt(unsigned l, uint64_t u, VerifyFindings* found) const;
  // Verify() of slot `pos` (in `bucket`) of entry `e` (index `i`, its
  // first `buckets` buckets used) of level `l`.
  void VerifySlot(unsigned l, uint64_t i, const DirectoryEntry& e,
                  unsigned buckets, unsigned pos, const Bucket& bucket,
                  VerifyFindings* found) const;
  // Verify(): the fingerprint in `key_word`, of the indirect slot of entry
  // `index` of level `level` that references `ref`, is its key's (true
  // where there is none to check).
  bool FingerprintMatches(unsigned level, uint64_t index, uint64_t key_word,
                          uint64_t ref) const;

  struct Level {
    DirectoryEntry* entries = nullptr;  // the DRAM level's
    uint64_t entry_count = 0;
    unsigned index_bits = 0;           // log2(entry_count)
    unsigned child_bits = 0;           // log2(fanout towards the next level)
    Bucket* bucket_area = nullptr;     // the DRAM level's buckets
    uint64_t* dram_filters = nullptr;  // filters kept in DRAM, or null
    bool persistent = false;
    // PMem levels: one block of entries per unit (DRAM entry), allocated
    // on first use (EnsureBlock). Entry i lives in block i >> unit_shift,
    // at i & unit_mask; blocks of preallocated levels end with the
    // entries' buckets.
    unsigned unit_shift = 0;
    uint64_t unit_mask = 0;
    uint64_t block_bytes = 0;
    bool preallocated = false;
    uint64_t* block_table = nullptr;  // on media: each unit's block offset
    // The blocks as pointers, published (release) once a block exists.
    std::shared_ptr<std::atomic<DirectoryEntry*>[]> blocks;
  };
  struct Target;  // a child entry receiving records during a migration
 public:
  struct Routed;  // a record on its way to a child (migration.cc)

 private:

  explicit LeveledTable(pool::Pool* pool);
  Status AttachLevels();
  Status AllocateDramFilters();
  void RebuildDramFilters(unsigned level);
  // The filter bits of a key hash. In a range pool they leave out the
  // DRAM bits: those name the key's unit under the map of the moment, and
  // a re-balance moves records (and their filter bits) to units whose bits
  // the migrations before the switch did not know.
  FilterProbe ProbeOf(uint64_t hash) const {
    return MakeProbe(hash & filter_hash_mask_, fanout_);
  }
  // Re-balances move keys between units (a range pool).
  bool units_move() const { return filter_hash_mask_ != ~uint64_t{0}; }
  // Entry `index` of `level`: on a PMem level, in its unit's block, or an
  // empty entry (never written) when the unit has no block there yet.
  // Readers may call it anywhere: a block is published before a record
  // moves into it.
  const DirectoryEntry& EntryAt(const Level& level, uint64_t index) const {
    if (!level.persistent) return level.entries[index];
    const DirectoryEntry* block =
        level.blocks[index >> level.unit_shift].load(std::memory_order_acquire);
    return block == nullptr ? kNoEntry : block[index & level.unit_mask];
  }
  // The same for a writer. REQUIRES: the unit's lock, and its block on a
  // PMem level (EnsureBlock).
  DirectoryEntry& MutableEntryAt(const Level& level, uint64_t index) const {
    if (!level.persistent) return level.entries[index];
    DirectoryEntry* block =
        level.blocks[index >> level.unit_shift].load(std::memory_order_relaxed);
    assert(block != nullptr);
    return block[index & level.unit_mask];
  }
  // Whether the unit of entry `index` has a block on `level` (PMem).
  bool HasBlock(const Level& level, uint64_t index) const {
    return level.blocks[index >> level.unit_shift].load(
               std::memory_order_acquire) != nullptr;
  }
  static const DirectoryEntry kNoEntry;
  // Entries of the level name their buckets (else: the DRAM level's, or a
  // preallocated level's, are at computed places).
  static bool HasBucketRefs(const Level& level) {
    return level.bucket_area == nullptr && !level.preallocated;
  }
  // The filter of entry `e` (entry `index` of `level`): in DRAM for the
  // first dram_filter_levels PMem levels, else inside the entry.
  const uint64_t* FilterOf(const Level& level, uint64_t index,
                           const DirectoryEntry& e) const {
    return level.dram_filters != nullptr
               ? level.dram_filters + index * (kFilterBytes / 8)
               : e.filter;
  }
  uint64_t* MutableFilterOf(const Level& level, uint64_t index,
                            DirectoryEntry& e) const {
    return level.dram_filters != nullptr
               ? level.dram_filters + index * (kFilterBytes / 8)
               : e.filter;
  }
  // The shape of PMem level `level` (its blocks not attached).
  Level PmemLevelShape(unsigned level) const;
  // [offset, offset + bytes) lies inside the heap handed out.
  bool InHeap(uint64_t offset, uint64_t bytes) const;
  // Blocks start on pages: a bucket never shares a page with one.
  static constexpr uint64_t kBlockAlignment = 4096;
  Status EnsureLevel(unsigned level);
  // Allocates the block of the unit of entry `index` on PMem level `level`
  // if it has none: zeroed heap space (on level 1, its entries at the
  // unit's epoch floor), its offset persisted in the block table before
  // the block is published. REQUIRES: the unit's lock.
  Status EnsureBlock(unsigned level, uint64_t index);
  // The epoch that level 1's block table holds for a unit without a block
  // there (pool_format.h, kEpochFloorTag): the epoch its children would
  // have; 0 if none.
  uint64_t EpochFloor(uint64_t dram_index) const;
  // Records a block (or block table) as heap space that no bucket
  // reference may point into (WritableBucketRef).
  void NoteBlock(uint64_t offset, uint64_t bytes) EXCLUDES(blocks_mu_);
  // Adds `delta` to UnitPmemRecords() of the unit entry `index` of
  // `level` belongs to. REQUIRES: the unit's lock.
  void AddUnitRecords(unsigned level, uint64_t index, int64_t delta);
  void RaiseMaxDramEpoch(uint64_t epoch);
  // InsertDram without the lock check (recovery runs unlocked).
  // Writes `slot` into slot `pos` of the DRAM entry, its flags and its
  // filter bits; publishing it (the state word) is the caller's.
  void WriteDramSlot(uint64_t dram_index, unsigned pos, uint64_t hash,
                     const Slot& slot, bool logged);
  unsigned AppendDram(uint64_t dram_index, uint64_t hash, const Slot& slot,
                      bool logged);

  uint64_t ChildIndex(unsigned level, uint64_t index, uint64_t hash) const;
  // The bucket `b` of entry `index`, or null if its reference is invalid.
  Bucket* BucketAt(const Level& level, uint64_t index, const DirectoryEntry& e,
                   unsigned b) const;
  // A reference that can be read through: aligned, inside the heap space
  // handed out. Cheap; used on every read.
  bool ValidBucketRef(uint64_t offset) const;
  // A reference that can be written through: valid, and not inside a level
  // directory or a preallocated bucket area (a damaged reference there would
  // overwrite other entries).
  bool WritableBucketRef(uint64_t offset) const;
  // A lookup in steps (see leveled_table.cc): the key, its filter probe and
  // its directory entry on every level.
  struct LookupPlan {
    LookupKey key;
    FilterProbe probe;
    unsigned levels = 0;
    std::array<uint64_t, pool::kMaxPmemLevels + 1> index;
  };
  void PlanLookup(const LookupKey& key, LookupPlan* plan) const;
  void PrefetchCandidates(const LookupPlan& plan) const;
  void PrefetchNewestPayload(const LookupPlan& plan) const;
  Found FinishLookup(LookupPlan* plan, Slot* slot,
                     bool durable_only = false) const;
  // The value of the newest version found, `slot`; looks up again if a
  // compaction moved it meanwhile.
  Found ReadValue(const LookupKey& key, Slot slot, std::string* value,
                  uint64_t* expires_at_ms = nullptr) const;
  // kRetry if a dangling reference was met (unless skip_dangling).
  // `skip_unlogged`: ignore slots flagged unlogged (DRAM level only).
  Found SearchEntry(const Level& level, uint64_t index, const LookupKey& key,
                    const FilterProbe& probe, bool skip_dangling,
                    bool skip_unlogged, Slot* slot) const;
  bool SameKey(const Slot& a, uint64_t hash_a, const Slot& b,
               uint64_t hash_b) const;
  bool ExistsAtOrBelow(unsigned level, uint64_t index, const Slot& slot,
                       uint64_t hash) const;

  Status Migrate(unsigned level, uint64_t index);
  // The newest version of each key of the entry's first `size` slots,
  // newest first, into newest[0, *kept) (dangling payload references
  // dropped).
  Status GatherNewest(unsigned level, uint64_t index, unsigned size,
                      Routed* newest, unsigned* kept) const;
  Status GatherShares(unsigned level, uint64_t index, unsigned size,
                      std::span<Target> shares, Routed* routed) const;
  Status AllocateBuckets(unsigned level, std::span<Target> targets);
  void PrefetchTarget(unsigned level, const Target& t) const;
  void WriteTarget(unsigned level, const Target& t);
  // Empties the entry: one state word, persisted unless `drain` is false
  // (then only flushed: the caller drains).
  void ClearSource(unsigned level, uint64_t index, bool drain = true);
  // Whether every record of the first `size` slots of entry `index` of
  // PMem level `level` is gone to readers and hides nothing below; if
  // not, *dies_at is when it would be (UINT64_MAX: never).
  bool AllGone(unsigned level, uint64_t index, unsigned size,
               uint64_t* dies_at) const;
  // Brings SubtreeDueMs() of the unit forward to `expires_at_ms`.
  void NoteSubtreeExpiry(uint64_t dram_index, uint64_t expires_at_ms);

  pool::Pool* const pool_;
  media::Media& media_;
  const unsigned fanout_;    // buckets per entry
  const unsigned capacity_;  // slots per entry
  const KeyHasher hasher_;
  const uint64_t filter_hash_mask_;  // ProbeOf()
  const PayloadResolver* resolver_ = nullptr;

  std::array<Level, pool::kMaxPmemLevels + 1> levels_;
  std::atomic<unsigned> level_count_{1};
  Mutex level_mu_;  // serializes level creation
  mutable Mutex blocks_mu_;
  // Every block and block table, [begin, end), sorted by begin.
  std::vector<std::pair<uint64_t, uint64_t>> block_ranges_
      GUARDED_BY(blocks_mu_);

  void* dram_memory_ = nullptr;  // entries + buckets of level 0
  uint64_t dram_level_bytes_ = 0;
  void* dram_filter_memory_ =
      nullptr;  // filters of levels 1..dram_filter_levels
  uint64_t dram_filter_bytes_ = 0;
  ShardedCounter migrations_;
  ShardedCounter dram_inserted_;  // records put into DRAM entries
  ShardedCounter dram_cleared_;   // records DRAM entries dropped (cleared)
  ShardedCounter expired_units_cleared_;
  std::unique_ptr<std::atomic<uint64_t>[]> unit_records_;  // by DRAM entry
  std::atomic<uint64_t> total_unit_records_{0};  // their sum
  std::unique_ptr<std::atomic<uint64_t>[]> subtree_due_;  // by DRAM entry
  std::unique_ptr<std::atomic<uint64_t>[]> unit_expiry_bound_;  // by entry
  std::atomic<uint64_t> max_dram_epoch_{0};
};

}  // namespace plush::table

#endif  // PLUSH_TABLE_LEVELED_TABLE_H_
