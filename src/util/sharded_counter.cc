// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/sharded_counter.h"

namespace plush {
namespace {

std::atomic<uint64_t> taken{0};  // bit i: slot i is owned by a live thread

// Owns a slot for the lifetime of its thread.
struct SlotLease {
  unsigned slot = kCounterSlots;
  SlotLease() {
    uint64_t bits = taken.load();
    while (~bits != 0) {
      const unsigned free = static_cast<unsigned>(__builtin_ctzll(~bits));
      if (taken.compare_exchange_weak(bits, bits | uint64_t{1} << free)) {
        slot = free;
        return;
      }
    }
  }
  ~SlotLease() {
    if (slot < kCounterSlots) taken.fetch_and(~(uint64_t{1} << slot));
  }
};

static_assert(kCounterSlots == 64, "one bit of `taken` per slot");

}  // namespace

unsigned ThreadSlot() {
  thread_local const SlotLease lease;
  return lease.slot;
}

}  // namespace plush
