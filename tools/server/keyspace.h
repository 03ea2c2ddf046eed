// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Keyspace: what the commands read and write keys through, so that one
// implementation of each command (SET, INCR, APPEND, DEL, RENAME...) runs
// both on its own and inside a transaction:
//   * PoolKeyspace (here): the pool itself. Each update is one
//     DB::UpdateWithExpiry, and each command's puts one DB::Write, atomic
//     under the keys' locks and durable on their own (with --sync-writes
//     once the event loop's next sync covers them: reply_sync.h); a
//     written key touches its watchers at once.
//   * TransactionKeyspace (transaction_keyspace.h): an overlay of the pool
//     that EXEC (and RENAME) run against, whose writes reach the pool as
//     one WriteBatch at the end.

#ifndef PLUSH_TOOLS_SERVER_KEYSPACE_H_
#define PLUSH_TOOLS_SERVER_KEYSPACE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flushable_pool.h"
#include "plush/db.h"
#include "watched_keys.h"

namespace plush::server {

// Update()'s expiry that keeps the key's own (0, as in WriteOptions).
inline constexpr uint64_t kKeepExpiry = 0;

// A put: the key's value, and when it expires (Unix ms; 0: never, which
// drops an expiry the key had, as Redis's SET does).
struct KeyValue {
  std::string_view key;
  std::string_view value;
  uint64_t expires_at_ms = 0;
};

class Keyspace {
 public:
  // The key's value: OK, NotFound, or the engine's error.
  virtual Status Get(std::string_view key, std::string* value) = 0;
  // One status per key, as DB::MultiGet.
  virtual std::vector<Status> MultiGet(const std::vector<std::string_view>& keys,
                                       std::vector<std::string>* values) = 0;
  // The key's expiry (Unix ms; 0: none), as DB::GetExpiry: OK, NotFound,
  // or the engine's error.
  virtual Status GetExpiry(std::string_view key, uint64_t* expires_at_ms) = 0;
  // Read-modify-write of one key and its expiry, as DB::UpdateWithExpiry
  // (`fn` may run more than once; only its last result counts): `fn` sees
  // the current expiry and leaves the new version's, so that a command
  // deciding on both (PERSIST, GETSET, EXPIRE NX) is one atomic step.
  virtual Status UpdateWithExpiry(std::string_view key,
                                  const DB::UpdateWithExpiryFunction& fn) = 0;
  // UpdateWithExpiry for the commands that decide on the value alone: a
  // value `fn` puts expires at `expires_at_ms`, or with kKeepExpiry when
  // the key's did (INCR keeps a TTL).
  Status Update(std::string_view key, uint64_t expires_at_ms,
                const DB::UpdateFunction& fn);
  // Puts every pair with its expiry (SET, MSET), all or none: one
  // WriteBatch. A later pair of a key wins.
  virtual Status Put(std::span<const KeyValue> pairs) = 0;
  // A command wrote `key`, changed or not (WATCH's meaning: watched_keys.h).
  // REQUIRES: the keyspace gate held.
  virtual void KeyWritten(std::string_view key) = 0;
  // Deletes every key (FLUSHDB): the pool replaced by an empty one
  // (FlushablePool::Empty), in a transaction when it commits, with the
  // writes made after it. REQUIRES: the keyspace gate held alone.
  virtual Status Flush() = 0;

 protected:
  ~Keyspace() = default;
};

// Replaces `pool` by an empty pool holding the writes of `first` (null:
// none); NotSupported if `pool` is null (a pool that is not a
// FlushablePool, as a test's).
Status EmptyPool(FlushablePool* pool, WriteBatch* first);

class PoolKeyspace final : public Keyspace {
 public:
  // `flushable`: `db` as a FlushablePool, or null (Flush fails).
  // `synced`: every write is synced before its reply (--sync-writes:
  // ReplySync), so it leaves its barrier to that sync
  // (WriteOptions::caller_syncs).
  PoolKeyspace(DB* db, FlushablePool* flushable, WatchedKeys* watched_keys,
               bool synced)
      : db_(db),
        flushable_(flushable),
        watched_keys_(watched_keys),
        synced_(synced) {}

  Status Get(std::string_view key, std::string* value) override;
  std::vector<Status> MultiGet(const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) override;
  Status GetExpiry(std::string_view key,
                   uint64_t* expires_at_ms) override;
  Status UpdateWithExpiry(std::string_view key,
                          const DB::UpdateWithExpiryFunction& fn) override;
  Status Put(std::span<const KeyValue> pairs) override;
  void KeyWritten(std::string_view key) override;
  Status Flush() override;

 private:
  DB* const db_;
  FlushablePool* const flushable_;
  WatchedKeys* const watched_keys_;
  const bool synced_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_KEYSPACE_H_
