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

Status PoolKeyspace::Update(std::string_view key,
                            const DB::UpdateFunction& fn) {
  return db_->Update(WriteOptions(), key, fn);
}

void PoolKeyspace::KeyWritten(std::string_view key) {
  watched_keys_->Touch(key);
}

}  // namespace plush::server
