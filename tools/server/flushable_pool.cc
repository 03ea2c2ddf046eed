// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "flushable_pool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace plush::server {
namespace {

Status ErrnoError(const std::string& what, int err) {
  std::string message = what;
  message += ": ";
  message += std::strerror(err);
  return Status::IOError(message);
}

// The options that create a pool like the one `stats` describe: `opened`
// (what the server opened its pool with: back end, clock, threads, sizes)
// with the creation parameters the pool records. A range pool's key
// sample is not recorded: the new pool starts split by the keys' leading
// bits (Options::range_key_sample) and re-balances as keys come.
Options CreationOptions(Options opened, const Stats& stats) {
  opened.create_if_missing = true;
  opened.error_if_exists = true;
  opened.partitioning = stats.partitioning == "range" ? Partitioning::kRange
                                                      : Partitioning::kHash;
  opened.dram_directory_bits = stats.dram_directory_bits;
  opened.fanout_bits = stats.fanout_bits;
  opened.first_level_fanout_bits = stats.first_level_fanout_bits;
  opened.preallocated_levels = stats.preallocated_levels;
  opened.dram_filter_levels = stats.dram_filter_levels;
  opened.log_count = stats.log_count;
  opened.log_chunk_size = stats.log_chunk_size;
  opened.log_chunks_per_log = stats.log_chunks_per_log;
  opened.payload_log_count = stats.payload_log_count;
  opened.payload_chunk_size = stats.payload_chunk_size;
  return opened;
}

// The file the pool's path names (through symbolic links, which the rename
// must not replace): NotSupported unless it is a regular file.
Status PoolFile(const std::string& path, std::filesystem::path* file) {
  std::error_code error;
  *file = std::filesystem::canonical(path, error);
  if (error) return ErrnoError("cannot resolve '" + path + "'", error.value());
  if (!std::filesystem::is_regular_file(*file, error)) {
    return Status::NotSupported(
        "the pool '" + path +
        "' is not a regular file: FLUSHDB and FLUSHALL replace the pool "
        "file by renaming an empty pool over it");
  }
  return Status::OK();
}

// Gives `to` the permissions of `from` (not those the umask leaves).
Status CopyMode(const std::filesystem::path& from,
                const std::filesystem::path& to) {
  std::error_code error;
  const std::filesystem::perms mode =
      std::filesystem::status(from, error).permissions();
  if (!error) std::filesystem::permissions(to, mode, error);
  if (!error) return Status::OK();
  return ErrnoError("cannot give " + to.string() + " the mode of " +
                        from.string(),
                    error.value());
}

// Makes the rename of an entry of `dir` survive a power failure.
Status SyncDirectory(const std::filesystem::path& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int err = errno;
  if (fd < 0) return ErrnoError("cannot open directory " + dir.string(), err);
  const int rc = fsync(fd);
  err = errno;
  close(fd);
  if (rc != 0) return ErrnoError("fsync of directory " + dir.string(), err);
  return Status::OK();
}

}  // namespace

FlushablePool::FlushablePool(std::unique_ptr<DB> db, std::string path,
                             Options options)
    : path_(std::move(path)),
      options_(std::move(options)),
      db_(std::move(db)) {}

Status FlushablePool::Empty(WriteBatch* first) {
  Stats stats;
  Status s = db_->GetStats(&stats);
  std::filesystem::path file;
  if (s.ok()) s = PoolFile(path_, &file);
  if (!s.ok()) return s;
  std::filesystem::path temporary = file;
  temporary += ".flushing";
  std::error_code error;
  std::filesystem::remove(temporary, error);
  if (error) {
    return ErrnoError("cannot remove " + temporary.string(), error.value());
  }
  // Closed, the new pool is durable, `first` included (Close syncs it, its
  // mode too; Open synced its directory entry).
  std::unique_ptr<DB> empty;
  s = DB::Open(CreationOptions(options_, stats), temporary, &empty);
  if (s.ok() && first != nullptr && first->Count() > 0)
    s = empty->Write(WriteOptions(), first);
  if (s.ok()) s = CopyMode(file, temporary);
  if (s.ok()) s = empty->Close();
  if (s.ok() && std::rename(temporary.c_str(), file.c_str()) != 0) {
    const int err = errno;
    s = ErrnoError("cannot rename " + temporary.string() + " to " +
                       file.string(),
                   err);
  }
  if (!s.ok()) {
    std::filesystem::remove(temporary, error);
    return s;
  }
  // The old pool's contents are gone with its file: how its close went
  // does not matter. Until the new pool is open, db_ is the closed one.
  static_cast<void>(db_->Close());
  const Status synced = SyncDirectory(file.parent_path());
  Options reopen = options_;
  reopen.create_if_missing = false;
  std::unique_ptr<DB> opened;
  s = DB::Open(reopen, path_, &opened);
  if (!s.ok()) return s;
  db_ = std::move(opened);
  return synced;
}

Status FlushablePool::Put(const WriteOptions& options, std::string_view key,
                          std::string_view value) {
  return db_->Put(options, key, value);
}

Status FlushablePool::Get(const ReadOptions& options, std::string_view key,
                          std::string* value) {
  return db_->Get(options, key, value);
}

std::vector<Status> FlushablePool::MultiGet(
    const ReadOptions& options, const std::vector<std::string_view>& keys,
    std::vector<std::string>* values) {
  return db_->MultiGet(options, keys, values);
}

Status FlushablePool::Delete(const WriteOptions& options,
                             std::string_view key) {
  return db_->Delete(options, key);
}

Status FlushablePool::Write(const WriteOptions& options, WriteBatch* batch) {
  return db_->Write(options, batch);
}

Status FlushablePool::Update(const WriteOptions& options, std::string_view key,
                             const UpdateFunction& fn) {
  return db_->Update(options, key, fn);
}

Status FlushablePool::UpdateWithExpiry(const WriteOptions& options,
                                       std::string_view key,
                                       const UpdateWithExpiryFunction& fn) {
  return db_->UpdateWithExpiry(options, key, fn);
}

Status FlushablePool::Increment(const WriteOptions& options,
                                std::string_view key, int64_t delta,
                                int64_t* result) {
  return db_->Increment(options, key, delta, result);
}

Status FlushablePool::Expire(const WriteOptions& options, std::string_view key,
                             uint64_t expires_at_ms) {
  return db_->Expire(options, key, expires_at_ms);
}

Status FlushablePool::GetExpiry(const ReadOptions& options,
                                std::string_view key,
                                uint64_t* expires_at_ms) {
  return db_->GetExpiry(options, key, expires_at_ms);
}

std::unique_ptr<Iterator> FlushablePool::NewIterator(
    const ReadOptions& options) {
  return db_->NewIterator(options);
}

Status FlushablePool::Rebalance(uint64_t* moves) {
  return db_->Rebalance(moves);
}

Status FlushablePool::Checkpoint(unsigned threads) {
  return db_->Checkpoint(threads);
}

Status FlushablePool::Sync() { return db_->Sync(); }

Status FlushablePool::Verify(std::string* report) {
  return db_->Verify(report);
}

Status FlushablePool::Backup(const std::string& path) {
  return db_->Backup(path);
}

Status FlushablePool::GetStats(Stats* stats) { return db_->GetStats(stats); }

Status FlushablePool::GetProperty(std::string_view name, std::string* value) {
  return db_->GetProperty(name, value);
}

Status FlushablePool::Close() { return db_->Close(); }

}  // namespace plush::server
