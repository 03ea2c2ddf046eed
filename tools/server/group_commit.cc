// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "group_commit.h"

namespace plush::server {
namespace {

// A group stops growing at this many bytes of keys and values (its first
// request may exceed it alone): larger groups would add more to the
// waiting time of their first writer than they save. LevelDB's figure.
constexpr size_t kMaxGroupBytes = 1 << 20;

size_t Bytes(std::span<const KeyValue> puts) {
  size_t bytes = 0;
  for (const KeyValue& kv : puts) bytes += kv.key.size() + kv.value.size();
  return bytes;
}

}  // namespace

void GroupCommit::Submit(std::span<const KeyValue> puts, Waiter* waiter) {
  std::vector<Request> group;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({puts, waiter});
    if (leader_active_) return;  // the leader will take it
    leader_active_ = true;
    group = TakeGroup();
  }
  for (;;) {
    Commit(group);
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) {
      leader_active_ = false;
      return;
    }
    group = TakeGroup();
  }
}

std::vector<GroupCommit::Request> GroupCommit::TakeGroup() {
  std::vector<Request> group;
  size_t records = 0;
  size_t bytes = 0;
  while (!queue_.empty()) {
    const Request& next = queue_.front();
    const size_t next_bytes = Bytes(next.puts);
    if (!group.empty() && (records + next.puts.size() > kMaxBatchRecords ||
                           bytes + next_bytes > kMaxGroupBytes)) {
      break;
    }
    records += next.puts.size();
    bytes += next_bytes;
    group.push_back(next);
    queue_.pop_front();
  }
  return group;
}

void GroupCommit::Commit(const std::vector<Request>& group) {
  Status s = Write(group);
  groups_.fetch_add(1, std::memory_order_relaxed);
  if (s.IsInvalidArgument() && group.size() > 1) {
    for (const Request& request : group) {
      groups_.fetch_add(1, std::memory_order_relaxed);
      request.waiter->Committed(Write({&request, 1}));
    }
  } else {
    for (const Request& request : group) request.waiter->Committed(s);
  }
  requests_.fetch_add(group.size(), std::memory_order_relaxed);
}

Status GroupCommit::Write(std::span<const Request> requests) {
  WriteBatch batch;
  for (const Request& request : requests) {
    for (const KeyValue& kv : request.puts) batch.Put(kv.key, kv.value);
  }
  return db_->Write(WriteOptions(), &batch);
}

}  // namespace plush::server
