// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "group_commit.h"

#include <cassert>

namespace plush::server {
namespace {

// For pools that store no payload (8-byte keys and values only), the
// group size that LevelDB uses: larger groups add more to the waiting time
// of their first writer than they save.
constexpr size_t kInlineOnlyBatchBytes = 1 << 20;

void AddPuts(std::span<const KeyValue> puts, WriteBatch* batch) {
  for (const KeyValue& kv : puts) {
    batch->PutWithExpiry(kv.key, kv.value, kv.expires_at_ms);
  }
}

size_t Bytes(std::span<const KeyValue> puts) {
  size_t bytes = 0;
  for (const KeyValue& kv : puts) bytes += kv.key.size() + kv.value.size();
  return bytes;
}

}  // namespace

size_t WriteBatchLimit(DB* db) {
  Stats stats;
  if (!db->GetStats(&stats).ok() || stats.payload_log_count == 0) {
    return kInlineOnlyBatchBytes;
  }
  return stats.payload_chunk_size;
}

void GroupCommit::Submit(std::span<const KeyValue> puts,
                         std::span<const size_t> command_ends, Waiter* waiter) {
  std::vector<Submission> group;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({puts, command_ends, waiter});
    if (sync_) {
      queued_.notify_one();  // the writer takes it
      return;
    }
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

std::vector<GroupCommit::Submission> GroupCommit::TakeGroup() {
  std::vector<Submission> group;
  size_t records = 0;
  size_t bytes = 0;
  while (!queue_.empty()) {
    const Submission& next = queue_.front();
    const size_t next_bytes = Bytes(next.puts);
    if (!group.empty() && (records + next.puts.size() > kMaxBatchRecords ||
                           bytes + next_bytes > max_batch_bytes_)) {
      break;
    }
    records += next.puts.size();
    bytes += next_bytes;
    group.push_back(next);
    queue_.pop_front();
  }
  return group;
}

GroupCommit::GroupCommit(DB* db, size_t max_batch_bytes, KeyspaceGate* gate,
                         WatchedKeys* watched_keys, bool sync)
    : db_(db),
      gate_(gate),
      watched_keys_(watched_keys),
      max_batch_bytes_(max_batch_bytes),
      sync_(sync) {
  if (sync_) writer_ = std::thread([this] { WriteLoop(); });
}

GroupCommit::~GroupCommit() {
  if (!writer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  queued_.notify_one();
  writer_.join();
}

void GroupCommit::Commit(const std::vector<Submission>& group) {
  WriteBatch batch;
  std::vector<std::span<const KeyValue>> puts;
  size_t commands = 0;
  bool awaits_sync = false;
  for (const Submission& s : group) {
    AddPuts(s.puts, &batch);
    puts.push_back(s.puts);
    commands += s.command_ends.size();
    awaits_sync |= s.command_ends.empty();
  }
  const Status status =
      batch.Count() > 0 ? Write(&batch, puts) : Status::OK();
  commands_.fetch_add(commands, std::memory_order_relaxed);
  const bool split = status.IsInvalidArgument() && commands > 1;
  // A write made before AwaitSync() was called needs a sync that began
  // after the call: the group's, if its batch was written (with sync),
  // else one of its own.
  Status synced = status;
  if (awaits_sync && (batch.Count() == 0 || split)) {
    syncs_.fetch_add(1, std::memory_order_relaxed);
    SharedGateLock gate(gate_);  // as every call to the pool (FLUSHDB)
    synced = db_->Sync();
  }
  for (const Submission& s : group) {
    if (s.command_ends.empty()) {  // AwaitSync
      s.waiter->Committed({synced});
      continue;
    }
    std::vector<Status> statuses;
    statuses.reserve(s.command_ends.size());
    size_t begin = 0;
    for (size_t end : s.command_ends) {
      if (split) {
        const std::span<const KeyValue> command =
            s.puts.subspan(begin, end - begin);
        WriteBatch alone;
        AddPuts(command, &alone);
        statuses.push_back(Write(&alone, {&command, 1}));
      } else {
        statuses.push_back(status);
      }
      begin = end;
    }
    s.waiter->Committed(std::move(statuses));
  }
}

void GroupCommit::AwaitSync(Waiter* waiter) {
  assert(sync_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({{}, {}, waiter});
  }
  queued_.notify_one();
}

void GroupCommit::WriteLoop() {
  for (;;) {
    std::vector<Submission> group;
    {
      std::unique_lock<std::mutex> lock(mu_);
      queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left to tell
      group = TakeGroup();
    }
    Commit(group);
  }
}

Status GroupCommit::Write(WriteBatch* batch,
                          std::span<const std::span<const KeyValue>> puts) {
  groups_.fetch_add(1, std::memory_order_relaxed);
  WriteOptions options;
  options.sync = sync_;
  if (sync_) syncs_.fetch_add(1, std::memory_order_relaxed);
  SharedGateLock gate(gate_);
  const Status status = db_->Write(options, batch);
  if (status.ok()) {
    for (std::span<const KeyValue> part : puts) {
      for (const KeyValue& kv : part) watched_keys_->Touch(kv.key);
    }
  }
  return status;
}

}  // namespace plush::server
