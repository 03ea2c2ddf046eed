// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A one-word writer lock for DRAM directory entries. Held for ~100 ns on the
// common path and for a migration (tens of microseconds) once every
// 16 * fanout inserts into the entry, so it spins briefly and then yields:
// with more threads than cores a preempted holder must be able to run.

#ifndef PLUSH_UTIL_SPIN_LOCK_H_
#define PLUSH_UTIL_SPIN_LOCK_H_

#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace plush {

// Locks the lock word `word` (0 = free, 1 = held). Works on any 64-bit word
// that lives in DRAM, so lock words can sit inside other structures.
class SpinLockRef {
 public:
  explicit SpinLockRef(uint64_t& word) : word_(word) {}

  void lock() {
    for (unsigned spins = 0;; ++spins) {
      uint64_t expected = 0;
      if (word_.load(std::memory_order_relaxed) == 0 &&
          word_.compare_exchange_weak(expected, 1, std::memory_order_acquire)) {
        return;
      }
      if (spins < 64) {
        _mm_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }
  void unlock() { word_.store(0, std::memory_order_release); }

 private:
  std::atomic_ref<uint64_t> word_;
};

}  // namespace plush

#endif  // PLUSH_UTIL_SPIN_LOCK_H_
