// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "command_line.h"
#include "key_space.h"
#include "plush/db.h"

namespace plush::bench {
namespace {

// Resolves defaults that depend on other flags and checks what CLI11's
// validators cannot. Returns an error message, or empty.
std::string Finish(const std::string& key_size, const std::string& value_size,
                   bool skew_given, bool seed_given, bool latency_sample_given,
                   BenchConfig* c) {
  std::string error;
  if (!SizeSpec::Parse(key_size, kMinKeySize, kMaxKeySize, &c->key_size,
                       &error)) {
    return "--key-size: " + error;
  }
  if (!SizeSpec::Parse(value_size, 0, kMaxValueSize, &c->value_size, &error)) {
    return "--value-size: " + error;
  }
  // "user:%08d": what the reports give as the key size (key_space.h).
  if (c->key_order == KeyOrder::kUser) c->key_size = SizeSpec::Fixed(13);

  bool any_ratio = false;
  for (double ratio : c->mix.ratios) any_ratio |= ratio != 0;
  if (!any_ratio) c->mix[OpType::kInsert] = 1;
  error = c->mix.Validate();
  if (!error.empty()) return error;
  const bool runs = c->operations > 0 || c->seconds > 0;
  if (c->records == 0 && c->mix[OpType::kInsert] != 1 && runs) {
    return "operations other than inserts need loaded records (-n > 0)";
  }

  if (c->latency == LatencyMode::kAll) {
    if (latency_sample_given) {
      return "--latency all times every operation: no --latency-sample";
    }
    c->latency_sample = 1;
  }

  if (!skew_given) c->skew = DefaultSkew(c->distribution);
  if (c->distribution == DistributionKind::kUniform) c->skew = 0;
  std::string_view skew_error =
      KeyDistribution::ValidateSkew(c->distribution, c->skew);
  if (!skew_error.empty()) return "--skew: " + std::string(skew_error);

  if (c->recovery) {
    if (!IsPersistent(c->engine.name)) {
      return "--recovery needs a persistent engine, not " + c->engine.name;
    }
    if (c->mix[OpType::kDelete] != 0) {
      return "--recovery checks every loaded record: no --delete";
    }
    if (c->engine.plush_unlogged) {
      return "--recovery measures log replay: no --unlogged";
    }
    if (c->checkpoint_threads > 0) {
      return "--recovery measures log replay: no --checkpoint-threads";
    }
    if (c->iterate || !c->backup.empty()) {
      return "--recovery measures log replay: no --iterate or --backup";
    }
  }

  if (!seed_given) c->seed = std::random_device()();
  if (c->workload.empty()) {
    c->workload = c->recovery ? "recovery" : c->mix.Name();
  }
  c->progress = c->progress || isatty(STDERR_FILENO);
  const double expected_inserts =
      c->seconds > 0
          ? 0
          : static_cast<double>(c->operations) * c->mix[OpType::kInsert];
  c->engine.expected_records =
      c->records + static_cast<uint64_t>(expected_inserts);
  c->engine.word_records = c->key_order != KeyOrder::kUser &&
                           c->key_size.fixed() && c->key_size.max() == 8 &&
                           c->value_size.fixed() && c->value_size.max() == 8;
  if (c->range_sample > 0) {
    if (c->engine.name != "plush" ||
        c->engine.plush_options.partitioning != Partitioning::kRange) {
      return "--range-sample needs --engine plush --partitioning range";
    }
    // What a user would sample: keys spread over those the pool will hold.
    const KeySpace keys(c->key_size, c->value_size, c->key_order);
    RecordBuilder builder(keys);
    const uint64_t records = std::max<uint64_t>(c->engine.expected_records, 1);
    const uint64_t count = std::min(c->range_sample, records);
    for (uint64_t i = 0; i < count; ++i) {
      c->engine.plush_options.range_key_sample.emplace_back(
          builder.Key(i * records / count));
    }
  }
  return {};
}

}  // namespace

std::optional<int> ParseCommandLine(int argc, const char* const* argv,
                                    BenchConfig* config) {
  BenchConfig& c = *config;
  // Benchmarks charge the file back end the flushes and fences PMem would
  // need, so that numbers taken on DRAM are comparable to PMem ones.
  c.engine.plush_internal.emulate_pmem_costs = true;

  CLI::App app(
      "Loads -n records into a key-value store, then runs a mix of "
      "operations on -t threads and reports throughput, latency, memory and "
      "persistence figures.",
      "plush-bench");
  app.option_defaults()->always_capture_default();

  app.add_option("--engine", c.engine.name, "Store under test")
      ->check(CLI::IsMember(EngineNames()));
  app.add_option("-n,--records", c.records, "Records loaded before the run");
  app.add_option("-p,--operations", c.operations,
                 "Operations in the run phase (0: load only)");
  app.add_option("--seconds", c.seconds,
                 "Run for this many seconds instead of -p operations")
      ->check(CLI::PositiveNumber);
  app.add_option("-t,--threads", c.threads, "Threads in every phase")
      ->check(CLI::Range(1u, 1024u));

  for (size_t i = 0; i < kOpTypeCount; ++i) {
    const std::string name(OpName(static_cast<OpType>(i)));
    app.add_option("--" + name, c.mix.ratios[i],
                   "Ratio of " + name + " operations (all 0: insert only)")
        ->group("Operation mix")
        ->check(CLI::Range(0.0, 1.0));
  }
  app.add_option("--checkpoint-threads", c.checkpoint_threads,
                 "After the run, checkpoint with this many threads and time "
                 "it (plush: DRAM level to PMem; rocksdb: memtable flush)")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--batch", c.batch,
                 "Writes per batch (DB::Write; RocksDB's WriteBatch); "
                 "latencies are then per batch")
      ->check(CLI::Range(1u, 65536u));
  app.add_option("--multiget", c.multiget,
                 "Lookups per MultiGet call (plush and RocksDB MultiGet); "
                 "latencies are then per call")
      ->check(CLI::Range(1u, 65536u));
  app.add_option("--scan-size", c.scan_size, "Records read by each scan")
      ->group("Operation mix")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));

  tools::AddChoice<DistributionKind>(
      &app, "--distribution", "Which loaded records operations touch",
      {{"uniform", DistributionKind::kUniform},
       {"zipfian", DistributionKind::kZipfian},
       {"selfsimilar", DistributionKind::kSelfSimilar}},
      &c.distribution);
  CLI::Option* skew = app.add_option(
      "--skew", c.skew,
      "Zipfian theta (default 0.99) or self-similar h (default 0.2)");
  CLI::Option* seed = app.add_option(
      "--seed", c.seed, "Seed of the random generators (default: random)");
  std::string key_size = "8";
  std::string value_size = "8";
  app.add_option("--key-size", key_size, "Bytes, or normal:MEAN,STDDEV");
  app.add_option("--value-size", value_size, "Bytes, or normal:MEAN,STDDEV");
  tools::AddChoice<KeyOrder>(
      &app, "--key-order",
      "Keys of records 0, 1, 2...: hashed (spread), sequential (big-endian "
      "record numbers) or user (\"user:%08d\"; ignores --key-size)",
      {{"hashed", KeyOrder::kHashed},
       {"sequential", KeyOrder::kSequential},
       {"user", KeyOrder::kUser}},
      &c.key_order);
  tools::AddChoice<LatencyMode>(
      &app, "--latency",
      "Operations whose latency is measured: a sample (--latency-sample) "
      "or all",
      {{LatencyModeName(LatencyMode::kSample), LatencyMode::kSample},
       {LatencyModeName(LatencyMode::kAll), LatencyMode::kAll}},
      &c.latency);
  CLI::Option* latency_sample =
      app.add_option("--latency-sample", c.latency_sample,
                     "Fraction of operations whose latency is measured")
          ->check(CLI::Range(0.0, 1.0));

  app.add_option("--pool", c.pool,
                 "Pool file (plush) or directory (rocksdb); default: a "
                 "fresh one in /dev/shm, removed at exit");
  app.add_flag("--keep-pool", c.keep_pool, "Do not remove the temporary pool");
  app.add_option("--workload", c.workload,
                 "Name reported for the run (default: from the ratios)");
  app.add_flag("--json", c.json, "Print one JSON object instead of a table");
  app.add_flag("--progress", c.progress,
               "Show progress on stderr even if it is not a terminal");
  bool skip_verify = false;
  app.add_flag("--skip-verify", skip_verify,
               "Do not re-read every record after the run");
  app.add_flag("--iterate", c.iterate,
               "After the run, iterate over the whole store (one thread) and "
               "check that every record comes once");
  app.add_option("--backup", c.backup,
                 "After the run, back the store up to this new file and time "
                 "it (plush: DB::Backup); the file is kept");
  app.add_flag("--recovery", c.recovery,
               "Time recovery: a child loads -n records and is SIGKILLed, "
               "then the store is reopened");
  app.add_option("--kill-after", c.kill_after,
                 "Recovery mode: seconds the child keeps running after the "
                 "load before it is killed")
      ->check(CLI::NonNegativeNumber);

  Options& plush_options = c.engine.plush_options;
  CLI::App* plush = app.add_option_group("plush engine");
  plush->add_option("--dram-bits", plush_options.dram_directory_bits,
                    "log2 of the DRAM level's directory entries");
  plush->add_option("--fanout-bits", plush_options.fanout_bits,
                    "log2 of the fanout of the PMem levels");
  plush->add_option("--first-fanout-bits",
                    plush_options.first_level_fanout_bits,
                    "log2 of the fanout from DRAM to the first PMem level");
  plush->add_option("--preallocated-levels", plush_options.preallocated_levels,
                    "PMem levels laid out at creation");
  plush->add_option("--dram-filter-levels", plush_options.dram_filter_levels,
                    "PMem levels whose filters live in DRAM");
  plush->add_option("--logs", plush_options.log_count,
                    "Recovery logs (power of two)");
  plush->add_option("--log-chunk-size", plush_options.log_chunk_size,
                    "Bytes per recovery-log chunk");
  plush->add_option("--chunks-per-log", plush_options.log_chunks_per_log,
                    "Chunks per recovery log");
  plush->add_option("--payload-log-count", plush_options.payload_log_count,
                    "Payload logs, for records other than 8-byte keys with "
                    "8-byte values (0: such records are NotSupported)");
  plush->add_option("--payload-chunk-size", plush_options.payload_chunk_size,
                    "Bytes per payload-log chunk");
  plush->add_option("--pool-size", plush_options.initial_pool_size,
                    "Initial pool file size in bytes (it grows on demand)");
  plush->add_option("--background-threads", plush_options.background_threads,
                    "Threads migrating DRAM entries and recycling log "
                    "chunks ahead of writers (0: writers do it inline)");
  plush->add_option("--recovery-threads", plush_options.recovery_threads,
                    "Threads replaying the logs on open (0: one per core)");
  plush->add_flag(
      "--emulate-pmem,!--no-emulate-pmem",
      c.engine.plush_internal.emulate_pmem_costs,
      "Charge the file back end PMem's flushes and fences (default: on)");
  plush->add_flag("--model-write-amp",
                  c.engine.plush_internal.model_media_write_amp,
                  "Model PMem's media write amplification");
  plush->add_flag("--unlogged", c.engine.plush_unlogged,
                  "Writes skip the recovery log (WriteOptions::log = false)");
  plush->add_flag("--sync", c.engine.plush_sync,
                  "Writes return once synced: they survive power failure "
                  "(WriteOptions::sync, the pool opened with "
                  "Options::power_fail_safe; needs a pool on a disk)");
  tools::AddChoice(plush, "--backend", "Where the pool lives",
                   tools::BackendChoices(), &plush_options.backend);
  tools::AddChoice<Partitioning>(
      plush, "--partitioning", "Key partitioning of a new pool (range: scans)",
      {{"hash", Partitioning::kHash}, {"range", Partitioning::kRange}},
      &plush_options.partitioning);
  plush->add_option("--range-sample", c.range_sample,
                    "Range pools: create the pool with a sample of this many "
                    "keys of the records it will hold "
                    "(Options::range_key_sample)");

  CLI::App* rocksdb = app.add_option_group("rocksdb engine");
  rocksdb->add_option("--rocksdb-block-cache-mb",
                      c.engine.rocksdb_block_cache_mb,
                      "RocksDB block cache (MiB)");
  rocksdb->add_option("--rocksdb-write-buffer-mb",
                      c.engine.rocksdb_write_buffer_mb,
                      "RocksDB memtable size (MiB)");

  if (auto exit_code = tools::Parse(&app, argc, argv, kUsageExitCode)) {
    return exit_code;
  }
  c.verify = !skip_verify;
  const std::string error =
      Finish(key_size, value_size, skew->count() > 0, seed->count() > 0,
             latency_sample->count() > 0, &c);
  if (!error.empty()) {
    std::cerr << "plush-bench: " << error << "\n";
    return kUsageExitCode;
  }
  return std::nullopt;
}

}  // namespace plush::bench
