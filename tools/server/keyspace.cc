// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "keyspace.h"

namespace plush::server {

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

Status PoolKeyspace::Update(std::string_view key, uint64_t expires_at_ms,
                            const DB::UpdateFunction& fn) {
  WriteOptions options;
  options.expires_at_ms = expires_at_ms;
  return db_->Update(options, key, fn);
}

Status PoolKeyspace::Expire(std::string_view key, uint64_t expires_at_ms) {
  return db_->Expire(WriteOptions(), key, expires_at_ms);
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
