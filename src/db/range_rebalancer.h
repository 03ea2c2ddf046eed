// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Online re-balancing of a range pool's units (placement/range_map.h; docs/
// architecture.md, "Re-balancing a range pool").
//
// A unit is heavy when it stores more than twice the mean of all units
// (records / 2^d: the share of each if the records spread over the whole
// table), plus one DRAM entry's capacity; a unit whose keys keep growing
// is split earlier, above the mean plus half that capacity. A heavy unit
// first has its DRAM entry rewritten without superseded versions
// (EntryRewriter), when that pays: it may be heavy with versions of keys
// written again rather than with keys. A heavy unit is split at
// quantiles of its keys — at the median, or into as many pieces as it
// holds means (up to 16) when it takes keys that many units should
// share: every piece moves to a free unit and the unit is cleared (a
// piece left in place would leave the others' old copies in its
// subtree, where every scan of the unit would read them).
// If its keys keep growing (its writes each went above every key it held,
// as its tail tells, db/unit_tails.h; or, when that is not known, its
// recent writes in its DRAM entry lie above its other keys), the unit
// keeps its keys and a free unit takes the keys above them: nothing
// moves. Keys that keep falling the same way round: a free unit takes the
// keys below them, and the unit's range then begins at its smallest key
// (its fingerprints, taken on the lower bound it had, hold on the one it
// has: placement/key_fingerprint.h). A free unit is one no position
// names, or one freed by merging the two neighbouring positions that store
// the fewest records between them (the upper moves into the lower, whose
// range thus keeps its lower bound: a lower bound never moves down under
// records).
//
// A move of a key range R from unit A to unit B, under both units' locks
// (writers of either wait; lookups go on, on A, until the switch):
//   1. migrate A and B: every logged or unlogged record of either is on
//      PMem, so no log record of theirs is needed any more (not A when R
//      lies above or below all its keys: it keeps them, log records
//      included, and is retired, Retired());
//   2. copy A's newest version of every key in R into B, and a tombstone
//      for every key B holds in R that A does not (a crashed earlier move,
//      or B's own past in R): unlogged inserts with B's table hash and new
//      payload entries (the entries' checks are seeded with it), migrated
//      until all are on PMem;
//   3. raise B's epochs above every epoch any log may hold (the largest
//      DRAM epoch, through an empty migration, which takes no block for
//      it: LeveledTable::EpochFloor): recovery, which places a
//      log record by the map it finds, then takes every older record of a
//      key in R for one already on PMem;
//   4. switch the map: one change, persisted in one atomic store
//      (RangeMapStore::Switch) — the only persist point that changes what a
//      lookup finds — then installed in DRAM, which makes lookups that
//      raced it retry (DBImpl::Get) and writers that raced it place their
//      key again (WritePath);
//   5. a unit left without a position has its subtree cleared.
// A crash before step 4 leaves A as it was and B with copies that no
// lookup reaches (their keys' position names A; scans keep each unit's
// range only); a later move of R into B shadows them (step 2). After
// step 4, A keeps copies of R that no lookup reaches. The payload entries
// of step 2 stay out of compaction's reach until the switch (the move
// holds their reservations): compaction checks an entry against the table
// hash of its key under the current map.
//
// Thread safety: one re-balance at a time (a mutex); any thread.

#ifndef PLUSH_DB_RANGE_REBALANCER_H_
#define PLUSH_DB_RANGE_REBALANCER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/entry_rewriter.h"
#include "db/unit_tails.h"
#include "payload/payload_logs.h"
#include "placement/range_map.h"
#include "placement/range_map_store.h"
#include "plush/status.h"
#include "table/leveled_table.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush {

class RangeRebalancer {
 public:
  // `tails`: the pool's, when it is a range pool (the write path notes
  // them). `empty`: the pool holds nothing yet (it was just
  // created): every unit's count is known, 0, without CountUnits().
  // `store`: the pool's range map (null in hash pools, which do not
  // re-balance). `rewriter`: drops the superseded versions of a unit's
  // DRAM entry before its weight decides a split.
  RangeRebalancer(RangeMapStore* store, table::LeveledTable* table,
                  payload::PayloadLogs* payload, EntryRewriter* rewriter,
                  UnitTails* tails, const std::atomic<bool>* closed,
                  bool empty);

  // The pool re-balances (a range pool).
  bool enabled() const { return map_ != nullptr; }

  // Counts every unit's records from the levels (each under its lock), so
  // that Heavy() means something; until then nothing is heavy. For the
  // background thread, once after the pool is opened.
  void CountUnits();
  // Whether `unit` is heavy (above). Lock-free; reads the counts.
  bool Heavy(uint64_t unit);
  // Whether `unit` is to be split: heavy, or its keys keep growing (or
  // falling) and it holds more than the mean plus half a DRAM entry's
  // capacity (split that early, the unit it leaves behind is not heavy,
  // and needs no split of its own: a split above the largest key copies
  // nothing, a split at quantiles copies the unit) — with the `incoming`
  // records a write is about to bring it. Lock-free: a hint, which
  // Rebalance() checks under the unit's lock.
  bool SplitDue(uint64_t unit, uint64_t incoming = 0);
  // Whether a writer of `unit` splits it itself, after its write: the
  // unit is twice as heavy (its writers outran the background thread's
  // splits, as all writes going to one unit do), or it is due a split
  // (SplitDue()) and the write took its DRAM entry to its high-water mark
  // (`at_high_water`), where the background thread would take it up: the
  // writer does it sooner than a background thread that shares the cores
  // with the writers, and a unit for which no free unit is found is tried
  // again a DRAM entry's worth of writes later, not at every write.
  // Lock-free.
  bool WriterSplits(uint64_t unit, bool at_high_water);
  // Whether `unit` has taken its last growing key: a free unit took the
  // keys above its largest (UnitTails::Closed). Migrating it ahead of need
  // would gain nothing (its writes go elsewhere) and cost its records'
  // space on PMem: it keeps them in DRAM, as a hash pool's entries keep
  // theirs, until writes fill it (a writer then migrates it). REQUIRES:
  // the unit's lock.
  bool Retired(uint64_t unit) const {
    return enabled() && tails_->Retired(unit);
  }

  // Splits `unit` if it is due (SplitDue()), freeing units by merges
  // first.
  // `written`: a key just written to the unit, if known (empty: none):
  // with the unit's DRAM entry, what tells keys that keep growing (a unit
  // with neither is left for RebalanceOverloaded).
  // *moves: the moves made (0: the unit was not heavy, or no two
  // neighbours are light enough to merge). `incoming`: as for SplitDue().
  Status Rebalance(uint64_t unit, std::string_view written, uint64_t* moves,
                   uint64_t incoming = 0) EXCLUDES(mu_);
  // Splits the heaviest unit if it is overloaded: one that no longer
  // receives writes is found no other way. (Not merely heavy: the unit
  // that a split of keys that keep growing leaves behind is heavy until
  // the mean grows, and splitting it would copy it for little.) Looks
  // once per so many calls (it walks every unit's count).
  Status RebalanceOverloaded(uint64_t* moves) EXCLUDES(mu_);
  // Re-balances until no unit is heavy, or no move helps.
  Status RebalanceAll(uint64_t* moves) EXCLUDES(mu_);

  // The records moves copied since the pool was opened.
  uint64_t records_copied() const {
    return copied_.load(std::memory_order_relaxed);
  }

 private:
  // A record copied by a move.
  struct Record {
    std::string key;
    std::string value;
    uint64_t expires_at_ms = 0;  // 0 = none
    bool tombstone = false;
  };
  // Where a unit is split: not at all, at quantiles of its keys (the
  // median, or more: Pieces() in the .cc), above its largest key or below
  // its smallest.
  enum class SplitAt { kNone, kQuantiles, kAboveAll, kBelowAll };
  // `split_blind`: split at the median even when the unit's recent writes
  // are not known.
  Status RebalanceLocked(uint64_t unit, std::string_view written,
                         bool split_blind, uint64_t incoming) REQUIRES(mu_);
  Status RebalanceHeaviestLocked(bool overloaded_only) REQUIRES(mu_);
  // The count above which a unit is heavy, by the mean last computed.
  uint64_t HeavyAbove() const;
  // The count above which a unit whose keys keep growing is split.
  uint64_t GrowingAbove() const;
  // Whether `unit` is twice as heavy.
  bool Overloaded(uint64_t unit);
  // Whether `unit`'s keys keep growing or falling (UnitTails::Monotonic)
  // and it holds more than GrowingAbove() with `incoming` records more.
  bool GrowingDue(uint64_t unit, uint64_t incoming);
  // Whether `records` is above `factor` times that threshold, by a fresh
  // mean if the last one says so.
  bool Above(uint64_t records, uint64_t factor);
  // The mean of the units' records (DRAM entries' too), over all 2^d
  // units.
  uint64_t MeanRecords();
  // Where to split `unit` (of `range`): kAboveAll if its keys keep
  // growing (its recent writes, `written` and its DRAM entry's, lie above
  // every older key: a free unit takes the keys above the largest),
  // kBelowAll if they keep falling, else kQuantiles at *separators, in
  // ascending order, an odd number of them (kNone: the unit is not to be
  // split). REQUIRES: the unit's lock.
  Status ChooseSplit(uint64_t unit, const RangeMap::Range& range,
                     std::string_view written, bool split_blind,
                     std::vector<std::string>* separators, SplitAt* at);
  // The keys of every slot of `unit` within `range`, the DRAM entry's
  // first (*recent of them), versions and tombstones included, unsorted.
  // REQUIRES: the unit's lock.
  Status ReadKeys(uint64_t unit, const RangeMap::Range& range,
                  std::vector<std::string>* keys, size_t* recent) const;
  // A unit to free: `unit`, merged into its neighbour `into` (into ==
  // unit: no position names it).
  struct FreeCandidate {
    uint64_t unit;
    uint64_t into;
  };
  // Finds `count` units to free for splitting `heavy`: units no position
  // names, then the upper of each of the lightest neighbouring pairs
  // (disjoint, without `heavy`) whose merge stays below 3/4 of `heavy`.
  // False if there are not that many.
  bool FindFree(uint64_t heavy, size_t count,
                std::vector<FreeCandidate>* frees) REQUIRES(mu_);
  // The lightest pair among light_pairs_ that is still a pair of
  // neighbours, neither in `taken`, merging below `limit` records (pairs
  // no longer neighbours are dropped); nullopt if none is.
  std::optional<std::pair<uint32_t, uint32_t>> TakeLightPair(
      const std::vector<uint64_t>& taken, uint64_t limit) REQUIRES(mu_);
  // Walks the map for its lightest neighbouring pairs: light_pairs_.
  void FindLightPairs() REQUIRES(mu_);
  // Merges a run of 2 .. kMaxMerged neighbouring positions whose units
  // hold nothing a reader sees (Vacant(); not `heavy`) into one, in one
  // change: the others become free, cleared. The first run that frees
  // units with directory blocks, else the first run; nothing if there is
  // none.
  Status FreeEmptyRun(uint64_t heavy) REQUIRES(mu_);
  // Whether `unit` holds no records, or only expired ones (its expiry
  // bound has passed `now_ms`: LeveledTable::UnitExpiryBound). Lock-free,
  // from the counts: a hint until checked under the unit's lock. (The
  // clock is read once per walk of the map, not once per unit.)
  bool Vacant(uint64_t unit, uint64_t now_ms) const;
  // Frees the candidate (merging it) and stores it in *freed.
  Status Free(const FreeCandidate& candidate, uint64_t* freed)
      REQUIRES(mu_);
  // The newest version of every key of unit `unit` within `range`, sorted
  // by key (tombstones included). REQUIRES: the unit's lock.
  Status ReadNewest(uint64_t unit, const RangeMap::Range& range,
                    std::vector<Record>* records) const;
  // Moves keys from `from` to `to` as `change` says (its position is
  // `from`'s, taken under the locks): kMerge all of `from`'s range into
  // its neighbour `to`; kSplit the part of `from`'s range from the
  // separator on (without one: above its largest key); kSplitBelow the
  // part below its smallest key; kReassign all of it. Steps 1-5 above.
  // Moves nothing if the map no longer allows the change.
  Status Move(uint64_t from, uint64_t to, RangeMap::Change change)
      REQUIRES(mu_);
  Status MigrateIfNotEmpty(uint64_t unit);

  RangeMapStore* const store_;
  table::LeveledTable& table_;
  payload::PayloadLogs& payload_;
  EntryRewriter& rewriter_;
  UnitTails* const tails_;
  const std::atomic<bool>& closed_;
  RangeMap* const map_;
  Mutex mu_;
  std::atomic<bool> counted_{false};
  // MeanRecords() as last computed.
  std::atomic<uint64_t> mean_{0};
  // The last split found no unit free for nothing (unnamed, or in a run
  // of empty positions): it merged light neighbours, which copies.
  std::atomic<bool> crowded_{false};
  std::atomic<uint64_t> overloaded_calls_{0};
  // The map's generation when FreeEmptyRun() last found no run, and the
  // earliest expiry bound of a unit it found not vacant (0: none): where
  // one passes, a unit has become vacant without a change of the map.
  struct NoEmptyRun {
    uint64_t generation;
    uint64_t next_vacancy_ms;
  };
  std::optional<NoEmptyRun> no_empty_run_ GUARDED_BY(mu_);
  // The lightest neighbouring pairs (by records on PMem) as the last walk
  // of the map found them, lightest first: FindFree takes pairs from them
  // for a few frees instead of walking every position for each. (Pairs
  // written to since are checked when taken; pairs that became light since
  // wait for the next walk.)
  std::vector<std::pair<uint32_t, uint32_t>> light_pairs_ GUARDED_BY(mu_);
  size_t frees_since_walk_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> copied_{0};
};

}  // namespace plush

#endif  // PLUSH_DB_RANGE_REBALANCER_H_
