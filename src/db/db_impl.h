// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DBImpl ties the layers together: the pool (media, superblock, allocator),
// the leveled hash table and the recovery logs. It implements the public
// DB interface, the write path of listing 1 and recovery (§5.4).

#ifndef PLUSH_DB_DB_IMPL_H_
#define PLUSH_DB_DB_IMPL_H_

#include <atomic>
#include <memory>
#include <string>

#include "db/range_iterator.h"
#include "log/recovery_log.h"
#include "media/internal_options.h"
#include "payload/payload_logs.h"
#include "plush/db.h"
#include "pool/pool.h"
#include "table/leveled_table.h"
#include "util/sharded_counter.h"

namespace plush {

class DBImpl final : public DB,
                     private log::LogHost,
                     private payload::PayloadHost,
                     private ScanSource {
 public:
  static Status Open(const Options& options, const InternalOptions& internal,
                     const std::string& path, std::unique_ptr<DB>* db);
  ~DBImpl() override;

  Status Put(const WriteOptions& options, std::string_view key,
             std::string_view value) override;
  Status Get(const ReadOptions& options, std::string_view key,
             std::string* value) override;
  Status Delete(const WriteOptions& options, std::string_view key) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  Status Checkpoint(unsigned threads) override;
  Status Sync() override;
  Status Verify(std::string* report) override;
  Status GetStats(Stats* stats) override;
  Status Close() override;

  // For tests and tools inside the project.
  pool::Pool& pool() { return *pool_; }
  table::LeveledTable& table() { return *table_; }

 private:
  explicit DBImpl(const Options& options);
  Status Recover();
  // The write path of listing 1 for one slot. `prepare` runs under the
  // DRAM entry's lock, before the record is logged: it fills in the slot,
  // or sets *skip to write nothing.
  template <typename Prepare>
  Status Write(const WriteOptions& options, uint64_t hash, Prepare prepare);
  Status WriteSlot(const WriteOptions& options, uint64_t hash,
                   const table::Slot& slot);
  // A record stored in the payload logs: key and value out of place, or a
  // tombstone for a key that is not 8 bytes long.
  Status WritePayload(const WriteOptions& options, std::string_view key,
                      std::string_view value, bool tombstone);
  Status CheckpointRange(uint64_t first, uint64_t end);
  uint64_t RecordHash(const log::LogRecord& r) const {
    return table_->HashOf(r.key, r.indirect);
  }
  // True iff `ref` is the version of the key a crash would leave while
  // newer, unlogged versions shadow it (payload compaction must keep it).
  bool IsNewestDurable(const table::LookupKey& lookup, uint64_t ref);
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  // OK, or why writes are refused: a closed DB, or a failed sync (sticky
  // until the pool is opened again; media.h).
  Status CheckWritable() const;

  // log::LogHost
  uint64_t DramEpochOf(const log::LogRecord& record) override;
  uint64_t MinDramEpoch(unsigned log) override;
  Status MigrateIfUnmigrated(const log::LogRecord& record) override;
  void WaitForAppends(unsigned log) override;

  // payload::PayloadHost
  Reachability IsReachable(std::string_view key, uint64_t key_hash,
                           uint64_t ref) override;
  Status Relocate(std::string_view key, uint64_t key_hash, uint64_t ref,
                  Relocation* result) override;

  // ScanSource: a unit is a DRAM entry and its subtree.
  uint64_t unit_count() const override { return table_->dram_entries(); }
  uint64_t UnitOf(std::string_view key) const override;
  Status ReadUnit(uint64_t unit, std::string_view lower_bound,
                  ScanBatch* batch) override;

  const Options options_;
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<table::LeveledTable> table_;
  std::unique_ptr<log::RecoveryLogs> logs_;
  std::unique_ptr<payload::PayloadLogs> payload_;
  bool opened_ = false;  // Open() succeeded: the pool is ours to write
  std::atomic<bool> closed_{false};
  ShardedCounter user_bytes_;
  double recovery_seconds_ = 0;
  uint64_t recovered_entries_ = 0;
};

}  // namespace plush

#endif  // PLUSH_DB_DB_IMPL_H_
