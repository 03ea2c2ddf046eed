// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "reply_sync.h"

#include <utility>

namespace plush::server {

void SyncedWrites::Covered(uint64_t ended) {
  uint64_t covered = covered_.load(std::memory_order_seq_cst);
  while (covered < ended &&
         !covered_.compare_exchange_weak(covered, ended,
                                         std::memory_order_seq_cst)) {
  }
}

void ReplySync::Await(std::shared_ptr<Waiter> waiter) {
  waiting_.push_back(std::move(waiter));
  if (waiting_.size() == 1) PostSync(0);
}

void ReplySync::PostSync(int deferrals) {
  post_([this, deferrals, seen = waiting_.size()] {
    if (waiting_.size() > seen && deferrals < kMaxDeferrals) {
      PostSync(deferrals + 1);
    } else {
      SyncWaiters();
    }
  });
}

void ReplySync::SyncWaiters() {
  // Taken first: a waiter that Synced() sends on may await the next sync.
  std::vector<std::shared_ptr<Waiter>> waiters = std::move(waiting_);
  waiting_.clear();
  const uint64_t ended = writes_->Ended();
  Status status;
  {
    SharedGateLock gate(gate_);  // as every call to the pool (FLUSHDB)
    status = db_->Sync();
  }
  syncs_->fetch_add(1, std::memory_order_relaxed);
  if (status.ok()) writes_->Covered(ended);
  for (const std::shared_ptr<Waiter>& waiter : waiters) {
    waiter->Synced(status);
  }
}

}  // namespace plush::server
