// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The largest key of each unit of a range pool, and whether the unit's
// writes keep growing, known without reading the unit: what a re-balance
// needs to split a unit whose keys only grow (sequence numbers,
// timestamps, `user:%08d` loaded in order) above its largest key, moving
// nothing (db/range_rebalancer.h). Reading the unit's keys to learn the
// same cost as much as the writes that filled it. Likewise the smallest
// key of a unit whose keys keep falling (counters counting down, a log
// loaded newest first), which is split below it: a unit's writes are taken
// to fall when the second write into it when it was empty went below the
// first.
//
// A unit's tail is noted by every write into it (WritePath, under the
// DRAM entry's lock) and set by the re-balancer when it fills a unit with
// copies, and known for every unit of a new pool; it is known from then
// on, for as long as the unit's writes keep growing. It is not known after
// an existing pool is opened (nothing in the pool records it), nor after a
// merge, nor for keys longer than kMaxKey bytes: the re-balancer then
// reads the unit's keys.
//
// Thread safety: unit u's tail under u's DRAM entry lock; GrowingHint()
// without it.

#ifndef PLUSH_DB_UNIT_TAILS_H_
#define PLUSH_DB_UNIT_TAILS_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace plush {

class UnitTails {
 public:
  // Keys up to this long are kept (a tail fills half a cache line).
  static constexpr size_t kMaxKey = 24;
  // Keys keep growing while at least one write in four (after a few)
  // goes above the largest key: writers of one stream on a few threads
  // arrive nearly in order, each a little below another's newest key at
  // times; keys in no order seldom pass the largest of a unit. (Falling
  // keys the same way round.)
  static constexpr uint64_t BelowAllowed(uint64_t writes) {
    return 4 + 3 * writes;
  }

  // `empty`: the units hold nothing yet (a new pool).
  UnitTails(uint64_t units, bool empty)
      : units_(units), tails_(new Tail[units]) {
    if (empty) {
      for (uint64_t u = 0; u < units; ++u) Set(u, std::nullopt);
    }
  }

  uint64_t dram_bytes() const { return units_ * sizeof(Tail); }

  // A write into `unit` is coming: its Note() will not wait for memory.
  void Prefetch(uint64_t unit) const { __builtin_prefetch(&tails_[unit], 1); }

  // A write of `key` into `unit`.
  void Note(uint64_t unit, std::string_view key) {
    Tail& t = tails_[unit];
    if (!t.known || !t.growing) return;
    if (key.size() > kMaxKey) {
      Forget(unit);
      return;
    }
    if (t.has_edge) {
      if (t.lone && key < t.edge_key()) t.falling = true;
      t.lone = false;
      if (t.falling ? key >= t.edge_key() : key <= t.edge_key()) {
        // Writes behind the edge leave the keys growing (falling) while
        // the writes past it are not too few (BelowAllowed).
        const uint32_t writes = t.writes.load(std::memory_order_relaxed);
        if (t.below < UINT16_MAX && ++t.below <= BelowAllowed(writes))
          return;
        t.growing = false;
        t.writes.store(0, std::memory_order_relaxed);
        return;
      }
    } else {
      t.lone = true;  // the first key of an empty unit
    }
    if (!key.empty()) std::memcpy(t.edge, key.data(), key.size());
    t.size = static_cast<uint8_t>(key.size());
    t.has_edge = true;
    const uint32_t writes = t.writes.load(std::memory_order_relaxed);
    if (writes < UINT32_MAX) t.writes.store(writes + 1, std::memory_order_relaxed);
  }

  // The unit holds exactly the records just copied into it, the largest
  // key `max` (none: it holds nothing).
  void Set(uint64_t unit, std::optional<std::string_view> max) {
    Forget(unit);
    Tail& t = tails_[unit];
    if (max && max->size() > kMaxKey) return;
    t.known = true;
    if (max) {
      if (!max->empty()) std::memcpy(t.edge, max->data(), max->size());
      t.size = static_cast<uint8_t>(max->size());
      t.has_edge = true;
    }
  }
  // What the unit holds is no longer known.
  void Forget(uint64_t unit) {
    Tail& t = tails_[unit];
    t.known = false;
    t.growing = true;
    t.has_edge = false;
    t.falling = false;
    t.lone = false;
    t.size = 0;
    t.retired = false;
    t.below = 0;
    t.writes.store(0, std::memory_order_relaxed);
  }
  // The unit's range now ends above its largest key (begins at its
  // smallest, if its keys fall): its past writes no longer say that it
  // receives growing keys.
  // It is retired: its writes went to the unit that took the keys above,
  // and what it still takes (writes below its largest key: a writer's key
  // that raced the split, an update) is not what it was split for.
  void Closed(uint64_t unit) {
    tails_[unit].writes.store(0, std::memory_order_relaxed);
    tails_[unit].below = 0;
    tails_[unit].retired = true;
  }
  // Whether the unit was Closed() since it was last Set() or Forget()-ten.
  bool Retired(uint64_t unit) const { return tails_[unit].retired; }

  // The unit's largest key, if known (and its keys do not fall).
  std::optional<std::string> Largest(uint64_t unit) const {
    return Edge(unit, /*falling=*/false);
  }
  // The unit's smallest key, if known and its keys fall.
  std::optional<std::string> Smallest(uint64_t unit) const {
    return Edge(unit, /*falling=*/true);
  }
  // Whether the unit's keys keep growing: its largest key is known, and
  // its last writes (more than one) went above every key it held, all but
  // a few (BelowAllowed).
  bool Growing(uint64_t unit) const {
    return Monotonic(unit) && !tails_[unit].falling;
  }
  // Whether they keep falling, the same way round.
  bool Falling(uint64_t unit) const {
    return Monotonic(unit) && tails_[unit].falling;
  }
  // Growing() or Falling(); without the unit's lock, a hint, for choosing
  // which units to look at under their locks.
  bool Monotonic(uint64_t unit) const {
    return tails_[unit].writes.load(std::memory_order_relaxed) >= 2;
  }

 private:
  struct Tail {
    bool known : 1 = false;
    // Writes grow (or fall); once not, the edge is not followed.
    bool growing : 1 = true;
    bool has_edge : 1 = false;
    bool retired : 1 = false;  // (Retired)
    bool falling : 1 = false;  // the edge is the smallest key, not largest
    bool lone : 1 = false;     // the unit holds one key, the edge
    uint8_t size = 0;
    uint16_t below = 0;  // writes behind the edge since `writes`
    // Writes since the tail was set, while they grow (0 otherwise).
    std::atomic<uint32_t> writes{0};
    char edge[kMaxKey] = {};
    std::string_view edge_key() const { return {edge, size}; }
  };
  std::optional<std::string> Edge(uint64_t unit, bool falling) const {
    const Tail& t = tails_[unit];
    if (!t.known || !t.growing || !t.has_edge || t.falling != falling)
      return std::nullopt;
    return std::string(t.edge_key());
  }
  static_assert(sizeof(Tail) == 32);

  const uint64_t units_;
  const std::unique_ptr<Tail[]> tails_;
};

}  // namespace plush

#endif  // PLUSH_DB_UNIT_TAILS_H_
