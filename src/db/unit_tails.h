// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The largest key of each unit of a range pool, and whether the unit's
// writes keep growing, known without reading the unit: what a re-balance
// needs to split a unit whose keys only grow (sequence numbers,
// timestamps, `user:%08d` loaded in order) above its largest key, moving
// nothing (db/range_rebalancer.h). Reading the unit's keys to learn the
// same cost as much as the writes that filled it. Likewise the smallest
// key of a unit whose keys keep falling (counters counting down, a log
// loaded newest first), which is split below it; a unit's smallest key is
// known when it was empty once the tail was set, not when it was filled
// with copies (whose largest key is given).
//
// A unit's tail is noted by every write into it (WritePath, under the
// DRAM entry's lock) and set by the re-balancer when it fills a unit with
// copies, and known for every unit of a new pool; it is known from then
// on, for as long as the unit's writes keep growing (falling). It is not
// known after an existing pool is opened (nothing in the pool records
// it), nor after a merge, nor for keys longer than kMaxKey bytes: the
// re-balancer then reads the unit's keys.
//
// Thread safety: unit u's tail under u's DRAM entry lock; Monotonic()
// without it.

#ifndef PLUSH_DB_UNIT_TAILS_H_
#define PLUSH_DB_UNIT_TAILS_H_

#include <algorithm>
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
  // Keys up to this long are kept (a tail fills a cache line).
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
    if (!t.known || !(t.growing || t.falling)) return;
    if (key.size() > kMaxKey) {
      Forget(unit);
      return;
    }
    if (!t.has_max) {  // the unit's first key
      t.SetMax(key);
      t.SetMin(key);
      t.up.store(1, std::memory_order_relaxed);
      t.down.store(1, std::memory_order_relaxed);
      return;
    }
    // Each trend on its own: writes behind its edge leave it while the
    // writes past it are not too few (BelowAllowed).
    if (t.growing) {
      if (key > t.max()) {
        t.SetMax(key);
        Count(t.up);
      } else {
        t.growing = Behind(&t.behind_up, t.up);
      }
    }
    if (t.falling) {
      if (!t.has_min) {
        t.falling = false;  // (its smallest key is not known)
      } else if (key < t.min()) {
        t.SetMin(key);
        Count(t.down);
      } else {
        t.falling = Behind(&t.behind_down, t.down);
      }
    }
  }

  // The unit holds exactly the records just copied into it, the largest
  // key `max` (none: it holds nothing).
  void Set(uint64_t unit, std::optional<std::string_view> max) {
    Forget(unit);
    Tail& t = tails_[unit];
    if (max && max->size() > kMaxKey) return;
    t.known = true;
    if (max) t.SetMax(*max);
  }
  // What the unit holds is no longer known.
  void Forget(uint64_t unit) {
    Tail& t = tails_[unit];
    t.known = false;
    t.growing = true;
    t.falling = true;
    t.has_max = false;
    t.has_min = false;
    t.retired = false;
    t.behind_up = 0;
    t.behind_down = 0;
    t.up.store(0, std::memory_order_relaxed);
    t.down.store(0, std::memory_order_relaxed);
  }
  // The unit's range now ends above its largest key (or begins at its
  // smallest): its past writes no longer say that it receives growing
  // (falling) keys.
  // It is retired: its writes went to the unit that took the keys above,
  // and what it still takes (writes below its largest key: a writer's key
  // that raced the split, an update) is not what it was split for.
  void Closed(uint64_t unit) {
    Tail& t = tails_[unit];
    t.up.store(0, std::memory_order_relaxed);
    t.down.store(0, std::memory_order_relaxed);
    t.behind_up = 0;
    t.behind_down = 0;
    t.retired = true;
  }
  // Whether the unit was Closed() since it was last Set() or Forget()-ten.
  bool Retired(uint64_t unit) const { return tails_[unit].retired; }

  // The unit's largest key, if known (while its keys may grow).
  std::optional<std::string> Largest(uint64_t unit) const {
    const Tail& t = tails_[unit];
    if (!t.known || !t.growing || !t.has_max) return std::nullopt;
    return std::string(t.max());
  }
  // The unit's smallest key, if known (while its keys may fall).
  std::optional<std::string> Smallest(uint64_t unit) const {
    const Tail& t = tails_[unit];
    if (!t.known || !t.falling || !t.has_min) return std::nullopt;
    return std::string(t.min());
  }
  // Whether the unit's keys keep growing: its largest key is known, and
  // its last writes (more than one) went above every key it held, all but
  // a few (BelowAllowed), and no fewer than went below.
  bool Growing(uint64_t unit) const {
    const uint32_t up = Up(unit);
    return up >= 2 && up >= Down(unit);
  }
  // Whether they keep falling, the same way round.
  bool Falling(uint64_t unit) const {
    const uint32_t down = Down(unit);
    return down >= 2 && down > Up(unit);
  }
  // Growing() or Falling(); without the unit's lock, a hint, for choosing
  // which units to look at under their locks.
  bool Monotonic(uint64_t unit) const {
    return Up(unit) >= 2 || Down(unit) >= 2;
  }

 private:
  struct alignas(64) Tail {
    bool known : 1 = false;
    // Whether writes may still be growing (falling): once not, the edge
    // is not followed.
    bool growing : 1 = true;
    bool falling : 1 = true;
    bool has_max : 1 = false;
    bool has_min : 1 = false;
    bool retired : 1 = false;  // (Retired)
    uint8_t max_size = 0;
    uint8_t min_size = 0;
    uint16_t behind_up = 0;    // writes at or below the largest key
    uint16_t behind_down = 0;  // at or above the smallest
    // Writes since the tail was set that went above every key (below),
    // while they may grow (fall); 0 otherwise.
    std::atomic<uint32_t> up{0};
    std::atomic<uint32_t> down{0};
    char max_bytes[kMaxKey] = {};
    char min_bytes[kMaxKey] = {};

    std::string_view max() const { return {max_bytes, max_size}; }
    std::string_view min() const { return {min_bytes, min_size}; }
    void SetMax(std::string_view key) {
      if (!key.empty()) std::memcpy(max_bytes, key.data(), key.size());
      max_size = static_cast<uint8_t>(key.size());
      has_max = true;
    }
    void SetMin(std::string_view key) {
      if (!key.empty()) std::memcpy(min_bytes, key.data(), key.size());
      min_size = static_cast<uint8_t>(key.size());
      has_min = true;
    }
  };
  static_assert(sizeof(Tail) == 64);

  static void Count(std::atomic<uint32_t>& writes) {
    const uint32_t n = writes.load(std::memory_order_relaxed);
    if (n < UINT32_MAX) writes.store(n + 1, std::memory_order_relaxed);
  }
  // A write behind the edge that `past` counts the writes beyond: whether
  // the trend holds (else `past` is cleared).
  static bool Behind(uint16_t* behind, std::atomic<uint32_t>& past) {
    const uint32_t writes = past.load(std::memory_order_relaxed);
    if (*behind < UINT16_MAX && ++*behind <= BelowAllowed(writes)) return true;
    past.store(0, std::memory_order_relaxed);
    return false;
  }
  uint32_t Up(uint64_t unit) const {
    return tails_[unit].up.load(std::memory_order_relaxed);
  }
  uint32_t Down(uint64_t unit) const {
    return tails_[unit].down.load(std::memory_order_relaxed);
  }

  const uint64_t units_;
  const std::unique_ptr<Tail[]> tails_;
};

}  // namespace plush

#endif  // PLUSH_DB_UNIT_TAILS_H_
