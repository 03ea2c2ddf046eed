// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A statistics counter that many threads bump on hot paths without locked
// instructions: each live thread owns one slot (a cache line) and updates
// it with a plain load and store, so an increment neither contends nor
// fences. Read() sums the slots and may miss increments racing with it.
// Threads beyond kThreadIndexes share an overflow slot updated atomically.

#ifndef PLUSH_UTIL_SHARDED_COUNTER_H_
#define PLUSH_UTIL_SHARDED_COUNTER_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "util/thread_index.h"

namespace plush {

class ShardedCounter {
 public:
  void Add(uint64_t n) {
    const unsigned slot = ThreadIndex();
    std::atomic<uint64_t>& v = slots_[slot].value;
    if (slot < kThreadIndexes) {
      v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    } else {
      v.fetch_add(n, std::memory_order_relaxed);
    }
  }
  uint64_t Read() const {
    uint64_t sum = 0;
    for (const Slot& s : slots_) sum += s.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> value{0};
  };
  std::array<Slot, kThreadIndexes + 1> slots_;
};

}  // namespace plush

#endif  // PLUSH_UTIL_SHARDED_COUNTER_H_
