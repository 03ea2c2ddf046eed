// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ServerContext: the state that the commands of every connection share:
// the pool, the group commit, the configuration, the registry of clients
// and the counters that INFO reports. Session: what the commands know about one connection.
// Transactions: the commands a session queues between MULTI and EXEC run
// with the keyspace gate held alone (keyspace_gate.h), and the keys it
// WATCHes are kept in watched_keys.
// Every call to the pool is made with the keyspace gate held, shared at
// least: FLUSHDB replaces the pool's DB with it held alone
// (flushable_pool.h).

#ifndef PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_
#define PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client_registry.h"
#include "flushable_pool.h"
#include "keyspace.h"
#include "keyspace_gate.h"
#include "plush/db.h"
#include "plush/options.h"
#include "reply_sync.h"
#include "scan_cursors.h"
#include "server_config.h"
#include "util/wall_clock.h"
#include "watched_keys.h"

namespace plush::server {

// The most key and value bytes one request may write, so the most one
// WriteBatch of the server holds: one payload chunk of `db`
// (Stats::payload_chunk_size; 1 MiB by default, 128 KiB with the small
// profile), or for a pool that stores no payload (8-byte keys and values
// only) 1 MiB. (Plush itself takes batches of up to kMaxBatchBytes.)
size_t WriteBatchLimit(DB* db);

// Whether `pool` is range-partitioned (ordered).
bool IsRangePool(DB* pool);

// How many partitions an iterator over `pool` visits (Iterator::
// SeekToPartition): one per DRAM directory entry, in hash and range pools
// alike. 1 if the pool does not say.
uint64_t PartitionCount(DB* pool);

struct ServerContext {
  // `pool_clock`: the pool's Options::clock (null: the wall clock, as
  // the engine's default).
  ServerContext(DB* pool, ServerConfig server_config,
                std::shared_ptr<const Clock> pool_clock = nullptr)
      : db(pool),
        flushable(dynamic_cast<FlushablePool*>(pool)),
        config(std::move(server_config)),
        clock(pool_clock != nullptr ? std::move(pool_clock)
                                    : std::make_shared<WallClock>()),
        max_write_bytes(WriteBatchLimit(pool)),
        ordered(IsRangePool(pool)),
        partitions(PartitionCount(pool)),
        port(config.port) {}

  DB* const db;
  // The pool, if it can be emptied at once (plush-server's): FLUSHDB and
  // FLUSHALL fail where it is null (a test's plain DB).
  FlushablePool* const flushable;
  const ServerConfig config;
  // What expires the pool's keys: the time TTL counts from, and that
  // EXPIRE and SET EX add to.
  const std::shared_ptr<const Clock> clock;
  // The most argument bytes of one request (WriteBatchLimit).
  const size_t max_write_bytes;
  // A range pool: SCAN cursors name keys (scan_cursors.h).
  const bool ordered;
  const uint64_t partitions;  // PartitionCount
  ScanCursors scan_cursors;
  KeyspaceGate gate;
  WatchedKeys watched_keys;
  // The commands' way to the pool.
  PoolKeyspace keyspace{db, flushable, &watched_keys, config.sync_writes};
  ClientRegistry clients;    // the open connections (CLIENT, shutdown)
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
  // --sync-writes: the syncs of replies, and the writes they covered
  // (reply_sync.h).
  std::atomic<uint64_t> reply_syncs{0};
  SyncedWrites synced_writes;
  std::atomic<uint64_t> next_client_id{1};
  // Unix time of the last successful SAVE, or of the start before the
  // first (as Redis counts from when it loaded its data).
  std::atomic<int64_t> last_save_time{std::time(nullptr)};
};

// The commands a session queued since MULTI, copied out of the request
// buffer, and whether one was refused (EXEC then fails).
struct Transaction {
  std::vector<std::vector<std::string>> commands;
  size_t bytes = 0;  // TransactionBytes() of what is queued
  bool refused_command = false;
};

struct Session {
  uint64_t id = 0;
  bool authenticated = false;
  std::string name;  // CLIENT SETNAME
  // The connection's entry in server.clients, which Execute() keeps up to
  // date. Never null when a command runs (CLIENT INFO reads it).
  std::shared_ptr<ClientRecord> client;
  // Close the connection once the replies so far are sent (QUIT).
  bool close_after_reply = false;

  // Between MULTI and EXEC (or DISCARD).
  std::optional<Transaction> transaction;
  // The keys it WATCHes (in server.watched_keys too), until EXEC, DISCARD,
  // UNWATCH or RESET.
  std::vector<std::string> watched;
  size_t watched_bytes = 0;  // TransactionBytes() of the keys
  // The earliest expiry (Unix ms) that a watched key had when it was
  // watched, 0 if none had one: once it is past, EXEC fails, as in Redis
  // (6.0.9 and later) when a watched key expires before EXEC.
  uint64_t watched_expiry = 0;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_SERVER_CONTEXT_H_
