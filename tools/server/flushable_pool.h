// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// FlushablePool: the pool plush-server serves, as a DB that FLUSHDB and
// FLUSHALL can empty at once. Deleting every key would take time in
// proportion to the keys, and a crash halfway would leave some of them;
// Empty() instead creates a new empty pool with the same creation
// parameters beside the pool file, makes it durable and renames it over
// the pool file: a crash (kill -9, power loss) at any moment leaves either
// the old pool or the empty one at the path. The server's figures that
// come from the creation parameters (ordered, partitions, the largest
// batch: server_context.h) stay true across it.
//
// Every other call is forwarded to the pool open now.
//
// Thread safety: as DB's, but Empty() must not run at the same time as
// any other call (it closes the pool they use): the server makes every
// call to its pool with the keyspace gate held (shared), and Empty() with
// it held alone.

#ifndef PLUSH_TOOLS_SERVER_FLUSHABLE_POOL_H_
#define PLUSH_TOOLS_SERVER_FLUSHABLE_POOL_H_

#include <memory>
#include <string>

#include "plush/db.h"

namespace plush::server {

class FlushablePool final : public DB {
 public:
  // `db`: the pool that `options` opened at `path`.
  FlushablePool(std::unique_ptr<DB> db, std::string path, Options options);

  // Replaces the pool by an empty one (see above) that holds the writes of
  // `first` if not null (a transaction's after its FLUSHDB). Returns OK; the
  // engine's errors of creating the new pool (NoSpace...), which leave the
  // old one served and a fresh attempt possible; NotSupported for a pool
  // that is not a regular file (a rename cannot replace it); IOError if
  // the rename fails (the old pool is served) or the directory cannot be
  // synced (the empty pool is served, but a power loss may bring the old
  // one back). If the new pool cannot be opened after the rename, every
  // later call fails with InvalidArgument (closed), as does a restart's
  // open until the cause is fixed. Reopening resets the pool's counters
  // (Stats: cumulative since Open).
  // The new pool is made as "<pool file>.flushing": a file of that name
  // is one that an Empty() cut short (kill -9) left, which the next
  // replaces.
  Status Empty(WriteBatch* first);

  Status Put(const WriteOptions& options, std::string_view key,
             std::string_view value) override;
  Status Get(const ReadOptions& options, std::string_view key,
             std::string* value) override;
  std::vector<Status> MultiGet(const ReadOptions& options,
                               const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) override;
  Status Delete(const WriteOptions& options, std::string_view key) override;
  Status Write(const WriteOptions& options, WriteBatch* batch) override;
  Status Update(const WriteOptions& options, std::string_view key,
                const UpdateFunction& fn) override;
  Status UpdateWithExpiry(const WriteOptions& options, std::string_view key,
                          const UpdateWithExpiryFunction& fn) override;
  Status Increment(const WriteOptions& options, std::string_view key,
                   int64_t delta, int64_t* result) override;
  Status Expire(const WriteOptions& options, std::string_view key,
                uint64_t expires_at_ms) override;
  Status GetExpiry(const ReadOptions& options, std::string_view key,
                   uint64_t* expires_at_ms) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  Status Rebalance(uint64_t* moves) override;
  Status Checkpoint(unsigned threads) override;
  Status Sync() override;
  Status Verify(std::string* report) override;
  Status Backup(const std::string& path) override;
  Status GetStats(Stats* stats) override;
  Status GetProperty(std::string_view name, std::string* value) override;
  Status Close() override;

 private:
  const std::string path_;
  const Options options_;
  std::unique_ptr<DB> db_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_FLUSHABLE_POOL_H_
