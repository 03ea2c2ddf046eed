// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// TransactionKeyspace: the keyspace a transaction (EXEC, and RENAME, which
// writes two keys) runs its commands against: an overlay of the pool that
// keeps the transaction's writes (the last one per key) and answers reads
// with them, so that each command sees the ones before it (SET k 1; INCR
// k; GET k answers OK, 2, "2"). Each write carries the key's expiry, which
// reads see too (SET k 1 PX 50; PTTL k answers OK, 50), and which expires
// the key in the overlay as in the pool. Commit() then writes them all as
// one WriteBatch (a put with its expiry: WriteBatch::PutWithExpiry) — all
// or none, across crashes too — and only then touches the written keys'
// watchers. After a FLUSHDB (Flush()) the pool is no longer read, and the
// batch goes into the empty pool that replaces it (FlushablePool::Empty):
// a crash leaves the keyspace before the transaction or after it.
//
// Use it with the keyspace gate held alone (keyspace_gate.h): no other
// client writes the pool between the reads it answers from the pool and
// the commit.
//
// Bounds: a put of a key over kMaxKeySize fails at once with the engine's
// error (that command fails alone, as it would outside a transaction).
// Writes beyond one batch (kMaxBatchBytes of keys and values, or
// kMaxBatchRecords keys) are not refused one by one — a command of two
// writes (RENAME) must not be left half made — but make Commit() fail,
// and the overlay stops holding values past kMaxBatchBytes, so that a
// transaction of SETRANGEs cannot make it hold more than that.

#ifndef PLUSH_TOOLS_SERVER_TRANSACTION_KEYSPACE_H_
#define PLUSH_TOOLS_SERVER_TRANSACTION_KEYSPACE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keyspace.h"
#include "plush/db.h"
#include "plush/options.h"
#include "watched_keys.h"

namespace plush::server {

class TransactionKeyspace final : public Keyspace {
 public:
  // `flushable`: `db` as a FlushablePool, or null (a Flush fails to
  // commit). `clock`: the pool's (Options::clock), which expires its keys.
  TransactionKeyspace(DB* db, FlushablePool* flushable,
                      WatchedKeys* watched_keys, const Clock& clock)
      : db_(db),
        flushable_(flushable),
        watched_keys_(watched_keys),
        clock_(clock) {}

  Status Get(std::string_view key, std::string* value) override;
  std::vector<Status> MultiGet(const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) override;
  Status GetExpiry(std::string_view key, uint64_t* expires_at_ms) override;
  // Runs `fn` once, on the value and expiry the transaction sees.
  Status UpdateWithExpiry(std::string_view key,
                          const DB::UpdateWithExpiryFunction& fn) override;
  void KeyWritten(std::string_view key) override;
  // Forgets the writes so far and reads no more from the pool: Commit()
  // then replaces the pool by an empty one holding the writes after it.
  Status Flush() override;
  // Puts every pair with its expiry, or (a key over its limit) none.
  Status Put(std::span<const KeyValue> pairs) override;

  // How many writes were made (a write of a key already written counts
  // again): a command made some if this grew while it ran.
  size_t writes() const { return writes_; }

  // Writes the transaction's writes as one WriteBatch (`sync`:
  // WriteOptions::sync), after a Flush() into the empty pool that replaces
  // the pool, and, if that succeeds, touches every key written (after a
  // Flush() whatever the outcome, as a failed one may have replaced the
  // pool). InvalidArgument without writing anything if they exceed one
  // batch.
  Status Commit(bool sync);

 private:
  // A value and when it expires (0: never).
  struct Version {
    std::string value;
    uint64_t expires_at_ms = 0;
  };

  // Whether `version` (nullopt: deleted) is there now, not expired.
  bool Live(const std::optional<Version>& version) const;
  // The key's version the transaction sees: *current nullopt if absent.
  Status Load(std::string_view key, std::optional<Version>* current);
  // Records `version` (nullopt: a deletion) as the key's latest write.
  void Record(std::string_view key, std::optional<Version> version);

  DB* const db_;
  FlushablePool* const flushable_;
  WatchedKeys* const watched_keys_;
  const Clock& clock_;
  // The latest write of each key the transaction wrote; nullopt: deleted.
  std::map<std::string, std::optional<Version>, std::less<>> latest_;
  std::set<std::string, std::less<>> touched_;
  size_t writes_ = 0;
  size_t bytes_ = 0;         // of the keys and values in latest_
  bool overflowed_ = false;  // bytes_ would exceed kMaxBatchBytes
  bool flushed_ = false;     // Flush() was called: the pool is not read
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_TRANSACTION_KEYSPACE_H_
