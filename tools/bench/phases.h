// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The phases of a benchmark: load, run and verify. Each runs on
// config.threads threads, stops early once control.stopped(), and shows its
// progress if asked to.

#ifndef PLUSH_TOOLS_BENCH_PHASES_H_
#define PLUSH_TOOLS_BENCH_PHASES_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "bench_config.h"
#include "deleted_set.h"
#include "engine.h"
#include "histogram.h"
#include "key_space.h"
#include "run_control.h"

namespace plush::bench {

struct PhaseContext {
  const BenchConfig& config;
  Engine& engine;
  const KeySpace& keys;
  RunControl& control;
  // Set iff the mix deletes: records the run may have deleted.
  DeletedSet* deleted = nullptr;
  bool progress = false;
};

// Inserts records [0, config.records). Returns the seconds it took.
double LoadPhase(const PhaseContext& context);

struct RunPhaseResult {
  uint64_t operations = 0;
  double seconds = 0;
  Histogram latency;
  // Per thread, how many new records it inserted (see InsertedRecord).
  std::vector<uint64_t> inserted;
};

// Runs config.operations operations (or config.seconds of them) in the
// ratios of config.mix.
RunPhaseResult RunPhase(const PhaseContext& context);

// Engine::Checkpoint(config.checkpoint_threads). Returns the seconds it
// took.
double CheckpointPhase(const PhaseContext& context);

struct IterateResult {
  uint64_t records = 0;  // records the iteration returned
  double seconds = 0;
};

// Iterates over the whole store on one thread (Engine::ForEach), timed;
// then, unless config.verify is off, once more to check that it returns
// every record the load and the run left exactly once (IterationCheck).
// `inserted` as for VerifyPhase.
IterateResult IteratePhase(const PhaseContext& context,
                           const std::vector<uint64_t>& inserted);

struct BackupResult {
  double seconds = 0;
  uint64_t bytes = 0;  // size of the backup file
};

// Engine::Backup(config.backup), timed.
BackupResult BackupPhase(const PhaseContext& context);

// Reads back every loaded record (but those the run deleted) and every
// record it inserted, and checks their values. Returns how many it read.
uint64_t VerifyPhase(const PhaseContext& context,
                     const std::vector<uint64_t>& inserted);

// The record number of the k-th new record `thread` inserts in the run:
// numbers continue after the loaded ones, interleaved by thread, so threads
// never insert the same key and the verify phase can enumerate them.
inline uint64_t InsertedRecord(const BenchConfig& config, unsigned thread,
                               uint64_t k) {
  return config.records + thread + k * config.threads;
}

// Checks what reading `record` gave: its expected value, or NotFound for a
// record the run deleted. Otherwise reports the failure to
// context.control and returns false. `builder` is the caller's.
bool CheckRead(const PhaseContext& context, RecordBuilder& builder,
               uint64_t record, const Status& status, std::string_view value);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_PHASES_H_
