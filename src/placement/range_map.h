// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The placement of a range pool's keys on its units (DRAM directory
// entries; docs/format.md, "Range map"). The key space is cut into
// *positions* in key order by ascending separators: position p holds the
// keys k with separator[p-1] <= k < separator[p] (position 0 everything
// below the first separator, the last position everything from the last
// one on), and each position names the unit that holds its keys. Units
// are not in key order: a re-balance (db/range_rebalancer.h) merges two
// neighbouring positions into one unit and gives the unit it freed to
// half of a heavy position, wherever that lies. A unit named by no
// position is free (and holds no live record).
//
// Lookups, writes and scans place keys with UnitOf() from any thread
// without locks while a re-balance changes the map. The map is kept twice,
// in two buffers of fixed capacity read with atomic loads
// (placement/range_map_buffer.h): a change is
// written to the buffer readers are not using, which then becomes theirs
// (so a reader never waits for a change), and a reader whose buffer was
// written under it — two changes during one read — retries. A separator's
// whole key lives in an arena that is never freed while the map exists;
// so a reader never dereferences freed memory and never acts on a torn
// map. version() lets a longer read (a lookup that searches the unit it
// placed the key on) tell whether a change came in between.

#ifndef PLUSH_PLACEMENT_RANGE_MAP_H_
#define PLUSH_PLACEMENT_RANGE_MAP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "placement/range_map_buffer.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush {

class RangeMap {
 public:
  // A whole map: separators.size() + 1 == units.size() positions.
  struct Layout {
    std::vector<std::string> separators;  // ascending (equal ones allowed)
    std::vector<uint32_t> units;          // distinct, below 2^bits
  };
  // The keys of one position: [lower, upper), upper absent for the last.
  struct Range {
    size_t position = 0;
    std::string lower;
    std::optional<std::string> upper;
    bool Contains(std::string_view key) const {
      return key >= lower && (!upper || key < *upper);
    }
  };

  // A change of the map by a re-balance (db/range_rebalancer.h).
  struct Change {
    enum class Kind : uint8_t {
      kMerge = 1,  // positions p .. p + count - 1 become one, named `unit`
      kSplit = 2,  // the keys of p at or above `separator` become a new
                   // position p + 1, named `unit`
      kReassign = 3,  // position p is named `unit` instead
      // The keys of p below `separator` become a new position p, named
      // `unit`; p's unit keeps the keys from `separator` on (position
      // p + 1).
      kSplitBelow = 4,
    };
    Kind kind = Kind::kMerge;
    uint32_t position = 0;
    uint32_t unit = 0;
    std::string separator;  // kSplit, kSplitBelow
    uint32_t count = 2;     // kMerge: positions merged, 2 .. kMaxMerged
  };
  static constexpr uint32_t kMaxMerged = 257;
  // Applies `change` to `layout`; empty if that gave a map of 2^bits
  // units, else what is wrong (`layout` is then unspecified).
  static std::string ApplyTo(unsigned bits, const Change& change,
                             Layout* layout);

  // Initial layouts of 2^bits positions, position p on unit p.
  // The sample's quantiles (its keys of rank i * n / 2^bits; `sample` in
  // any order, not empty; a sample with fewer distinct keys repeats
  // separators, which leaves the positions between them empty).
  static Layout FromSample(std::vector<std::string> sample, unsigned bits);
  // The keys' leading `bits` bits: separator i is the 8-byte big-endian
  // number i << (64 - bits) (less its trailing zero bytes), the smallest
  // key whose leading bits are i.
  static Layout ByLeadingBits(unsigned bits);
  // Unit p for position p.
  static std::vector<uint32_t> IdentityUnits(size_t positions);

  // REQUIRES: Valid(bits, layout).
  RangeMap(unsigned bits, const Layout& layout);
  RangeMap(const RangeMap&) = delete;
  RangeMap& operator=(const RangeMap&) = delete;

  // Empty if `layout` is a map of 2^bits units, else what is wrong.
  static std::string Invalid(unsigned bits, const Layout& layout);

  unsigned bits() const { return bits_; }

  // Lock-free: the unit of `key` on the map as of one moment.
  uint64_t UnitOf(std::string_view key) const;
  // UnitOf(key), and the separators where the key's position ends and, if
  // `lower` is given, where it begins, on the same map (null for the last
  // position and the first), which live as long as the map.
  uint64_t UnitOf(std::string_view key, const std::string** upper,
                  const std::string** lower = nullptr) const;
  // Grows with every change. Equal before and after some work: the work
  // saw one map throughout. (A change under way, not yet seen by readers,
  // does not count: it only moves the keys of units its caller has
  // locked, and readers of those units wait for their locks or check
  // version() again after the change.)
  uint64_t version() const {
    return version_.load(std::memory_order_acquire) & ~uint64_t{1};
  }
  // After reads that relied on the map at `version` (placed a key, then
  // searched its unit): the map did not change meanwhile.
  bool Unchanged(uint64_t version) const {
    return (ReloadVersion() & ~uint64_t{1}) == version;
  }

  // The slow paths, consistent with changes (a mutex).
  Layout Read() const EXCLUDES(mu_);
  // The keys of the position of `unit`; nullopt if no position names it.
  std::optional<Range> RangeOfUnit(uint64_t unit) const EXCLUDES(mu_);
  // The position of `unit` alone.
  std::optional<size_t> PositionOfUnit(uint64_t unit) const EXCLUDES(mu_);
  // The position that holds `key`.
  size_t PositionOf(std::string_view key) const EXCLUDES(mu_);
  // The smallest key of position `position`; nullopt past the last.
  std::optional<std::string> PositionStart(size_t position) const
      EXCLUDES(mu_);
  // The number of positions, and the unit of each.
  size_t positions() const EXCLUDES(mu_);
  std::vector<uint32_t> Units() const EXCLUDES(mu_);
  // Up to `count` units no position names, lowest first.
  std::vector<uint32_t> Unnamed(size_t count) const EXCLUDES(mu_);

  // Changes, one caller at a time; readers see the old map or the new one.
  // Empty if `change` applies to the map, else what is wrong.
  std::string Check(const Change& change) const EXCLUDES(mu_);
  // REQUIRES: Check(change) is empty.
  void Apply(const Change& change) EXCLUDES(mu_);
  // Installs a whole new map. REQUIRES: Invalid(bits(), layout) is empty.
  void Replace(const Layout& layout) EXCLUDES(mu_);

 private:
  using Prefix = RangeMapBuffer::Prefix;
  // A change as its buffers apply it (its separator in the arena).
  struct Edit {
    Change::Kind kind;
    uint32_t position;
    uint32_t count;
    uint32_t unit;
    const std::string* separator = nullptr;
    Prefix prefix;
    uint32_t kept_unit = 0;  // kSplitBelow: the unit that moves up
  };

  // The version again, after reads it protects (a seqlock's validating
  // read): no earlier read moves after it.
  uint64_t ReloadVersion() const {
#if defined(__SANITIZE_THREAD__)
    // TSan does not model fences; a read-don't-modify-write orders the
    // same (as util/atomic_word.h's ReloadAfterReads).
    return version_.fetch_add(0, std::memory_order_acq_rel);
#else
    std::atomic_thread_fence(std::memory_order_acquire);
    return version_.load(std::memory_order_relaxed);
#endif
  }
  // The buffer readers use at raw version `v`: an even version 2n has
  // map n in buffer n % 2; an odd one 2n + 1 writes map n + 1 into the
  // other.
  static size_t BufferAt(uint64_t v) { return (v >> 1) & 1; }
  // The arena's copy of `key`.
  const std::string* Keep(const std::string& key) REQUIRES(mu_);
  // The position that names `unit`, if one does.
  std::optional<size_t> Find(uint64_t unit) const REQUIRES(mu_);
  // No position names `unit` any more.
  void Unname(uint32_t unit) REQUIRES(mu_);
  // Position `position` names `unit`: keeps named_ and lower_of_.
  void Name(size_t position, uint32_t unit) REQUIRES(mu_);
  // Publishes the map (changed by `edit`; none: replaced) through the
  // buffer readers are not using, which then becomes theirs.
  void Install(const std::optional<Edit>& edit) REQUIRES(mu_);
  // Applies `edit` to buffer `b`; false if it ran out of room.
  bool ApplyTo(size_t b, const Edit& edit) REQUIRES(mu_);

  // The range a thread placed its last key in (UnitOf): on the map of one
  // version, the units of keys whose prefixes lie strictly between two
  // separators' prefixes. A writer of keys in order places most of them
  // in the range of the one before, without a search.
  struct Recent {
    uint64_t map = 0;  // the map's id_ (none: 0)
    uint64_t version = 0;
    RangeMapBuffer::Bounds bounds;
    uint32_t unit = 0;
    bool Holds(uint64_t id, uint64_t v, const Prefix& p) const;
  };
  // The search (the separators around the key's position in *bounds),
  // and the range it found if the map did not change during it.
  uint32_t Search(std::string_view key, const Prefix& prefix, Recent* recent,
                  RangeMapBuffer::Bounds* bounds) const;

  const uint64_t id_;  // distinct for every map of the process
  const unsigned bits_;
  const size_t capacity_;  // 2^bits: the most positions
  // Raw: odd while a change is written (ReloadVersion under TSan).
  mutable std::atomic<uint64_t> version_{0};
  std::unique_ptr<RangeMapBuffer> buffers_[2];
  // What each buffer lacks of the map: the last edit, or all of it.
  std::vector<Edit> pending_[2] GUARDED_BY(mu_);
  bool rebuild_[2] GUARDED_BY(mu_) = {true, true};

  mutable Mutex mu_;
  // The map (separators in the arena).
  std::vector<const std::string*> separators_ GUARDED_BY(mu_);
  std::vector<uint32_t> units_ GUARDED_BY(mu_);
  std::vector<bool> named_ GUARDED_BY(mu_);  // by unit
  // By unit: the separator its position starts at (null for position 0;
  // stale for an unnamed unit). RangeOfUnit() searches for it instead of
  // walking every position (a split shifts the positions of all the units
  // after it, not their separators).
  std::vector<const std::string*> lower_of_ GUARDED_BY(mu_);
  // No unit below it is unnamed.
  size_t unnamed_from_ GUARDED_BY(mu_) = 0;
  // Every separator ever installed, never freed: readers may still hold a
  // pointer to one that a change removed.
  std::set<std::string, std::less<>> arena_ GUARDED_BY(mu_);
};

}  // namespace plush

#endif  // PLUSH_PLACEMENT_RANGE_MAP_H_
