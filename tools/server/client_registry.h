// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ClientRegistry: the open connections, for CLIENT LIST, INFO and KILL and
// for the server (shutdown, the idle sweep). Each connection registers a
// ClientRecord when it starts and removes it when it is destroyed.
//
// A record's activity (name, last command, MULTI, WATCH...) is written by
// its connection's event loop around each command and read by any
// client's CLIENT LIST: no connection ever waits for another's, and a
// command that changes nothing CLIENT LIST shows but the command and the
// time costs two atomic stores and a clock read (ClientRecord).
//
// Closing another client (CLIENT KILL) goes through its ClientHandle,
// whose Close() hands the work to that client's own event loop: no socket
// is used by a thread other than its loop's.

#ifndef PLUSH_TOOLS_SERVER_CLIENT_REGISTRY_H_
#define PLUSH_TOOLS_SERVER_CLIENT_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/mutex.h"

namespace plush::server {

// A connection as the server may act on it from any thread (Connection).
class ClientHandle {
 public:
  // Closes the connection on its own event loop, soon.
  virtual void Close() = 0;
  // Closes it if it made no progress for `timeout` (the idle sweep).
  virtual void CloseIfIdle(std::chrono::steady_clock::duration timeout) = 0;

 protected:
  ~ClientHandle() = default;
};

// What a session is, as CLIENT LIST shows it.
struct ClientState {
  std::string name;    // CLIENT SETNAME
  int64_t multi = -1;  // commands queued since MULTI; -1 outside MULTI
  size_t watched = 0;  // keys it WATCHes
  int protocol = 2;    // RESP2 or RESP3
};

// What a client did last, as CLIENT LIST shows it.
struct ClientActivity {
  ClientState state;
  std::string_view command;  // the last command's name; empty before one
  std::string subcommand;    // of CLIENT, CONFIG, COMMAND; lower case
  std::chrono::steady_clock::time_point last_command;
};

// One connection's entry. CommandStarted() and Update() are called by the
// connection's own thread only, once per command each, and cost a few
// atomic stores unless something CLIENT LIST shows changed (a name, MULTI,
// WATCH, a subcommand): the mutex is for the readers' sake, and taken
// only then.
class ClientRecord {
 public:
  ClientRecord(uint64_t client_id, std::string client_addr,
               std::string local_addr, int socket_fd)
      : id(client_id),
        addr(std::move(client_addr)),
        laddr(std::move(local_addr)),
        fd(socket_fd) {}

  const uint64_t id;
  const std::string addr;   // the client's ip:port
  const std::string laddr;  // the server's ip:port it connected to
  const int fd;
  const std::chrono::steady_clock::time_point created =
      std::chrono::steady_clock::now();

  // A command starts, now: `command` is the table's name (static storage).
  void CommandStarted(const std::string_view* command,
                      std::string_view subcommand) EXCLUDES(mu_);
  // The session after a command (ClientState's fields; the name is copied
  // only when it changed).
  void Update(std::string_view name, int64_t multi, size_t watched,
              int protocol) EXCLUDES(mu_);
  ClientActivity activity() const EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  // Stored under mu_ while a subcommand goes with it (so that a reader
  // sees the two together), else without.
  std::atomic<const std::string_view*> command_{nullptr};
  std::atomic<std::chrono::steady_clock::rep> last_command_{0};
  std::string subcommand_ GUARDED_BY(mu_);
  ClientState state_ GUARDED_BY(mu_);
  // The owner's own copies, read without the mutex: what it published.
  bool has_subcommand_ = false;
  ClientState published_;
};

class ClientRegistry {
 public:
  struct Client {
    std::shared_ptr<ClientRecord> record;
    std::shared_ptr<ClientHandle> handle;  // the connection, kept alive
  };

  void Add(std::shared_ptr<ClientRecord> record,
           std::weak_ptr<ClientHandle> handle) EXCLUDES(mu_);
  void Remove(uint64_t id) EXCLUDES(mu_);
  // Every client whose connection is still alive, by id.
  std::vector<Client> List() EXCLUDES(mu_);

 private:
  struct Entry {
    std::shared_ptr<ClientRecord> record;
    std::weak_ptr<ClientHandle> handle;
  };
  Mutex mu_;
  std::map<uint64_t, Entry> clients_ GUARDED_BY(mu_);
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_CLIENT_REGISTRY_H_
