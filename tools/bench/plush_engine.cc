// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The engine under test, through its public API only.

#include <utility>

#include "engine.h"
#include "plush/db.h"
#include "testing/open_db.h"

namespace plush::bench {
namespace {

class PlushEngine final : public Engine {
 public:
  PlushEngine(std::unique_ptr<DB> db, const WriteOptions& write_options)
      : db_(std::move(db)), write_options_(write_options) {}

  Status Put(std::string_view key, std::string_view value) override {
    return db_->Put(write_options_, key, value);
  }
  Status Get(std::string_view key, std::string* value) override {
    return db_->Get(read_options_, key, value);
  }
  void MultiGet(const std::vector<std::string_view>& keys,
                std::vector<std::string>* values,
                std::vector<Status>* statuses) override {
    *statuses = db_->MultiGet(read_options_, keys, values);
  }
  Status Delete(std::string_view key) override {
    return db_->Delete(write_options_, key);
  }
  Status Write(const std::vector<BatchOp>& ops) override {
    batch_.Clear();
    for (const BatchOp& op : ops) {
      if (op.is_delete) {
        batch_.Delete(op.key);
      } else {
        batch_.Put(op.key, op.value);
      }
    }
    return db_->Write(write_options_, &batch_);
  }

  Status Scan(std::string_view start, size_t count, size_t* scanned) override {
    // On a hash-partitioned pool the iterator is never valid and reports
    // NotSupported, which the driver passes on.
    std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
    size_t n = 0;
    for (it->Seek(start); n < count && it->Valid(); it->Next()) ++n;
    *scanned = n;
    return it->status();
  }

  Status ForEach(const RecordVisitor& visit) override {
    // SeekToFirst works on both kinds of pool; a hash pool's keys come in
    // partition order.
    std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
    for (it->SeekToFirst(); it->Valid() && visit(it->key(), it->value());
         it->Next()) {
    }
    return it->status();
  }

  Status Checkpoint(unsigned threads) override {
    return db_->Checkpoint(threads);
  }

  Status Backup(const std::string& path) override { return db_->Backup(path); }

  Status GetStats(EngineStats* stats) override {
    Stats s;
    Status status = db_->GetStats(&s);
    if (!status.ok()) return status;
    stats->backend = s.backend;
    stats->dram_bytes = s.dram_bytes;
    stats->pool_bytes = s.pool_bytes;
    stats->persist_calls = s.persist_calls;
    stats->flushed_lines = s.flushed_lines;
    stats->media_write_amp = s.media_write_amp;
    stats->recovery_seconds = s.recovery_seconds;
    stats->recovered_log_entries = s.recovered_log_entries;
    return Status::OK();
  }

  Status Close() override { return db_->Close(); }

 private:
  std::unique_ptr<DB> db_;
  // One per engine, but Write is called by many threads: each needs its
  // own buffer.
  static thread_local WriteBatch batch_;
  ReadOptions read_options_;
  WriteOptions write_options_;
};

thread_local WriteBatch PlushEngine::batch_;

}  // namespace

Status OpenPlushEngine(const EngineConfig& config, const std::string& path,
                       bool create, std::unique_ptr<Engine>* engine) {
  Options options = config.plush_options;
  options.create_if_missing = create;
  options.power_fail_safe = config.plush_sync;
  // A benchmark must start from an empty pool, never from leftovers.
  options.error_if_exists = create;
  std::unique_ptr<DB> db;
  Status status = OpenDB(options, config.plush_internal, path, &db);
  if (!status.ok()) return status.WithContext("opening plush pool " + path);
  WriteOptions write_options;
  write_options.log = !config.plush_unlogged;
  write_options.sync = config.plush_sync;
  *engine = std::make_unique<PlushEngine>(std::move(db), write_options);
  return Status::OK();
}

}  // namespace plush::bench
