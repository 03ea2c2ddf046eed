// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Server: serves one open pool over the Redis protocol. Accepts clients
// (refusing those beyond --maxclients with Redis's error, and those that
// protected mode keeps out: protected_mode.h), runs the event
// loop (standalone Asio) on --threads threads, closes clients that stay
// idle too long, and stops on SIGINT/SIGTERM or SHUTDOWN: it stops
// accepting, closes every client, and returns from Run() once all are
// gone, so that the caller can close the pool.

#ifndef PLUSH_TOOLS_SERVER_SERVER_H_
#define PLUSH_TOOLS_SERVER_SERVER_H_

#include <cstdint>
#include <memory>

#include "plush/db.h"
#include "server_config.h"

namespace plush::server {

class Server {
 public:
  // `db` must outlive the server. config.threads must not be 0.
  Server(DB* db, const ServerConfig& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens. IOError naming the address if that fails (e.g. in
  // use), InvalidArgument for an address that is not one.
  Status Listen();
  // The port listened on (the one chosen by the system for --port 0).
  uint16_t port() const;
  // Serves until Shutdown(), SHUTDOWN or a signal; returns once every
  // client is closed and the threads are joined.
  void Run();
  // Thread-safe; may be called before Run().
  void Shutdown();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_SERVER_H_
