// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "client_registry.h"

#include <utility>

namespace plush::server {

void ClientRecord::CommandStarted(std::string_view command,
                                  std::string_view subcommand) {
  const auto now = std::chrono::steady_clock::now();
  MutexLock lock(&mu_);
  activity_.command = command;
  activity_.subcommand.assign(subcommand);
  activity_.last_command = now;
}

void ClientRecord::Update(std::string_view name, int64_t multi,
                          size_t watched, int protocol) {
  MutexLock lock(&mu_);
  if (activity_.name != name) activity_.name.assign(name);
  activity_.multi = multi;
  activity_.watched = watched;
  activity_.protocol = protocol;
}

ClientActivity ClientRecord::activity() const {
  MutexLock lock(&mu_);
  return activity_;
}

void ClientRegistry::Add(std::shared_ptr<ClientRecord> record,
                         std::weak_ptr<ClientHandle> handle) {
  MutexLock lock(&mu_);
  const uint64_t id = record->id;
  clients_[id] = Entry{std::move(record), std::move(handle)};
}

void ClientRegistry::Remove(uint64_t id) {
  MutexLock lock(&mu_);
  clients_.erase(id);
}

std::vector<ClientRegistry::Client> ClientRegistry::List() {
  std::vector<Client> alive;
  MutexLock lock(&mu_);
  for (const auto& [id, entry] : clients_) {
    if (auto handle = entry.handle.lock()) {
      alive.push_back({entry.record, std::move(handle)});
    }
  }
  return alive;
}

}  // namespace plush::server
