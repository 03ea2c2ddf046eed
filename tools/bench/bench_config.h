// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Everything a run of plush-bench is told, as parsed and checked by
// ParseCommandLine() (cli.h); the defaults are the command line's.

#ifndef PLUSH_TOOLS_BENCH_BENCH_CONFIG_H_
#define PLUSH_TOOLS_BENCH_BENCH_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine.h"
#include "key_distribution.h"
#include "key_space.h"
#include "op_mix.h"
#include "size_spec.h"

namespace plush::bench {

// Which run-phase operations are timed.
enum class LatencyMode {
  kSample,  // a random fraction, BenchConfig::latency_sample
  kAll,     // every one (latency_sample is then 1)
};

// "sample", "all": --latency's names, and the JSON's.
inline const char* LatencyModeName(LatencyMode mode) {
  return mode == LatencyMode::kAll ? "all" : "sample";
}

struct BenchConfig {
  EngineConfig engine;

  // Load phase: records [0, records) are inserted, split over the threads.
  uint64_t records = 1'000'000;
  // Run phase: this many operations in total, or, if seconds > 0, as many
  // as fit in that time. 0 operations: no run phase.
  uint64_t operations = 1'000'000;
  double seconds = 0;
  unsigned threads = 1;
  // > 0: after the run phase, checkpoint with this many threads and time
  // it (Engine::Checkpoint).
  unsigned checkpoint_threads = 0;

  OpMix mix;  // insert-only unless told otherwise
  // Writes (inserts, updates, deletes) per Engine::Write call; 1: one call
  // per write (Put / Delete).
  unsigned batch = 1;
  // Lookups per Engine::MultiGet call; 1: one Get per lookup.
  unsigned multiget = 1;
  size_t scan_size = 100;
  DistributionKind distribution = DistributionKind::kUniform;
  double skew = 0;  // theta or h; DefaultSkew(distribution) unless given
  uint64_t seed = 0;

  SizeSpec key_size = SizeSpec::Fixed(8);
  SizeSpec value_size = SizeSpec::Fixed(8);
  KeyOrder key_order = KeyOrder::kHashed;  // key_space.h
  // plush, range pools: create the pool with a sample of this many keys,
  // spread evenly over the records the run will hold (0: none).
  uint64_t range_sample = 0;

  LatencyMode latency = LatencyMode::kSample;
  // Fraction of run-phase operations whose latency is measured.
  double latency_sample = 0.01;

  std::string pool;  // empty: a fresh temporary location
  bool keep_pool = false;

  std::string workload;  // the name reported; mix.Name() unless given
  bool json = false;
  bool progress = false;
  bool verify = true;
  // After the run (or the load, with no run): iterate over the whole store
  // and time it; back the store up to this new file and time it.
  bool iterate = false;
  std::string backup;  // empty: no backup

  // Recovery mode: a child loads and is killed kill_after seconds later;
  // this process times reopening the store.
  bool recovery = false;
  double kill_after = 0.1;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_BENCH_CONFIG_H_
