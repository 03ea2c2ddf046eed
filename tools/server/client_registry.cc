// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "client_registry.h"

#include <utility>

namespace plush::server {

void ClientRecord::CommandStarted(const std::string_view* command,
                                  std::string_view subcommand) {
  last_command_.store(
      std::chrono::steady_clock::now().time_since_epoch().count(),
      std::memory_order_relaxed);
  if (subcommand.empty() && !has_subcommand_) {
    command_.store(command, std::memory_order_relaxed);
    return;
  }
  MutexLock lock(&mu_);
  command_.store(command, std::memory_order_relaxed);
  subcommand_.assign(subcommand);
  has_subcommand_ = !subcommand.empty();
}

void ClientRecord::Update(std::string_view name, int64_t multi,
                          size_t watched, int protocol) {
  if (name == published_.name && multi == published_.multi &&
      watched == published_.watched && protocol == published_.protocol) {
    return;
  }
  published_ = {std::string(name), multi, watched, protocol};
  MutexLock lock(&mu_);
  state_ = published_;
}

ClientActivity ClientRecord::activity() const {
  ClientActivity activity;
  {
    MutexLock lock(&mu_);
    activity.state = state_;
    activity.subcommand = subcommand_;
    const std::string_view* command = command_.load(std::memory_order_relaxed);
    if (command != nullptr) activity.command = *command;
  }
  activity.last_command = std::chrono::steady_clock::time_point(
      std::chrono::steady_clock::duration(
          last_command_.load(std::memory_order_relaxed)));
  return activity;
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
