// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ServerContext: the state that the commands of every connection share:
// the pool, the group commit, the configuration and the counters that
// INFO reports. Session: what the commands know about one connection.

#ifndef PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_
#define PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <string>

#include "group_commit.h"
#include "plush/db.h"
#include "scan_cursors.h"
#include "server_config.h"

namespace plush::server {

// Whether `pool` is range-partitioned (ordered).
bool IsRangePool(DB* pool);

// How many partitions an iterator over `pool` visits (Iterator::
// SeekToPartition): one per DRAM directory entry, in hash and range pools
// alike. 1 if the pool does not say.
uint64_t PartitionCount(DB* pool);

struct ServerContext {
  ServerContext(DB* pool, ServerConfig server_config)
      : db(pool),
        config(std::move(server_config)),
        max_write_bytes(WriteBatchLimit(pool)),
        ordered(IsRangePool(pool)),
        partitions(PartitionCount(pool)),
        group_commit(pool, max_write_bytes, config.sync_writes),
        port(config.port) {}

  DB* const db;
  const ServerConfig config;
  // The most argument bytes of one request, and of the puts committed in
  // one batch (group_commit.h).
  const size_t max_write_bytes;
  // A range pool: SCAN cursors name keys (scan_cursors.h).
  const bool ordered;
  const uint64_t partitions;  // PartitionCount
  ScanCursors scan_cursors;
  GroupCommit group_commit;
  const std::chrono::steady_clock::time_point started =
      std::chrono::steady_clock::now();
  // Asks the server to stop (SHUTDOWN); set by the server. Thread-safe.
  std::function<void()> request_shutdown;
  // The port listened on: config.port until the server has bound its
  // socket, then the one bound (the system's choice for --port 0).
  std::atomic<uint16_t> port;

  std::atomic<uint64_t> connected_clients{0};
  std::atomic<uint64_t> total_connections{0};
  std::atomic<uint64_t> rejected_connections{0};  // over --maxclients
  std::atomic<uint64_t> commands_processed{0};
  std::atomic<uint64_t> next_client_id{1};
  // Unix time of the last successful SAVE, or of the start before the
  // first (as Redis counts from when it loaded its data).
  std::atomic<int64_t> last_save_time{std::time(nullptr)};
};

struct Session {
  uint64_t id = 0;
  bool authenticated = false;
  std::string name;  // CLIENT SETNAME
  // Close the connection once the replies so far are sent (QUIT).
  bool close_after_reply = false;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_
