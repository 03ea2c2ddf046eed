// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "keyspace.h"

namespace plush::server {

Status Keyspace::Update(std::string_view key, uint64_t expires_at_ms,
                        const DB::UpdateFunction& fn) {
  return UpdateWithExpiry(
      key, [&](const std::string* current, uint64_t* expiry,
               std::string* next) {
        if (expires_at_ms != kKeepExpiry) *expiry = expires_at_ms;
        return fn(current, next);
      });
}

Status PoolKeyspace::Get(std::string_view key, std::string* value) {
  return db_->Get(ReadOptions(), key, value);
}

std::vector<Status> PoolKeyspace::MultiGet(
    const std::vector<std::string_view>& keys,
    std::vector<std::string>* values) {
  return db_->MultiGet(ReadOptions(), keys, values);
}

Status PoolKeyspace::GetExpiry(std::string_view key, uint64_t* expires_at_ms) {
  return db_->GetExpiry(ReadOptions(), key, expires_at_ms);
}

Status PoolKeyspace::UpdateWithExpiry(
    std::string_view key, const DB::UpdateWithExpiryFunction& fn) {
  WriteOptions options;
  options.caller_syncs = synced_;
  return db_->UpdateWithExpiry(options, key, fn);
}

Status PoolKeyspace::Put(std::span<const KeyValue> pairs) {
  WriteBatch batch;
  for (const KeyValue& kv : pairs) {
    batch.PutWithExpiry(kv.key, kv.value, kv.expires_at_ms);
  }
  WriteOptions options;
  options.caller_syncs = synced_;
  const Status s = db_->Write(options, &batch);
  if (s.ok()) {
    for (const KeyValue& kv : pairs) KeyWritten(kv.key);
  }
  return s;
}

void PoolKeyspace::KeyWritten(std::string_view key) {
  watched_keys_->Touch(key);
}

Status PoolKeyspace::Flush() { return EmptyPool(flushable_, nullptr); }

Status EmptyPool(FlushablePool* pool, WriteBatch* first) {
  if (pool == nullptr) {
    return Status::NotSupported("this server's pool cannot be replaced");
  }
  return pool->Empty(first);
}

}  // namespace plush::server
