// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "watched_keys.h"

#include <algorithm>

namespace plush::server {

bool WatchedKeys::Watch(uint64_t client, std::string_view key) {
  MutexLock lock(&mu_);
  auto it = watchers_.find(key);
  if (it == watchers_.end()) {
    it = watchers_.emplace(std::string(key), std::vector<uint64_t>()).first;
    watched_keys_.store(watchers_.size(), std::memory_order_relaxed);
  } else if (std::find(it->second.begin(), it->second.end(), client) !=
             it->second.end()) {
    return false;
  }
  it->second.push_back(client);
  return true;
}

void WatchedKeys::Unwatch(uint64_t client,
                          const std::vector<std::string>& keys) {
  MutexLock lock(&mu_);
  touched_.erase(client);
  for (const std::string& key : keys) {
    auto it = watchers_.find(key);
    if (it == watchers_.end()) continue;
    std::erase(it->second, client);
    if (it->second.empty()) watchers_.erase(it);
  }
  watched_keys_.store(watchers_.size(), std::memory_order_relaxed);
}

void WatchedKeys::Touch(std::string_view key) {
  if (watched_keys_.load(std::memory_order_relaxed) == 0) return;
  MutexLock lock(&mu_);
  auto it = watchers_.find(key);
  if (it == watchers_.end()) return;
  touched_.insert(it->second.begin(), it->second.end());
}

bool WatchedKeys::Touched(uint64_t client) {
  MutexLock lock(&mu_);
  return touched_.contains(client);
}

std::vector<std::string> WatchedKeys::Keys() {
  MutexLock lock(&mu_);
  std::vector<std::string> keys;
  keys.reserve(watchers_.size());
  for (const auto& [key, clients] : watchers_) keys.push_back(key);
  return keys;
}

}  // namespace plush::server
