// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/thread_index.h"

#include <atomic>
#include <cstdint>

namespace plush {
namespace {

std::atomic<uint64_t> taken{0};  // bit i: index i is owned by a live thread

static_assert(kThreadIndexes == 64, "one bit of `taken` per index");

// Owns an index for the lifetime of its thread.
struct Lease {
  unsigned index = kThreadIndexes;
  Lease() {
    uint64_t bits = taken.load();
    while (~bits != 0) {
      const unsigned free = static_cast<unsigned>(__builtin_ctzll(~bits));
      if (taken.compare_exchange_weak(bits, bits | uint64_t{1} << free)) {
        index = free;
        return;
      }
    }
  }
  ~Lease() {
    if (index < kThreadIndexes) taken.fetch_and(~(uint64_t{1} << index));
  }
};

}  // namespace

unsigned ThreadIndex() {
  thread_local const Lease lease;
  return lease.index;
}

}  // namespace plush
