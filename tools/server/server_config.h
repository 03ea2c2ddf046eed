// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What plush-server is told on its command line about serving (the pool's
// own options are the CLI's: see main.cc).

#ifndef PLUSH_TOOLS_SERVER_SERVER_CONFIG_H_
#define PLUSH_TOOLS_SERVER_SERVER_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>

namespace plush::server {

struct ServerConfig {
  std::string bind = "127.0.0.1";  // loopback only unless told otherwise
  uint16_t port = 6380;            // beside a Redis on 6379
  unsigned threads = 0;            // event-loop threads; 0: one per core
  uint32_t maxclients = 10000;     // Redis's default
  // Connections that make no progress (no bytes in, none out) for this
  // long are closed; 0 never closes them.
  uint32_t idle_timeout_seconds = 300;
  // Clients must AUTH with this first, if set.
  std::optional<std::string> password;
  // Without a password, serve only clients on the loopback interface
  // (protected_mode.h).
  bool protected_mode = true;
  // Answer a write only once a sync made it survive power loss: what the
  // file back end otherwise promises for process crashes only (group
  // commits written with WriteOptions::sync, one msync each, as Redis's
  // `appendfsync always` fsyncs once per event-loop pass). The pmem back
  // end gives it without.
  bool sync_writes = false;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_SERVER_CONFIG_H_
