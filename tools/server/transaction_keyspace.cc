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

Status TransactionKeyspace::Get(std::string_view key, std::string* value) {
  auto it = latest_.find(key);
  if (it == latest_.end()) return db_->Get(ReadOptions(), key, value);
  if (!it->second) return Status::NotFound("");
  *value = *it->second;
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

Status TransactionKeyspace::Update(std::string_view key,
                                   const DB::UpdateFunction& fn) {
  std::string current;
  Status s = Get(key, &current);
  if (!s.ok() && !s.IsNotFound()) return s;
  std::string next;
  switch (fn(s.ok() ? &current : nullptr, &next)) {
    case DB::UpdateAction::kKeep:
      return Status::OK();
    case DB::UpdateAction::kPut:
      s = CheckSizes(key, next);
      if (s.ok()) Record(key, std::move(next));
      return s;
    case DB::UpdateAction::kDelete:
      Record(key, std::nullopt);
      return Status::OK();
  }
  return Status::OK();
}

void TransactionKeyspace::KeyWritten(std::string_view key) {
  touched_.emplace(key);
}

Status TransactionKeyspace::Put(std::span<const KeyValue> pairs) {
  for (const KeyValue& kv : pairs) {
    const Status s = CheckSizes(kv.key, kv.value);
    if (!s.ok()) return s;
  }
  for (const KeyValue& kv : pairs) {
    Record(kv.key, std::string(kv.value));
    KeyWritten(kv.key);
  }
  return Status::OK();
}

void TransactionKeyspace::Record(std::string_view key,
                                 std::optional<std::string> value) {
  ++writes_;
  if (overflowed_) return;  // Commit() fails: what is read no longer counts
  auto it = latest_.find(key);
  if (it == latest_.end()) {
    bytes_ += key.size();
    it = latest_.emplace(std::string(key), std::nullopt).first;
  } else if (it->second) {
    bytes_ -= it->second->size();
  }
  if (value) bytes_ += value->size();
  if (bytes_ > kMaxBatchBytes) {
    overflowed_ = true;
    latest_.clear();  // gives the memory back
    return;
  }
  it->second = std::move(value);
}

Status TransactionKeyspace::Commit(bool sync) {
  if (overflowed_) {
    return Status::InvalidArgument(
        "the transaction writes more than " + std::to_string(kMaxBatchBytes) +
        " bytes of keys and values, the limit of one batch");
  }
  WriteBatch batch;
  for (const auto& [key, value] : latest_) {
    if (value) {
      batch.Put(key, *value);
    } else {
      batch.Delete(key);
    }
  }
  WriteOptions options;
  options.sync = sync;
  if (batch.Count() > 0) {
    const Status s = db_->Write(options, &batch);
    if (!s.ok()) return s;
  }
  for (const std::string& key : touched_) watched_keys_->Touch(key);
  return Status::OK();
}

}  // namespace plush::server
