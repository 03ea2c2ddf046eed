// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/range_rebalancer.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <tuple>
#include <utility>

#include "db/slot_prefetch.h"
#include "util/key_prefix.h"

namespace plush {
namespace {

// The heaviest unit is looked for (a walk of every unit's count) once per
// this many RebalanceOverloaded() calls.
constexpr uint64_t kOverloadedEvery = 256;
// FindFree() walks the map for light pairs again after this many frees
// (pairs that became light since the last walk wait at most this long),
// keeping this many.
constexpr size_t kWalkEvery = 32;
constexpr size_t kLightPairs = 64;

// A walk of the map for runs of empty positions that found none is made
// again after this many changes of the map.
constexpr uint64_t kEmptyRunRetry = 64;

// Streams of growing keys (fronts) in one unit that a split separates:
// at most this many, each the top of at least kRecentPerFront recent
// keys; random keys make a front of nearly every recent key.
constexpr size_t kMaxFronts = 8;
constexpr size_t kRecentPerFront = 4;

// A split of keys in no order cuts the unit into as many pieces as it
// holds means (each piece then holds about the share of a unit were the
// records spread over the whole table), a power of two from 2 to
// kMaxPieces, each of at least a quarter of a DRAM entry: a unit that
// takes keys many units should share (keys of one prefix in no order, in
// a pool created without a sample) is cut into that many in a few splits
// rather than halved over and over, every halving a copy of all its
// records. (Pieces of a sixteenth of an entry copied less still but took
// 10-14 % more space: more units with blocks on level 1 early on;
// docs/benchmarks.md.)
constexpr size_t kMaxPieces = 16;

size_t Pieces(size_t keys, uint64_t mean, uint64_t capacity) {
  const uint64_t piece = std::max<uint64_t>({mean, capacity / 4, 1});
  size_t pieces = 2;
  while (pieces < kMaxPieces && (pieces * 2) * piece <= keys) pieces *= 2;
  return pieces;
}

size_t Distance(size_t a, size_t b) { return a > b ? a - b : b - a; }

// The shortest key s with below < s <= key. REQUIRES: below < key.
std::string SeparatorBetween(std::string_view below, std::string_view key) {
  size_t shared = 0;
  while (shared < below.size() && shared < key.size() &&
         below[shared] == key[shared]) {
    ++shared;
  }
  return std::string(key.substr(0, std::min(key.size(), shared + 1)));
}

// The locks of two DRAM entries, taken in index order (as write batches
// take theirs: no deadlock).
class TwoEntryLock {
 public:
  TwoEntryLock(table::LeveledTable& table, uint64_t a, uint64_t b)
      : first_(table.DramLock(std::min(a, b))),
        second_(table.DramLock(std::max(a, b))) {
    first_.lock();
    second_.lock();
  }
  ~TwoEntryLock() {
    second_.unlock();
    first_.unlock();
  }

 private:
  SpinLockRef first_;
  SpinLockRef second_;
};

}  // namespace

RangeRebalancer::RangeRebalancer(RangeMapStore* store,
                                 table::LeveledTable* table,
                                 payload::PayloadLogs* payload,
                                 EntryRewriter* rewriter, UnitTails* tails,
                                 const std::atomic<bool>* closed, bool empty)
    : store_(store),
      table_(*table),
      payload_(*payload),
      rewriter_(*rewriter),
      tails_(tails),
      closed_(*closed),
      map_(store != nullptr ? store->map().get() : nullptr),
      counted_(empty) {}

void RangeRebalancer::CountUnits() {
  if (!enabled() || counted_.load(std::memory_order_acquire)) return;
  for (uint64_t d = 0; d < table_.dram_entries(); ++d) {
    if (closed_.load(std::memory_order_relaxed)) return;
    SpinLockRef lock = table_.DramLock(d);
    lock.lock();
    table_.CountUnit(d);
    if (table_.UnitRecords(d) == 0) table_.ResetUnitExpiryBound(d);
    lock.unlock();
  }
  counted_.store(true, std::memory_order_release);
}

// Over every unit, named or free: the share each would hold if the records
// were spread over the whole table, which is the aim. (Over the named ones
// only, a merge of many empty ranges into one would raise the mean, and a
// crowded pool whose empty ranges were merged would look balanced.)
uint64_t RangeRebalancer::MeanRecords() {
  return (table_.TotalUnitPmemRecords() + table_.DramRecords()) /
         table_.dram_entries();
}

uint64_t RangeRebalancer::HeavyAbove() const {
  return 2 * mean_.load(std::memory_order_relaxed) + table_.capacity();
}

// Below HeavyAbove() whatever the mean: the unit a split of growing keys
// leaves behind is never heavy, and never needs a split (a copy) itself.
// (While the mean is below the high-water mark less half an entry, the
// writer that takes a unit of growing keys to its high-water mark splits
// it, and its records stay in DRAM; in a pool that holds more, units of
// growing keys grow with the mean, which keeps the merges that free units
// for them few.)
//
// Not in the last eighth of a DRAM entry, above its high-water mark: a
// unit split there would keep no room for the keys of other writers of
// the stream that raced the split (just below its largest key: they stay
// in the unit it retires), and its full entry would migrate for one of
// them.
//
// Twice the mean (plus half an entry) once no unit is free for nothing:
// a unit for the split is then freed by merging two light neighbours,
// which copies one of them; units of growing keys that grow twice as far
// take about half as many (10 M ascending keys: 0.9 M records copied
// instead of 1.4 M).
uint64_t RangeRebalancer::GrowingAbove() const {
  const uint64_t mean = mean_.load(std::memory_order_relaxed);
  const uint64_t above =
      (crowded_.load(std::memory_order_relaxed) ? 2 * mean : mean) +
      table_.capacity() / 2;
  const uint64_t high_water = table_.high_water();
  return above >= high_water && above < table_.capacity() ? high_water - 1
                                                          : above;
}

// The mean only grows as a pool fills: a count above the threshold of the
// mean last computed is checked against a fresh one (a sum over every
// unit), one below it needs nothing. (Writers ask after every write: no
// shared counter is written on that path.)
bool RangeRebalancer::Above(uint64_t records, uint64_t factor) {
  if (records <= factor * HeavyAbove()) return false;
  mean_.store(MeanRecords(), std::memory_order_relaxed);
  return records > factor * HeavyAbove();
}

bool RangeRebalancer::Heavy(uint64_t unit) {
  if (!enabled() || !counted_.load(std::memory_order_acquire)) return false;
  return Above(table_.UnitRecords(unit), 1);
}

bool RangeRebalancer::GrowingDue(uint64_t unit, uint64_t incoming) {
  return enabled() && counted_.load(std::memory_order_acquire) &&
         tails_->Monotonic(unit) &&
         table_.UnitRecords(unit) + incoming > GrowingAbove();
}

bool RangeRebalancer::SplitDue(uint64_t unit, uint64_t incoming) {
  return Heavy(unit) || GrowingDue(unit, incoming);
}

bool RangeRebalancer::WriterSplits(uint64_t unit, bool at_high_water) {
  return Overloaded(unit) || (at_high_water && SplitDue(unit));
}

bool RangeRebalancer::Overloaded(uint64_t unit) {
  if (!enabled() || !counted_.load(std::memory_order_relaxed)) return false;
  const uint64_t records = table_.UnitRecords(unit);
  return records > 2 * table_.capacity() && Above(records, 2);
}

Status RangeRebalancer::RebalanceOverloaded(uint64_t* moves) {
  *moves = 0;
  // The heaviest unit is looked for once per kOverloadedEvery calls: a walk of
  // every unit's count.
  if (overloaded_calls_.fetch_add(1, std::memory_order_relaxed) %
          kOverloadedEvery !=
      0) {
    return Status::OK();
  }
  MutexLock lock(&mu_);
  const uint64_t before = store_->generation();
  Status s = RebalanceHeaviestLocked(/*overloaded_only=*/true);
  *moves = store_->generation() - before;
  return s;
}

Status RangeRebalancer::RebalanceHeaviestLocked(bool overloaded_only) {
  mean_.store(MeanRecords(), std::memory_order_relaxed);
  uint64_t heaviest = 0;
  for (uint64_t d = 1; d < table_.dram_entries(); ++d) {
    if (table_.UnitPmemRecords(d) > table_.UnitPmemRecords(heaviest))
      heaviest = d;
  }
  const bool split =
      overloaded_only ? Overloaded(heaviest) : Heavy(heaviest);
  return split ? RebalanceLocked(heaviest, {}, /*split_blind=*/true,
                                 /*incoming=*/0)
               : Status::OK();
}

Status RangeRebalancer::Rebalance(uint64_t unit, std::string_view written,
                                  uint64_t* moves, uint64_t incoming) {
  MutexLock lock(&mu_);
  const uint64_t before = store_->generation();
  Status s = RebalanceLocked(unit, written, /*split_blind=*/false, incoming);
  *moves = store_->generation() - before;
  return s;
}

Status RangeRebalancer::RebalanceAll(uint64_t* moves) {
  *moves = 0;
  if (!enabled()) {
    return Status::NotSupported(
        "re-balancing needs a range pool (this one is hash-partitioned)");
  }
  if (!counted_.load(std::memory_order_acquire)) CountUnits();
  MutexLock lock(&mu_);
  const uint64_t before = store_->generation();
  // Rounds over the units due a split, heaviest first; each split changes the
  // counts, so a round ends at its first move. A unit that cannot be split
  // (no free units for it, or not heavy once recounted) leaves the others
  // to try; a round in which none moves ends the re-balance.
  for (bool moved = true; moved;) {
    moved = false;
    mean_.store(MeanRecords(), std::memory_order_relaxed);
    std::vector<std::pair<uint64_t, uint32_t>> heavy;  // (records, unit)
    for (const uint32_t u : map_->Units()) {
      if (SplitDue(u)) heavy.emplace_back(table_.UnitRecords(u), u);
    }
    std::sort(heavy.rbegin(), heavy.rend());
    for (const auto& [records, unit] : heavy) {
      const uint64_t round = store_->generation();
      Status s = RebalanceLocked(unit, {}, /*split_blind=*/true,
                                 /*incoming=*/0);
      if (!s.ok()) {
        *moves = store_->generation() - before;
        return s;
      }
      if (store_->generation() != round) {
        moved = true;
        break;
      }
    }
  }
  *moves = store_->generation() - before;
  return Status::OK();
}

Status RangeRebalancer::RebalanceLocked(uint64_t unit,
                                        std::string_view written,
                                        bool split_blind, uint64_t incoming) {
  if (!enabled()) return Status::OK();
  // Under the unit's lock: how many records it holds (the count may be off
  // after a crash: recounted from the levels), and where to split it.
  std::vector<std::string> separators;
  SplitAt at = SplitAt::kNone;
  {
    const std::optional<RangeMap::Range> range = map_->RangeOfUnit(unit);
    if (!range) return Status::OK();
    SpinLockRef lock = table_.DramLock(unit);
    lock.lock();
    table_.CountUnit(unit);
    mean_.store(MeanRecords(), std::memory_order_relaxed);
    const bool growing =
        counted_.load(std::memory_order_relaxed) && tails_->Monotonic(unit);
    auto due = [&] {
      return Heavy(unit) ||
             (growing && table_.UnitRecords(unit) + incoming > GrowingAbove());
    };
    // A unit that keeps its keys but writes them again is heavy with
    // the versions its DRAM entry holds, not with keys: rewritten without
    // them it may not be. (A split would copy the newest versions only,
    // and leave both halves to fill up with versions again.)
    bool split = due();
    if (split && !growing &&
        rewriter_.Rewrite(unit, /*sample=*/true).result ==
            EntryRewriter::Result::kRewritten) {
      split = due();
    }
    Status s = split ? ChooseSplit(unit, *range, written, split_blind,
                                   &separators, &at)
                     : Status::OK();
    lock.unlock();
    if (!s.ok() || at == SplitAt::kNone) return s;
  }
  // Keys that keep growing (falling): the unit keeps its keys and a free
  // unit takes the keys above (below) them: nothing moves. Otherwise every
  // piece moves to a free unit and the unit is cleared: a split that left
  // a piece behind would leave the others' old copies in the unit's
  // subtree for good, where every scan of the unit reads them. The free
  // units are found first: a split goes ahead only with all it needs, in
  // two pieces at the median if there are not enough for more.
  // Units no position names come first; when there are too few, a run of
  // empty positions is merged into one (one change frees them all: keys
  // that keep growing split a unit per few hundred records).
  const bool quantiles = at == SplitAt::kQuantiles;
  size_t needed = quantiles ? separators.size() + 1 : 1;
  if (map_->positions() + needed > table_.dram_entries()) {
    Status s = FreeEmptyRun(unit);
    if (!s.ok()) return s;
  }
  crowded_.store(map_->positions() + needed > table_.dram_entries(),
                 std::memory_order_relaxed);
  std::vector<FreeCandidate> frees;
  if (!FindFree(unit, needed, &frees)) {
    if (needed <= 2 || !FindFree(unit, 2, &frees)) return Status::OK();
    separators = {separators[separators.size() / 2]};  // the median
    needed = 2;
  }
  uint64_t to = 0;
  if (!quantiles) {
    Status s = Free(frees[0], &to);
    if (!s.ok()) return s;
    RangeMap::Change split;
    split.kind = at == SplitAt::kBelowAll ? RangeMap::Change::Kind::kSplitBelow
                                          : RangeMap::Change::Kind::kSplit;
    split.unit = static_cast<uint32_t>(to);  // no separator: Move finds it
    return Move(unit, to, split);
  }
  // From the top: each split leaves the unit the keys below its
  // separator, and the last piece is reassigned with the unit's range.
  for (size_t i = 0; i < separators.size(); ++i) {
    Status s = Free(frees[i], &to);
    if (!s.ok()) return s;
    RangeMap::Change split;
    split.kind = RangeMap::Change::Kind::kSplit;
    split.unit = static_cast<uint32_t>(to);
    split.separator = std::move(separators[separators.size() - 1 - i]);
    s = Move(unit, to, split);
    if (!s.ok()) return s;
  }
  Status s = Free(frees[separators.size()], &to);
  if (!s.ok()) return s;
  RangeMap::Change reassign;
  reassign.kind = RangeMap::Change::Kind::kReassign;
  reassign.unit = static_cast<uint32_t>(to);
  return Move(unit, to, reassign);
}

Status RangeRebalancer::ReadKeys(uint64_t unit, const RangeMap::Range& range,
                                 std::vector<std::string>* keys,
                                 size_t* recent) const {
  std::vector<table::Slot> slots;
  Status s = table_.CollectSubtree(unit, &slots);
  if (!s.ok()) return s;
  // CollectSubtree hands out the DRAM entry's records first.
  const size_t dram = table_.DramState(unit).size;
  keys->clear();
  *recent = 0;
  std::string key;
  size_t visited = 0;
  VisitSlotsPrefetching(slots, payload_, [&](const table::Slot& slot) {
    const bool in_dram = visited++ < dram;
    if (slot.indirect) {
      if (!payload_.ReadKey(slot.value, &key)) return;  // superseded
    } else {
      key.assign(reinterpret_cast<const char*>(&slot.key), 8);
    }
    if (range.Contains(key)) {
      keys->push_back(key);
      if (in_dram) ++*recent;
    }
  });
  return Status::OK();
}

Status RangeRebalancer::ChooseSplit(uint64_t unit, const RangeMap::Range& range,
                                    std::string_view written, bool split_blind,
                                    std::vector<std::string>* separators,
                                    SplitAt* at) {
  separators->clear();
  *at = SplitAt::kNone;
  // Keys that keep growing (falling), as the unit's tail tells: nothing to
  // read.
  if (tails_->Growing(unit) || tails_->Falling(unit)) {
    *at = tails_->Growing(unit) ? SplitAt::kAboveAll : SplitAt::kBelowAll;
    return Status::OK();
  }
  // A unit whose recent writes are not known (its DRAM entry was just
  // migrated) is split when it is overloaded, or asked for: a split of
  // keys that keep growing that was taken for one at the median would
  // copy the whole unit for nothing.
  if (!split_blind && written.empty() && table_.DramState(unit).size == 0)
    return Status::OK();
  std::vector<std::string> keys;
  size_t recent = 0;
  Status s = ReadKeys(unit, range, &keys, &recent);
  if (!s.ok()) return s;
  // Keys that keep growing: the recent writes (the DRAM entry's, and the
  // key just written, which may have migrated already) lie above every
  // older key but a few (writers of one stream on several threads do not
  // arrive quite in order). No sort: one pass. (Not so in a unit a split
  // of growing keys retired: its DRAM entry holds its last keys, not its
  // recent writes.)
  if (tails_->Retired(unit)) recent = 0;
  // Likewise keys that keep falling: below every older key but a few.
  std::string_view lowest_recent = written;
  std::string_view highest_recent = written;
  for (size_t i = 0; i < recent; ++i) {
    if (lowest_recent.empty() || keys[i] < lowest_recent)
      lowest_recent = keys[i];
    if (keys[i] > highest_recent) highest_recent = keys[i];
  }
  const bool known_recent = !written.empty() || recent > 0;
  if (known_recent) {
    size_t older_below = 0;
    size_t older_above = 0;
    size_t older_between = 0;
    for (size_t i = recent; i < keys.size(); ++i) {
      if (keys[i] == written) continue;
      if (keys[i] < lowest_recent) {
        ++older_below;
      } else if (keys[i] > highest_recent) {
        ++older_above;
      } else {
        ++older_between;
      }
    }
    const size_t few = 4 + recent / 8;
    // (Move() takes the separator.)
    if (older_below > 0 && older_above + older_between <= few) {
      *at = SplitAt::kAboveAll;
      return Status::OK();
    }
    if (older_above > 0 && older_below + older_between <= few) {
      *at = SplitAt::kBelowAll;
      return Status::OK();
    }
  }
  // (Its DRAM entry's records may all lie outside its range.)
  if (!known_recent && !split_blind) return Status::OK();
  // The distinct keys in order, each marked if a version of it is recent
  // (deleted ones count too: cheap, and they are few).
  std::vector<std::pair<std::string_view, bool>> sorted;
  sorted.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    sorted.emplace_back(keys[i], i < recent || keys[i] == written);
  std::sort(sorted.begin(), sorted.end());
  size_t distinct = 0;
  for (const auto& [key, is_recent] : sorted) {
    if (distinct > 0 && sorted[distinct - 1].first == key) {
      sorted[distinct - 1].second |= is_recent;
    } else {
      sorted[distinct++] = {key, is_recent};
    }
  }
  sorted.resize(distinct);
  if (sorted.size() < 2) return Status::OK();
  // Fronts: runs of recent keys that older keys follow, as several
  // streams of growing keys leave in one unit (each writer its own key
  // range). A split right above the front nearest the median leaves that
  // stream growing at the top of the lower half, and the others above
  // it: each half then splits without copies. Other keys split at the
  // median.
  const size_t median = sorted.size() / 2;
  size_t split = median;  // the first key of the upper half
  size_t fronts = 0;
  size_t recent_keys = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (!sorted[i].second) continue;
    ++recent_keys;
    if (i + 1 == sorted.size() || sorted[i + 1].second) continue;
    if (++fronts == 1 || Distance(i + 1, median) < Distance(split, median))
      split = i + 1;
  }
  const bool streams = fronts >= 1 && fronts <= kMaxFronts &&
                       recent_keys >= kRecentPerFront * fronts;
  // Above a front the separator is the next older key itself: the stream's
  // next keys stay below it (the shortest separator could be far lower).
  *at = SplitAt::kQuantiles;
  if (streams) {
    separators->emplace_back(sorted[split].first);
    return Status::OK();
  }
  const size_t pieces = Pieces(sorted.size(),
                              mean_.load(std::memory_order_relaxed),
                              table_.capacity());
  for (size_t p = 1; p < pieces; ++p) {
    const size_t first = sorted.size() * p / pieces;  // of piece p
    separators->push_back(
        SeparatorBetween(sorted[first - 1].first, sorted[first].first));
  }
  return Status::OK();
}

bool RangeRebalancer::Vacant(uint64_t unit, uint64_t now_ms) const {
  return table_.UnitRecords(unit) == 0 || table_.UnitExpiredAt(unit, now_ms);
}

Status RangeRebalancer::FreeEmptyRun(uint64_t heavy) {
  // Once every unit holds records, every split asks: a walk of the map
  // that found nothing is not made again for the next kEmptyRunRetry
  // changes (runs of empty positions are made by few of them), unless a
  // unit it found holding records has since seen them all expire.
  const uint64_t generation = store_->generation();
  if (no_empty_run_ &&
      generation < no_empty_run_->generation + kEmptyRunRetry &&
      !payload_.Expired(no_empty_run_->next_vacancy_ms)) {
    return Status::OK();
  }
  no_empty_run_.reset();
  // Runs of neighbouring vacant positions (read without their locks:
  // checked again under them). One whose units have directory blocks
  // first: the units it frees bring their blocks and buckets to the
  // ranges that take them, where units that never held records would
  // take new ones — units of keys that expired are reused by the keys
  // that follow them, rather than every unit once.
  const std::vector<uint32_t> units = map_->Units();
  size_t first = 0;
  size_t n = 0;
  std::optional<std::pair<size_t, size_t>> fallback;  // (first, n)
  auto with_blocks = [&](size_t from, size_t count) {
    for (size_t p = from; p < from + count; ++p) {
      if (table_.UnitHasBlocks(units[p])) return true;
    }
    return false;
  };
  bool found = false;
  uint64_t next_vacancy_ms = 0;
  const uint64_t now_ms = payload_.NowMs();
  for (size_t p = 0; p <= units.size() && !found; ++p) {
    const bool vacant =
        p < units.size() && units[p] != heavy && Vacant(units[p], now_ms);
    if (p < units.size() && !vacant) {
      const uint64_t bound = table_.UnitExpiryBound(units[p]);
      if (bound != table::LeveledTable::kNoExpiryBound &&
          (next_vacancy_ms == 0 || bound < next_vacancy_ms)) {
        next_vacancy_ms = bound;
      }
    }
    if (vacant && n < RangeMap::kMaxMerged) {
      if (n == 0) first = p;
      ++n;
      continue;
    }
    if (n >= 2) {
      if (with_blocks(first, n)) {
        found = true;
        break;
      }
      if (!fallback) fallback.emplace(first, n);
    }
    n = 0;
    if (vacant) {  // a run cut at kMaxMerged: the next starts here
      first = p;
      n = 1;
    }
  }
  if (!found && fallback) std::tie(first, n) = *fallback;
  if (!found && !fallback) {
    no_empty_run_ = NoEmptyRun{generation, next_vacancy_ms};
    return Status::OK();
  }
  std::vector<uint64_t> locked(units.begin() + static_cast<ptrdiff_t>(first),
                               units.begin() + static_cast<ptrdiff_t>(first + n));
  std::sort(locked.begin(), locked.end());
  for (const uint64_t u : locked) table_.DramLock(u).lock();
  auto unlock_all = [&] {
    for (const uint64_t u : locked) table_.DramLock(u).unlock();
  };
  Status s;
  bool vacant = !closed_.load(std::memory_order_relaxed);
  const uint64_t locked_at_ms = payload_.NowMs();
  for (const uint64_t u : locked) {
    table_.CountUnit(u);
    vacant = vacant && Vacant(u, locked_at_ms);
  }
  // The expired records the units hold go, in DRAM and on PMem, without
  // a migration (which would write them down, as tombstones, first).
  for (size_t i = 0; vacant && s.ok() && i < locked.size(); ++i) {
    if (table_.UnitRecords(locked[i]) > 0)
      s = table_.ClearExpiredUnit(locked[i]);
  }
  if (vacant && s.ok()) {
    // The unit kept takes the merged range; one without blocks if there
    // is one, so that the units freed are those with blocks. (None holds
    // a record whose fingerprint its range's lower bound must keep.)
    uint64_t kept = units[first];
    for (size_t p = first; p < first + n; ++p) {
      if (!table_.UnitHasBlocks(units[p])) {
        kept = units[p];
        break;
      }
    }
    // As a move's step 3: the merged ranges' older log records (of the
    // units that held them once) must look migrated to the kept unit.
    table_.SetDramEpoch(kept, std::max(table_.MaxDramEpoch(),
                                       table_.DramState(kept).epoch));
    s = table_.MigrateDram(kept);
    RangeMap::Change merge;
    merge.kind = RangeMap::Change::Kind::kMerge;
    merge.position = static_cast<uint32_t>(first);
    merge.unit = static_cast<uint32_t>(kept);
    merge.count = static_cast<uint32_t>(n);
    if (s.ok()) s = store_->Switch(merge);
    if (s.ok()) {
      for (const uint64_t u : locked) {
        if (u != kept) table_.ClearUnit(u);
        table_.ResetUnitExpiryBound(u);
        tails_->Forget(u);
      }
    }
  }
  unlock_all();
  return s;
}

bool RangeRebalancer::FindFree(uint64_t heavy, size_t count,
                               std::vector<FreeCandidate>* frees) {
  frees->clear();
  // Units no position names hold nothing live.
  for (const uint32_t u : map_->Unnamed(count)) frees->push_back({u, u});
  if (frees->size() == count) return true;
  // Then the lightest neighbours, if merging them makes a unit below 3/4
  // of the heavy one (so that the largest unit shrinks); the upper of the
  // two moves into the lower, whose range thus keeps its lower bound (the
  // fingerprints of its records are taken on it: placement/key_fingerprint.h).
  std::vector<uint64_t> taken = {heavy};
  const uint64_t limit = table_.UnitRecords(heavy) * 3 / 4;
  bool walked = false;
  while (frees->size() < count) {
    if (!walked && (light_pairs_.empty() || frees_since_walk_ >= kWalkEvery)) {
      FindLightPairs();
      walked = true;
    }
    std::optional<std::pair<uint32_t, uint32_t>> pair =
        TakeLightPair(taken, limit);
    if (!pair && !walked) {
      FindLightPairs();
      walked = true;
      pair = TakeLightPair(taken, limit);
    }
    if (!pair) return false;
    const auto [a, b] = *pair;
    taken.push_back(a);
    taken.push_back(b);
    ++frees_since_walk_;
    frees->push_back(FreeCandidate{b, a});  // a's position is b's - 1
  }
  return true;
}

// Pairs are ranked by their records on PMem (one array); the few lightest
// then by all their records (the DRAM entries', a miss each): a unit whose
// recent writes are all still in DRAM is not empty.
std::optional<std::pair<uint32_t, uint32_t>> RangeRebalancer::TakeLightPair(
    const std::vector<uint64_t>& taken, uint64_t limit) {
  constexpr size_t kShortlist = 8;
  auto is_taken = [&](uint64_t u) {
    return std::find(taken.begin(), taken.end(), u) != taken.end();
  };
  std::optional<size_t> best;
  uint64_t best_records = limit + 1;
  size_t listed = 0;
  for (size_t i = 0; i < light_pairs_.size() && listed < kShortlist;) {
    const auto [a, b] = light_pairs_[i];
    const std::optional<size_t> pa = map_->PositionOfUnit(a);
    const std::optional<size_t> pb = map_->PositionOfUnit(b);
    if (!pa || !pb || *pa + 1 != *pb) {
      light_pairs_.erase(light_pairs_.begin() + static_cast<ptrdiff_t>(i));
      continue;
    }
    ++i;
    if (is_taken(a) || is_taken(b) ||
        table_.UnitPmemRecords(a) + table_.UnitPmemRecords(b) > limit) {
      continue;
    }
    ++listed;
    const uint64_t records = table_.UnitRecords(a) + table_.UnitRecords(b);
    if (records < best_records) {
      best = i - 1;
      best_records = records;
    }
  }
  if (!best) return std::nullopt;
  const std::pair<uint32_t, uint32_t> pair = light_pairs_[*best];
  light_pairs_.erase(light_pairs_.begin() + static_cast<ptrdiff_t>(*best));
  return pair;
}

void RangeRebalancer::FindLightPairs() {
  const std::vector<uint32_t> units = map_->Units();
  std::vector<std::pair<uint64_t, size_t>> lightest;  // (records, position)
  for (size_t p = 0; p + 1 < units.size(); ++p) {
    const uint64_t records = table_.UnitPmemRecords(units[p]) +
                             table_.UnitPmemRecords(units[p + 1]);
    if (lightest.size() < kLightPairs) {
      lightest.emplace_back(records, p);
      std::push_heap(lightest.begin(), lightest.end());
    } else if (records < lightest.front().first) {
      std::pop_heap(lightest.begin(), lightest.end());
      lightest.back() = {records, p};
      std::push_heap(lightest.begin(), lightest.end());
    }
  }
  std::sort_heap(lightest.begin(), lightest.end());
  light_pairs_.clear();
  for (const auto& [records, p] : lightest)
    light_pairs_.emplace_back(units[p], units[p + 1]);
  frees_since_walk_ = 0;
}

Status RangeRebalancer::Free(const FreeCandidate& candidate,
                             uint64_t* freed) {
  *freed = candidate.unit;
  if (candidate.into == candidate.unit) {
    // No position names it; a crash may have left it records (a move's
    // copies, a clear not finished).
    SpinLockRef lock = table_.DramLock(candidate.unit);
    lock.lock();
    Status s = MigrateIfNotEmpty(candidate.unit);
    if (s.ok()) {
      table_.ClearUnit(candidate.unit);
      table_.ResetUnitExpiryBound(candidate.unit);
    }
    tails_->Forget(candidate.unit);
    lock.unlock();
    return s;
  }
  RangeMap::Change merge;
  merge.kind = RangeMap::Change::Kind::kMerge;
  merge.unit = static_cast<uint32_t>(candidate.into);
  return Move(candidate.unit, candidate.into, merge);
}

Status RangeRebalancer::ReadNewest(uint64_t unit, const RangeMap::Range& range,
                                   std::vector<Record>* records) const {
  std::vector<table::Slot> slots;
  Status s = table_.CollectSubtree(unit, &slots);
  if (!s.ok()) return s;
  // Newest first: the first version of a key met is its newest. A
  // reference that dangles belongs to a superseded version.
  std::vector<Record> all;
  all.reserve(slots.size());
  VisitSlotsPrefetching(slots, payload_, [&](const table::Slot& slot) {
    Record r;
    r.tombstone = slot.tombstone;
    if (slot.indirect) {
      if (!payload_.ReadEntry(slot.value, &r.key, &r.value, &r.expires_at_ms))
        return;
      // An expired record moves as what it is to readers: a tombstone.
      if (payload_.Expired(r.expires_at_ms)) {
        r.tombstone = true;
        r.value.clear();
        r.expires_at_ms = 0;
      }
    } else {
      r.key.assign(reinterpret_cast<const char*>(&slot.key), 8);
      if (!slot.tombstone)
        r.value.assign(reinterpret_cast<const char*>(&slot.value), 8);
    }
    if (range.Contains(r.key)) all.push_back(std::move(r));
  });
  // Sorted by key, then newest first, through 16 bytes of each key (most
  // comparisons end there) and its index: records are not moved around.
  struct Order {
    uint64_t first, second;  // KeyPrefix of bytes 0-7 and 8-15
    uint32_t index;
  };
  std::vector<Order> order(all.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    const std::string_view key = all[i].key;
    order[i] = {KeyPrefix(key), KeySecondWord(key), i};
  }
  std::sort(order.begin(), order.end(), [&](const Order& a, const Order& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.second != b.second) return a.second < b.second;
    const int c = all[a.index].key.compare(all[b.index].key);
    return c != 0 ? c < 0 : a.index < b.index;
  });
  records->clear();
  for (const Order& o : order) {
    Record& r = all[o.index];
    if (records->empty() || records->back().key != r.key)
      records->push_back(std::move(r));
  }
  return Status::OK();
}

Status RangeRebalancer::MigrateIfNotEmpty(uint64_t unit) {
  return table_.DramState(unit).size > 0 ? table_.MigrateDram(unit)
                                         : Status::OK();
}


Status RangeRebalancer::Move(uint64_t from, uint64_t to,
                             RangeMap::Change change) {
  TwoEntryLock lock(table_, from, to);
  if (closed_.load(std::memory_order_relaxed))
    return Status::InvalidArgument("the DB is closed");
  // The positions as they are now: only moves change them, and a move
  // takes the locks of both units it changes.
  const std::optional<RangeMap::Range> from_range = map_->RangeOfUnit(from);
  if (!from_range) return Status::OK();
  RangeMap::Range range = *from_range;
  change.position = static_cast<uint32_t>(range.position);
  // Above the largest key the unit holds now (keys that keep growing), or
  // below the smallest (keys that keep falling): nothing of `from` lies in
  // the range that moves.
  const bool below = change.kind == RangeMap::Change::Kind::kSplitBelow;
  const bool beside_all =
      (below || change.kind == RangeMap::Change::Kind::kSplit) &&
      change.separator.empty();
  if (beside_all) {
    std::optional<std::string> edge =
        below ? tails_->Smallest(from) : tails_->Largest(from);
    if (!edge) {
      std::vector<std::string> keys;
      size_t recent = 0;
      Status s = ReadKeys(from, range, &keys, &recent);
      if (!s.ok() || keys.empty()) return s;
      edge = below ? *std::min_element(keys.begin(), keys.end())
                   : *std::max_element(keys.begin(), keys.end());
    }
    change.separator = below ? *edge : *edge + std::string(1, '\0');
  }
  if (below || change.kind == RangeMap::Change::Kind::kSplit) {
    if (change.separator <= range.lower ||
        (range.upper && change.separator >= *range.upper)) {
      return Status::OK();  // the range changed since the split was chosen
    }
    if (below) {
      range.upper = change.separator;
    } else {
      range.lower = change.separator;
    }
  }
  // Where the range of `to` begins once the map is switched: the copies'
  // fingerprints are taken on it (placement/key_fingerprint.h).
  std::string to_lower = range.lower;
  if (change.kind == RangeMap::Change::Kind::kMerge) {
    const std::optional<RangeMap::Range> to_range = map_->RangeOfUnit(to);
    // `to` is the lower neighbour (FindFree): its range keeps its lower
    // bound, which its records' fingerprints rely on.
    if (!to_range || to_range->position + 1 != range.position)
      return Status::OK();  // no longer neighbours
    change.position = static_cast<uint32_t>(to_range->position);
    to_lower = to_range->lower;
  }
  // 1. Nothing of either unit is left only in a log.
  Status s = beside_all ? Status::OK() : MigrateIfNotEmpty(from);
  if (s.ok()) s = MigrateIfNotEmpty(to);
  // 2. Copies of `from`'s keys in the range; what `to` holds there already
  // is shadowed: by a copy, or by a tombstone where `from` has no live
  // version.
  std::vector<Record> moving;
  std::vector<Record> held;
  if (s.ok() && !beside_all) s = ReadNewest(from, range, &moving);
  // (A unit freed for a split or a reassignment was cleared, and if it
  // holds nothing since, on PMem or in DRAM, needs no reading; moves begin
  // once the units are counted, CountUnits. A merge's unit holds records,
  // and its count may leave out copies a failed split left behind.)
  if (s.ok() && (change.kind == RangeMap::Change::Kind::kMerge ||
                 !counted_.load(std::memory_order_relaxed) ||
                 table_.UnitRecords(to) > 0)) {
    s = ReadNewest(to, range, &held);
  }
  if (!s.ok()) return s;
  std::vector<const Record*> writes;
  std::vector<Record> tombstones;
  auto live = moving.begin();
  for (const Record& h : held) {
    while (live != moving.end() && live->key < h.key) ++live;
    const bool shadowed =
        live != moving.end() && live->key == h.key && !live->tombstone;
    if (!shadowed && !h.tombstone) tombstones.push_back({h.key, {}, true});
  }
  for (const Record& r : moving) {
    if (!r.tombstone) writes.push_back(&r);
  }
  for (const Record& t : tombstones) writes.push_back(&t);
  // The copies' payload entries stay reserved until the map is switched:
  // until then compaction would take them for another unit's.
  std::deque<payload::PayloadLogs::Ticket> tickets;
  const payload::PayloadLogs::DeferCompaction under_locks;
  const KeyHasher& hasher = table_.hasher();
  for (const Record* r : writes) {
    if (table_.DramFull(to)) {
      s = table_.MigrateDram(to);
      if (!s.ok()) return s;
    }
    const uint64_t hash = hasher.HashOnUnit(r->key, to);
    table::Slot slot;
    if (r->key.size() == 8 && r->expires_at_ms == 0 &&
        (r->tombstone || r->value.size() == 8)) {
      uint64_t key_word = 0, value_word = 0;
      std::memcpy(&key_word, r->key.data(), 8);
      if (!r->tombstone) std::memcpy(&value_word, r->value.data(), 8);
      slot = {key_word, value_word, r->tombstone, false};
    } else {
      uint64_t ref = 0;
      s = payload_.Append(r->key, hash, r->value, r->expires_at_ms, &ref,
                          &tickets.emplace_back());
      if (!s.ok()) return s;
      slot = {hasher.IndirectWordOnUnit(r->key, to, to_lower), ref,
              r->tombstone, true};
    }
    table_.InsertDram(to, hash, slot, /*logged=*/false, r->expires_at_ms);
  }
  copied_.fetch_add(writes.size(), std::memory_order_relaxed);
  // 3. Durable, and above every epoch a log may hold.
  s = MigrateIfNotEmpty(to);
  if (!s.ok()) return s;
  table_.SetDramEpoch(to, std::max(table_.MaxDramEpoch(),
                                   table_.DramState(to).epoch));
  s = table_.MigrateDram(to);
  if (!s.ok()) return s;
  // 4.
  s = store_->Switch(change);
  if (!s.ok()) return s;
  // 5. What moved stays behind in `from`, where no lookup reaches it; a
  // unit left without a position holds nothing else: cleared.
  if (below || change.kind == RangeMap::Change::Kind::kSplit) {
    const uint64_t records = table_.UnitPmemRecords(from);
    table_.SetUnitPmemRecords(from, records - std::min(records, moving.size()));
  } else {
    table_.ClearUnit(from);
    table_.ResetUnitExpiryBound(from);
  }
  // The tails: `to` holds exactly the copies (in its range), unless it
  // was merged into; `from` keeps its largest key only if nothing moved.
  std::optional<std::string_view> largest;
  for (const Record* r : writes) {
    if (!largest || r->key > *largest) largest = r->key;
  }
  if (change.kind == RangeMap::Change::Kind::kMerge) {
    tails_->Forget(to);
  } else {
    tails_->Set(to, largest);
  }
  if (beside_all) {
    tails_->Closed(from);
  } else {
    tails_->Forget(from);
  }
  return Status::OK();
}

}  // namespace plush
