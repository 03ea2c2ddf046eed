// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RocksDB (Debian's librocksdb) configured as a user would run it for point
// operations: WAL on, no fsync per write (rocksdb-sync: fsync per write),
// 64 MiB memtables, a 512 MiB LRU block cache, 10-bit bloom filters with a
// hash index inside data blocks, a memtable bloom filter (negative lookups),
// dynamic level sizes and background work on every core. Compression is off
// because the benchmark's values are random bytes: it would cost CPU and
// save nothing.

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <utility>

#include "engine.h"

namespace plush::bench {
namespace {

rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }
std::string_view ToView(const rocksdb::Slice& s) {
  return {s.data(), s.size()};
}

Status FromRocksDb(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  const std::string message = s.ToString();
  if (s.IsNotFound()) return Status::NotFound(message);
  if (s.IsNotSupported()) return Status::NotSupported(message);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(message);
  if (s.IsCorruption()) return Status::Corruption(message);
  if (s.IsNoSpace()) return Status::NoSpace(message);
  if (s.IsBusy()) return Status::Busy(message);
  return Status::IOError(message);
}

// Bytes of the regular files under `dir`: SSTs, WAL, manifest.
uint64_t DirectoryBytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

class RocksDbEngine final : public Engine {
 public:
  RocksDbEngine(std::unique_ptr<rocksdb::DB> db,
                std::shared_ptr<rocksdb::Cache> block_cache, std::string path,
                bool sync)
      : db_(std::move(db)),
        block_cache_(std::move(block_cache)),
        path_(std::move(path)) {
    write_options_.sync = sync;
  }

  Status Put(std::string_view key, std::string_view value) override {
    return FromRocksDb(db_->Put(write_options_, ToSlice(key), ToSlice(value)));
  }
  Status Get(std::string_view key, std::string* value) override {
    return FromRocksDb(db_->Get(read_options_, ToSlice(key), value));
  }
  void MultiGet(const std::vector<std::string_view>& keys,
                std::vector<std::string>* values,
                std::vector<Status>* statuses) override {
    std::vector<rocksdb::Slice> slices;
    slices.reserve(keys.size());
    for (std::string_view k : keys) slices.push_back(ToSlice(k));
    const std::vector<rocksdb::Status> results =
        db_->MultiGet(read_options_, slices, values);
    statuses->clear();
    for (const rocksdb::Status& s : results)
      statuses->push_back(FromRocksDb(s));
  }
  Status Delete(std::string_view key) override {
    return FromRocksDb(db_->Delete(write_options_, ToSlice(key)));
  }
  Status Write(const std::vector<BatchOp>& ops) override {
    rocksdb::WriteBatch batch;
    for (const BatchOp& op : ops) {
      const rocksdb::Status s =
          op.is_delete ? batch.Delete(ToSlice(op.key))
                       : batch.Put(ToSlice(op.key), ToSlice(op.value));
      if (!s.ok()) return FromRocksDb(s);
    }
    return FromRocksDb(db_->Write(write_options_, &batch));
  }

  Status Scan(std::string_view start, size_t count, size_t* scanned) override {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options_));
    size_t n = 0;
    for (it->Seek(ToSlice(start)); n < count && it->Valid(); it->Next()) ++n;
    *scanned = n;
    return FromRocksDb(it->status());
  }

  Status ForEach(const RecordVisitor& visit) override {
    // As an application reading everything once would: without filling
    // the block cache with blocks no point lookup asked for.
    rocksdb::ReadOptions options = read_options_;
    options.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options));
    for (it->SeekToFirst();
         it->Valid() && visit(ToView(it->key()), ToView(it->value()));
         it->Next()) {
    }
    return FromRocksDb(it->status());
  }

  Status Checkpoint(unsigned) override {
    // Flush's own background threads do the work.
    return FromRocksDb(db_->Flush(rocksdb::FlushOptions()));
  }

  Status Backup(const std::string&) override {
    return Status::NotSupported("backups are measured on plush only");
  }

  Status GetStats(EngineStats* stats) override {
    // DRAM RocksDB accounts for: memtables, cached blocks, and the index and
    // filter blocks held by open table readers.
    uint64_t memtables = 0;
    uint64_t table_readers = 0;
    db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &memtables);
    db_->GetIntProperty("rocksdb.estimate-table-readers-mem", &table_readers);
    stats->backend = "file";
    stats->dram_bytes = memtables + table_readers + block_cache_->GetUsage();
    stats->pool_bytes = DirectoryBytes(path_);
    return Status::OK();
  }

  Status Close() override { return FromRocksDb(db_->Close()); }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::string path_;
  rocksdb::ReadOptions read_options_;
  rocksdb::WriteOptions write_options_;
};

}  // namespace

Status OpenRocksDbEngine(const EngineConfig& config, const std::string& path,
                         bool create, bool sync,
                         std::unique_ptr<Engine>* engine) {
  rocksdb::Options options;
  options.create_if_missing = create;
  options.error_if_exists = create;
  options.IncreaseParallelism(
      static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
  options.write_buffer_size = config.rocksdb_write_buffer_mb << 20;
  options.max_write_buffer_number = 4;
  options.level_compaction_dynamic_level_bytes = true;
  options.compression = rocksdb::kNoCompression;
  options.memtable_prefix_bloom_size_ratio = 0.1;
  options.memtable_whole_key_filtering = true;

  std::shared_ptr<rocksdb::Cache> block_cache =
      rocksdb::NewLRUCache(config.rocksdb_block_cache_mb << 20);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = block_cache;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.data_block_index_type =
      rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  rocksdb::DB* raw = nullptr;
  Status status = FromRocksDb(rocksdb::DB::Open(options, path, &raw));
  if (!status.ok()) return status.WithContext("opening RocksDB at " + path);
  *engine = std::make_unique<RocksDbEngine>(std::unique_ptr<rocksdb::DB>(raw),
                                            std::move(block_cache), path, sync);
  return Status::OK();
}

}  // namespace plush::bench
