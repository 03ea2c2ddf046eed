// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The interface every benchmarked store implements, so that one driver runs
// the identical workload against each of them, and the factory that opens
// one by name. Each engine lives in its own <name>_engine.cc.

#ifndef PLUSH_TOOLS_BENCH_ENGINE_H_
#define PLUSH_TOOLS_BENCH_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plush/options.h"
#include "plush/status.h"
#include "testing/internal_options.h"

namespace plush::bench {

struct EngineStats {
  // Where the engine keeps its data: plush's Stats::backend ("file",
  // "pmem"), "file" for RocksDB, "dram" for the DRAM map.
  std::string backend;
  // DRAM the engine accounts for itself; empty if it keeps no account (the
  // driver then reports the process's RSS growth instead).
  std::optional<uint64_t> dram_bytes;
  // Bytes of the engine's files (pool file, or RocksDB's directory).
  uint64_t pool_bytes = 0;
  // Cumulative persistence work and modeled write amplification (plush
  // only; see plush/stats.h).
  uint64_t persist_calls = 0;
  uint64_t flushed_lines = 0;
  double media_write_amp = 0;
  // The engine's own measurement of the recovery its open did (plush only).
  double recovery_seconds = 0;
  uint64_t recovered_log_entries = 0;
};

// What Engine::ForEach calls with each record; false stops it.
using RecordVisitor =
    std::function<bool(std::string_view key, std::string_view value)>;

// One write of a batch (Engine::Write).
struct BatchOp {
  std::string_view key;
  std::string_view value;  // ignored for a delete
  bool is_delete = false;
};

// All methods but Close() may be called concurrently from any number of
// threads.
class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  // Inserts or replaces.
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  // OK and the value, or NotFound.
  virtual Status Get(std::string_view key, std::string* value) = 0;
  // Get of many keys: (*statuses)[i] and (*values)[i] answer keys[i]
  // (plush's and RocksDB's MultiGet; the DRAM map one by one).
  virtual void MultiGet(const std::vector<std::string_view>& keys,
                        std::vector<std::string>* values,
                        std::vector<Status>* statuses) = 0;
  virtual Status Delete(std::string_view key) = 0;
  // Applies the writes together: plush's DB::Write (atomic, one
  // persistence barrier), RocksDB's WriteBatch, the DRAM map one by one.
  virtual Status Write(const std::vector<BatchOp>& ops) = 0;
  // Reads up to `count` records in key order, from the first key >= start,
  // and stores how many it read in *scanned. NotSupported if the engine
  // keeps no order.
  virtual Status Scan(std::string_view start, size_t count,
                      size_t* scanned) = 0;
  // Calls visit(key, value) for every record of the store, each once, in
  // the engine's order, until it returns false: plush's and RocksDB's
  // iterators, the DRAM map's locked table. Writers must have stopped
  // (the DRAM map locks the whole table).
  virtual Status ForEach(const RecordVisitor& visit) = 0;
  // Makes every write issued so far durable, the bulk-load way: plush's
  // Checkpoint(threads) (the DRAM level to PMem), RocksDB's memtable flush.
  // NotSupported if the engine is not persistent.
  virtual Status Checkpoint(unsigned threads) = 0;
  // Writes a consistent copy of the store to the new file `path`
  // (plush's DB::Backup). NotSupported by the other engines.
  virtual Status Backup(const std::string& path) = 0;
  virtual Status GetStats(EngineStats* stats) = 0;
  virtual Status Close() = 0;
};

// What the command line says about the engines.
struct EngineConfig {
  std::string name = "plush";  // one of EngineNames()
  // A sizing hint: records expected after the run (load + inserts).
  uint64_t expected_records = 0;
  // Every key and value is exactly 8 bytes (the default record), which
  // lets the dram engine store them as integers.
  bool word_records = false;

  // plush: its options as given by the flags (the driver fills in
  // create_if_missing / error_if_exists), whether writes skip the log,
  // and whether they are synced (WriteOptions::sync).
  plush::Options plush_options;
  // Benchmark instrumentation (PMem cost emulation, write-amp model).
  plush::InternalOptions plush_internal;
  bool plush_unlogged = false;
  bool plush_sync = false;

  // rocksdb and rocksdb-sync.
  size_t rocksdb_block_cache_mb = 512;
  size_t rocksdb_write_buffer_mb = 64;
};

// The openers of the individual engines (each in its <name>_engine.cc),
// for OpenEngine(); same contract.
Status OpenPlushEngine(const EngineConfig& config, const std::string& path,
                       bool create, std::unique_ptr<Engine>* engine);
// `sync`: every write waits for the WAL to be fsynced.
Status OpenRocksDbEngine(const EngineConfig& config, const std::string& path,
                         bool create, bool sync,
                         std::unique_ptr<Engine>* engine);
Status OpenDramEngine(const EngineConfig& config,
                      std::unique_ptr<Engine>* engine);

// "plush", "rocksdb", "rocksdb-sync", "dram".
const std::vector<std::string>& EngineNames();
// Whether the engine's data survives a crash of the process.
bool IsPersistent(std::string_view name);

// Opens engine `config.name` on `path` (a file for plush, a directory for
// RocksDB, ignored by the DRAM map). With `create`, the store must not exist
// yet and is created empty; without, an existing store is opened (and
// recovered if it was not closed cleanly).
Status OpenEngine(const EngineConfig& config, const std::string& path,
                  bool create, std::unique_ptr<Engine>* engine);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_ENGINE_H_
