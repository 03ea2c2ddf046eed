// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush rebalance POOL: splits the heavy units of a range pool.
//
// A range pool of this version re-balances online (DB::Rebalance; the
// background thread does the same as units become heavy): the command
// opens it and asks for it. A range pool of an earlier version, whose
// units do not follow its keys ("key bits", "key sample"), is converted
// instead, offline, into a range pool of this version split at the
// quantiles of its keys. The pool stays open, and so locked, throughout:
// nobody writes to it while its records are copied. Steps:
//   1. one scan samples its keys (key_sample.h);
//   2. a new pool, POOL.rebalance, is created with the same creation
//      parameters and that sample, and a second scan copies every record
//      into it (unlogged write batches; Close() makes them durable);
//   3. the new pool is renamed over POOL and the directory synced.
// A crash before step 3 leaves POOL as it was, and perhaps a partial
// POOL.rebalance, which the next conversion removes; after it, the new
// pool, complete.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "command.h"
#include "key_sample.h"
#include "plush/write_batch.h"

namespace plush::cli {
namespace {

// The creation parameters of the pool `stats` describes, with `sample`.
Options LikeThePool(const Stats& stats, const PoolArgs& args,
                    std::vector<std::string> sample) {
  Options o;
  o.backend = args.backend;
  o.error_if_exists = true;
  o.partitioning = Partitioning::kRange;
  o.range_key_sample = std::move(sample);
  o.dram_directory_bits = stats.dram_directory_bits;
  o.fanout_bits = stats.fanout_bits;
  o.first_level_fanout_bits = stats.first_level_fanout_bits;
  o.preallocated_levels = stats.preallocated_levels;
  o.dram_filter_levels = stats.dram_filter_levels;
  o.log_count = stats.log_count;
  o.log_chunk_size = stats.log_chunk_size;
  o.log_chunks_per_log = stats.log_chunks_per_log;
  o.payload_log_count = stats.payload_log_count;
  if (stats.payload_log_count > 0)
    o.payload_chunk_size = stats.payload_chunk_size;
  // A skewed pool's file is mostly empty levels: start small.
  o.initial_pool_size = 0;
  return o;
}

Status SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0              ? "/"
                                                    : path.substr(0, slash);
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0 || fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    return Status::IOError("syncing directory '" + dir +
                           "': " + std::strerror(error));
  }
  close(fd);
  return Status::OK();
}

// Writes every record of `from` into `to`, in batches of consecutive keys,
// so of one or two units: at most 16, what a DRAM entry of any pool holds
// (16 x the fanout).
Status CopyRecords(DB* from, DB* to, uint64_t* copied) {
  constexpr uint32_t kBatch = 16;
  WriteOptions unlogged;  // durable at Close(), which the caller checks
  unlogged.log = false;
  WriteBatch batch;
  auto write = [&] {
    Status s = to->Write(unlogged, &batch);
    if (s.ok()) *copied += batch.Count();
    batch.Clear();
    return s;
  };
  std::unique_ptr<Iterator> it = from->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    batch.Put(it->key(), it->value());
    if (batch.Count() == kBatch) {
      Status s = write();
      if (!s.ok()) return s;
    }
  }
  if (!it->status().ok()) return it->status();
  return batch.Count() == 0 ? Status::OK() : write();
}

void PrintBalance(const Stats& before, const Stats& after) {
  std::cout << "records per unit (min, median, max) " << before.unit_records_min
            << ", " << before.unit_records_median << ", "
            << before.unit_records_max << " -> " << after.unit_records_min
            << ", " << after.unit_records_median << ", "
            << after.unit_records_max;
}

Status RebalanceOnline(const PoolArgs& args, DB* db, const Stats& before) {
  uint64_t moves = 0;
  Status s = db->Rebalance(&moves);
  Stats after;
  if (s.ok()) s = db->GetStats(&after);
  if (!s.ok()) return s.WithContext("rebalancing '" + args.path + "'");
  std::cout << "rebalanced " << args.path << ": " << moves << " moves; ";
  PrintBalance(before, after);
  std::cout << '\n';
  return Status::OK();
}

Status Convert(const PoolArgs& args, DB* db, const Stats& before) {
  KeySample sample(before.dram_directory_bits);
  {
    std::unique_ptr<Iterator> it = db->NewIterator({});
    for (it->SeekToFirst(); it->Valid(); it->Next()) sample.Add(it->key());
    if (!it->status().ok()) return it->status();
  }
  if (sample.seen() == 0) {
    return Status::InvalidArgument(
        "pool '" + args.path + "' (units by " + before.range_units +
        ", an earlier version's) holds no records to partition by: create "
        "a new range pool instead");
  }
  const std::string temporary = args.path + ".rebalance";
  if (unlink(temporary.c_str()) != 0 && errno != ENOENT) {
    return Status::IOError("removing the leftover '" + temporary +
                           "': " + std::strerror(errno));
  }
  std::unique_ptr<DB> fresh;
  Status s =
      DB::Open(LikeThePool(before, args, sample.Take()), temporary, &fresh);
  uint64_t copied = 0;
  if (s.ok()) s = CopyRecords(db, fresh.get(), &copied);
  Stats after;
  if (s.ok()) s = fresh->GetStats(&after);
  if (fresh != nullptr) {
    const Status closed = fresh->Close();
    if (s.ok()) s = closed;
  }
  if (s.ok() && std::rename(temporary.c_str(), args.path.c_str()) != 0) {
    s = Status::IOError("renaming '" + temporary + "' to '" + args.path +
                        "': " + std::strerror(errno));
  }
  if (!s.ok()) {
    unlink(temporary.c_str());
    return s.WithContext("converting '" + args.path + "' (left as it was)");
  }
  s = SyncDirectoryOf(args.path);
  if (!s.ok()) return s;
  struct stat file {};
  stat(args.path.c_str(), &file);
  std::cout << "converted " << args.path << " (units by "
            << before.range_units << ") to a re-balancing range pool: "
            << copied << " records; ";
  PrintBalance(before, after);
  std::cout << "; pool file " << before.pool_bytes << " -> " << file.st_size
            << " bytes\n";
  return Status::OK();
}

Status Rebalance(const PoolArgs& args, DB* db) {
  Stats before;
  Status s = db->GetStats(&before);
  if (!s.ok()) return s;
  // NotSupported, as DB::Rebalance and db.rebalance() answer a hash pool:
  // one error, and so one exit code, whichever interface is asked.
  if (before.partitioning != "range") {
    return Status::NotSupported(
        "pool '" + args.path +
        "' is hash-partitioned: its keys spread by hash already; rebalance "
        "re-partitions range pools");
  }
  return before.range_units == "adaptive" ? RebalanceOnline(args, db, before)
                                          : Convert(args, db, before);
}

}  // namespace

void AddRebalanceCommand(CLI::App* app, int* exit_code) {
  auto pool = std::make_shared<PoolArgs>();
  CLI::App* cmd = app->add_subcommand(
      "rebalance",
      "Split the heavy units of a range pool now (online, as its "
      "background thread does); a range pool of an earlier version is "
      "converted, offline, into one that re-balances");
  AddPoolArgs(cmd, pool.get());
  cmd->callback([pool, exit_code] {
    *exit_code = ExitWith(WithPool(ExistingPoolOptions(*pool), pool->path,
                                   [&](DB* db) { return Rebalance(*pool, db); }));
  });
}

}  // namespace plush::cli
