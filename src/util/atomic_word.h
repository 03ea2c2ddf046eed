// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Atomic access to plain 64-bit words that live in the pool mapping or in
// DRAM structures shared with lock-free readers. On x86 these are ordinary
// loads and stores; spelling them as atomics keeps the compiler from
// tearing or caching them and keeps ThreadSanitizer precise.

#ifndef PLUSH_UTIL_ATOMIC_WORD_H_
#define PLUSH_UTIL_ATOMIC_WORD_H_

#include <atomic>
#include <cstdint>

namespace plush {

inline uint64_t LoadRelaxed(const uint64_t& w) {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w))
      .load(std::memory_order_relaxed);
}
inline void StoreRelaxed(uint64_t& w, uint64_t v) {
  std::atomic_ref<uint64_t>(w).store(v, std::memory_order_relaxed);
}
inline uint64_t LoadAcquire(const uint64_t& w) {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w))
      .load(std::memory_order_acquire);
}
inline void StoreRelease(uint64_t& w, uint64_t v) {
  std::atomic_ref<uint64_t>(w).store(v, std::memory_order_release);
}

// Stores a version word before writing what it protects (a seqlock
// writer's first store): no later write moves before it. An exchange
// orders so on every build (TSan does not model fences).
inline void StoreBeforeWrites(uint64_t& w, uint64_t v) {
  (void)std::atomic_ref<uint64_t>(w).exchange(v, std::memory_order_acq_rel);
}

// Re-reads a version word after reading what it protects (the validating
// read of a seqlock): no earlier read may move after it.
inline uint64_t ReloadAfterReads(const uint64_t& w) {
#if defined(__SANITIZE_THREAD__)
  // TSan does not model fences; a read-don't-modify-write orders the same.
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(w))
      .fetch_add(0, std::memory_order_acq_rel);
#else
  std::atomic_thread_fence(std::memory_order_acquire);
  return LoadRelaxed(w);
#endif
}

}  // namespace plush

#endif  // PLUSH_UTIL_ATOMIC_WORD_H_
