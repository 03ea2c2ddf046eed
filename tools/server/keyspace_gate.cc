// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "keyspace_gate.h"

namespace plush::server {

void KeyspaceGate::LockShared() {
  for (;;) {
    const uint32_t before = state_.fetch_add(1, std::memory_order_acq_rel);
    if ((before & kClosed) == 0) return;
    // Closed: step back (waking the Lock() that waits for the last holder
    // to leave) and wait until it is open.
    UnlockShared();
    uint32_t state = state_.load(std::memory_order_acquire);
    while ((state & kClosed) != 0) {
      state_.wait(state, std::memory_order_acquire);
      state = state_.load(std::memory_order_acquire);
    }
  }
}

void KeyspaceGate::UnlockShared() {
  if (state_.fetch_sub(1, std::memory_order_acq_rel) == (kClosed | 1)) {
    state_.notify_all();
  }
}

void KeyspaceGate::Lock() {
  alone_.lock();
  uint32_t state = state_.fetch_or(kClosed, std::memory_order_acq_rel);
  state |= kClosed;
  while (state != kClosed) {
    state_.wait(state, std::memory_order_acquire);
    state = state_.load(std::memory_order_acquire);
  }
}

void KeyspaceGate::Unlock() {
  state_.fetch_and(~kClosed, std::memory_order_acq_rel);
  state_.notify_all();
  alone_.unlock();
}

}  // namespace plush::server
