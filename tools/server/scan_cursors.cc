// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "scan_cursors.h"

namespace plush::server {

uint64_t ScanCursors::Add(std::string_view resume) {
  std::lock_guard<std::mutex> lock(mu_);
  if (order_.size() == kCapacity) {
    keys_.erase(order_.front());
    order_.pop_front();
  }
  const uint64_t cursor = next_++;
  keys_.emplace(cursor, resume);
  order_.push_back(cursor);
  return cursor;
}

std::optional<std::string> ScanCursors::Find(uint64_t cursor) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = keys_.find(cursor);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

}  // namespace plush::server
