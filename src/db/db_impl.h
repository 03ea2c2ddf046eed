// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DBImpl implements the public DB interface on the engine's layers: the
// pool (media, superblock, allocator), the leveled hash table, the
// recovery logs and the payload logs. Its own units do one job each:
//
//   write_path     listing 1: lock, migrate if full, log, insert
//   background_work  migrations and log recycling ahead of need
//   recovery       replaying the logs into the DRAM level (§5.4)
//   log_recycling  what the recovery logs need to recycle chunks
//   payload_gc     what payload compaction needs to relocate records
//   unit_reader    a unit's records, for ordered scans
//   range_rebalancer  moving key ranges between a range pool's units
//
// db_impl.cc itself holds the API: argument checks, reads, writes of whole
// records (inline, or through the payload logs), Checkpoint, Close.

#ifndef PLUSH_DB_DB_IMPL_H_
#define PLUSH_DB_DB_IMPL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "db/background_work.h"
#include "db/engine_seams.h"
#include "db/entry_rewriter.h"
#include "db/expiry_sweeper.h"
#include "db/log_recycling.h"
#include "db/payload_gc.h"
#include "db/range_rebalancer.h"
#include "db/unit_reader.h"
#include "db/unit_tails.h"
#include "db/write_path.h"
#include "log/recovery_log.h"
#include "payload/payload_logs.h"
#include "plush/db.h"
#include "pool/pool.h"
#include "table/leveled_table.h"
#include "util/sharded_counter.h"
#include "util/wall_clock.h"

namespace plush {

class DBImpl final : public DB {
 public:
  // DB::Open with `seams` in place of the engine's defaults.
  static Status Open(const Options& options, const EngineSeams& seams,
                     const std::string& path, std::unique_ptr<DB>* db);
  ~DBImpl() override;

  Status Put(const WriteOptions& options, std::string_view key,
             std::string_view value) override;
  Status Get(const ReadOptions& options, std::string_view key,
             std::string* value) override;
  Status Delete(const WriteOptions& options, std::string_view key) override;
  std::vector<Status> MultiGet(const ReadOptions& options,
                               const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) override;
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

  // For tests and tools inside the project.
  pool::Pool& pool() { return *pool_; }
  table::LeveledTable& table() { return *table_; }

 private:
  DBImpl(const Options& options, const EngineSeams& seams)
      : options_(options),
        seams_(seams),
        clock_(options.clock != nullptr ? options.clock
                                        : std::make_shared<WallClock>()) {}
  // Opens the layers on an opened pool, then recovers an existing pool.
  // Writes nothing to an existing pool.
  Status OpenLayers(bool created);
  // Runs `work` while writers, migrations and rotations wait (Backup,
  // Verify); ClosedError if the DB is closed.
  Status WithWritersStopped(const std::function<Status()>& work);
  // The key's placement (placement/placed.h: `version` is the range map's,
  // read before).
  Placement Place(std::string_view key, uint64_t version) const;
  // A record stored inline: an 8-byte key with an 8-byte value, or an
  // 8-byte key's tombstone.
  Status WriteInline(const WriteOptions& options, uint64_t key_word,
                     const table::Slot& slot);
  // Splits the unit of `hash` if its writer is to
  // (RangeRebalancer::WriterSplits), after a write of `key` to it.
  void SplitIfDue(uint64_t hash, std::string_view key, uint64_t written,
                  uint64_t entry_size);
  // SplitIfDue for each unit a write batch's records went to.
  void SplitUnitsIfDue(const std::vector<WritePath::Record>& records);
  // Tells the expiry sweep that a record expiring at `expires_at_ms` (0:
  // never) went to the DRAM entry of table hash `hash`.
  void NoteExpiry(uint64_t hash, uint64_t expires_at_ms);
  // A record stored in the payload logs: key and value out of place (with
  // options.expires_at_ms), or a tombstone for a key that is not 8 bytes
  // long.
  Status WritePayload(const WriteOptions& options, std::string_view key,
                      std::string_view value, bool tombstone);
  Status CheckpointRange(uint64_t first, uint64_t end);
  // Get, and the value's expiry (if `expires_at_ms` is not null).
  Status Lookup(std::string_view key, std::string* value,
                uint64_t* expires_at_ms);
  // Reads the key's newest value and its expiry (*present false if
  // absent, deleted or expired).
  Status ReadCurrent(const table::LookupKey& lookup, std::string* value,
                     uint64_t* expires_at_ms, bool* present) const;
  // The read-modify-write of Update, Increment and Expire:
  // `decide(current, &next, &expires_at_ms, &action)` runs under the key's
  // lock; its error ends the update. *expires_at_ms starts as the new
  // version's expiry: options.expires_at_ms if set, else the key's.
  using Decide = std::function<Status(const std::string* current,
                                      std::string* next,
                                      uint64_t* expires_at_ms,
                                      UpdateAction* action)>;
  Status ReadModifyWrite(const WriteOptions& options, std::string_view key,
                         const Decide& decide);
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  // OK, or why writes are refused: a closed DB, a failed sync (sticky
  // until the pool is opened again; media.h), or a write batch that could
  // not be applied whole (WritePath::Halted).
  Status CheckWritable() const;
  // CheckWritable, and whether a write with WriteOptions::sync can be
  // made as `options` say.
  Status CheckSyncWrite(const WriteOptions& options) const;
  // Every write (Put, Delete, Write, Update, Increment): checks it may be
  // made, makes it (`apply`), and returns; with WriteOptions::sync, once
  // a sync that began after the write covered it (shared with the other
  // sync writers: Media::SyncAnnounced).
  template <typename Apply>
  Status Acknowledged(const WriteOptions& options, Apply apply);
  // Write()'s batch, checked and applied.
  Status WriteBatchNow(const WriteOptions& options, WriteBatch* batch);

  const Options options_;
  // Before the layers: they may use it until they are destroyed.
  const EngineSeams seams_;
  // What expiry is judged by (Options::clock, or the wall clock).
  const std::shared_ptr<const Clock> clock_;
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<table::LeveledTable> table_;
  std::unique_ptr<BackgroundWork> background_;
  std::unique_ptr<LogRecycling> log_recycling_;
  std::unique_ptr<EntryRewriter> entry_rewriter_;
  std::unique_ptr<log::RecoveryLogs> logs_;
  std::unique_ptr<UnitTails> unit_tails_;  // range pools
  std::unique_ptr<WritePath> write_path_;
  std::unique_ptr<PayloadGc> payload_gc_;
  std::unique_ptr<ExpirySweeper> expiry_sweeper_;
  std::unique_ptr<payload::PayloadLogs> payload_;
  std::unique_ptr<UnitReader> unit_reader_;
  std::unique_ptr<RangeRebalancer> rebalancer_;
  // Units are split as they become heavy (Options::range_rebalance).
  bool auto_rebalance_ = false;
  bool opened_ = false;  // Open() succeeded: the pool is ours to write
  std::atomic<bool> closed_{false};
  ShardedCounter user_bytes_;
  double recovery_seconds_ = 0;
  uint64_t recovered_entries_ = 0;
};

}  // namespace plush

#endif  // PLUSH_DB_DB_IMPL_H_
