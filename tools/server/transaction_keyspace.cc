// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "transaction_keyspace.h"

#include "plush/limits.h"

namespace plush::server {
namespace {

// The engine's own errors (DB::Put's), so that a command answers inside a
// transaction what it answers outside.
Status CheckSizes(std::string_view key, std::string_view value) {
  if (key.size() > kMaxKeySize) {
    return Status::InvalidArgument("key of " + std::to_string(key.size()) +
                                   " bytes exceeds the limit of " +
                                   std::to_string(kMaxKeySize) + " bytes");
  }
  if (value.size() > kMaxValueSize) {
    return Status::InvalidArgument(
        "value of " + std::to_string(value.size()) +
        " bytes exceeds the limit of " + std::to_string(kMaxValueSize) +
        " bytes");
  }
  return Status::OK();
}

}  // namespace

bool TransactionKeyspace::Live(const std::optional<Version>& version) const {
  return version && (version->expires_at_ms == 0 ||
                     clock_.NowMs() <= version->expires_at_ms);
}

Status TransactionKeyspace::Load(std::string_view key,
                                 std::optional<Version>* current) {
  current->reset();
  auto it = latest_.find(key);
  if (it != latest_.end()) {
    if (Live(it->second)) *current = it->second;
    return Status::OK();
  }
  if (flushed_) return Status::OK();  // deleted by the flush
  // The expiry first: if the key expires between the two reads, the value
  // read is NotFound (nothing else writes: the gate is held alone).
  Version version;
  Status s = db_->GetExpiry(ReadOptions(), key, &version.expires_at_ms);
  if (s.ok()) s = db_->Get(ReadOptions(), key, &version.value);
  if (s.IsNotFound()) return Status::OK();
  if (s.ok()) *current = std::move(version);
  return s;
}

Status TransactionKeyspace::Get(std::string_view key, std::string* value) {
  auto it = latest_.find(key);
  if (it == latest_.end()) {
    return flushed_ ? Status::NotFound("")
                    : db_->Get(ReadOptions(), key, value);
  }
  if (!Live(it->second)) return Status::NotFound("");
  *value = it->second->value;
  return Status::OK();
}

std::vector<Status> TransactionKeyspace::MultiGet(
    const std::vector<std::string_view>& keys,
    std::vector<std::string>* values) {
  values->assign(keys.size(), std::string());
  std::vector<Status> statuses;
  statuses.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    statuses.push_back(Get(keys[i], &(*values)[i]));
  }
  return statuses;
}

Status TransactionKeyspace::GetExpiry(std::string_view key,
                                      uint64_t* expires_at_ms) {
  auto it = latest_.find(key);
  if (it == latest_.end()) {
    return flushed_ ? Status::NotFound("")
                    : db_->GetExpiry(ReadOptions(), key, expires_at_ms);
  }
  if (!Live(it->second)) return Status::NotFound("");
  *expires_at_ms = it->second->expires_at_ms;
  return Status::OK();
}

Status TransactionKeyspace::UpdateWithExpiry(
    std::string_view key, const DB::UpdateWithExpiryFunction& fn) {
  std::optional<Version> current;
  Status s = Load(key, &current);
  if (!s.ok()) return s;
  Version next;
  next.expires_at_ms = current ? current->expires_at_ms : 0;
  switch (fn(current ? &current->value : nullptr, &next.expires_at_ms,
             &next.value)) {
    case DB::UpdateAction::kKeep:
      return Status::OK();
    case DB::UpdateAction::kPut:
      s = CheckSizes(key, next.value);
      if (!s.ok()) return s;
      Record(key, std::move(next));
      return Status::OK();
    case DB::UpdateAction::kDelete:
      Record(key, std::nullopt);
      return Status::OK();
  }
  return Status::OK();
}

void TransactionKeyspace::KeyWritten(std::string_view key) {
  touched_.emplace(key);
}

Status TransactionKeyspace::Flush() {
  ++writes_;
  flushed_ = true;
  latest_.clear();  // what the flush deletes is not written
  bytes_ = 0;
  overflowed_ = false;
  return Status::OK();
}

Status TransactionKeyspace::Put(std::span<const KeyValue> pairs) {
  for (const KeyValue& kv : pairs) {
    const Status s = CheckSizes(kv.key, kv.value);
    if (!s.ok()) return s;
  }
  for (const KeyValue& kv : pairs) {
    Record(kv.key, Version{std::string(kv.value), kv.expires_at_ms});
    KeyWritten(kv.key);
  }
  return Status::OK();
}

void TransactionKeyspace::Record(std::string_view key,
                                 std::optional<Version> version) {
  ++writes_;
  if (overflowed_) return;  // Commit() fails: what is read no longer counts
  auto it = latest_.find(key);
  if (it == latest_.end()) {
    bytes_ += key.size();
    it = latest_.emplace(std::string(key), std::nullopt).first;
  } else if (it->second) {
    bytes_ -= it->second->value.size();
  }
  if (version) bytes_ += version->value.size();
  if (bytes_ > kMaxBatchBytes) {
    overflowed_ = true;
    latest_.clear();  // gives the memory back
    return;
  }
  it->second = std::move(version);
}

Status TransactionKeyspace::Commit(bool sync) {
  if (overflowed_) {
    return Status::InvalidArgument(
        "the transaction writes more than " + std::to_string(kMaxBatchBytes) +
        " bytes of keys and values, the limit of one batch");
  }
  WriteBatch batch;
  for (const auto& [key, version] : latest_) {
    if (version) {
      batch.PutWithExpiry(key, version->value, version->expires_at_ms);
    } else {
      batch.Delete(key);
    }
  }
  WriteOptions options;
  options.sync = sync;
  Status s;
  if (flushed_) {
    s = EmptyPool(flushable_, &batch);  // durable, with or without sync
  } else if (batch.Count() > 0) {
    s = db_->Write(options, &batch);
  }
  if (!s.ok() && !flushed_) return s;
  for (const std::string& key : touched_) watched_keys_->Touch(key);
  return s;
}

}  // namespace plush::server
