// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A crash-consistency explorer on the sim back end (DESIGN.md §7).
//
// It runs a deterministic workload of puts and deletes, simulates a power
// failure at persist point k, builds a post-crash image with the torn-word
// model, recovers from it and checks the result against an oracle:
//
//   * every acknowledged write is visible with its value, unless the write
//     in flight at the crash (same key) replaced it;
//   * no acknowledged delete is undone; no key holds a value never written;
//   * Verify() is clean;
//   * recovering again (after a clean close, and after a crash *during*
//     recovery) gives the same contents.
//
// Every persist point of a workload can be explored (Exhaustive) or a
// random sample of them (Sampled). Counts are reported so that test output
// says how many crash states were examined.

#ifndef PLUSH_TESTS_CRASH_EXPLORER_H_
#define PLUSH_TESTS_CRASH_EXPLORER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plush/db.h"

namespace plush::test {

struct Op {
  enum class Kind { kPut, kDelete } kind;
  uint64_t key;
  uint64_t value;  // for kPut
};

// `n` random operations on keys in [0, key_space): 75% puts, 25% deletes.
std::vector<Op> RandomWorkload(uint64_t n, uint64_t key_space, uint64_t seed);

struct ExplorerStats {
  uint64_t crash_states = 0;  // post-crash images recovered and checked
  uint64_t recovery_crash_states = 0;  // of which crashed again during recovery
  uint64_t persist_points = 0;         // persist points of one full run
  uint64_t failures = 0;
  std::string first_failure;
};

class CrashExplorer {
 public:
  CrashExplorer(Options options, std::vector<Op> workload);

  // Persist points the workload passes through (after the pool is created).
  uint64_t CountPersistPoints();
  // Crashes at every persist point in [1, CountPersistPoints()].
  ExplorerStats Exhaustive();
  // Crashes at `samples` random persist points.
  ExplorerStats Sampled(uint64_t samples, uint64_t seed);

  // Makes the oracle wrongly treat the operation in flight at the crash as
  // acknowledged. A correct engine then fails some crash states: this is
  // how the explorer proves it can detect a lost write.
  void set_claim_in_flight_acked(bool on) { claim_in_flight_acked_ = on; }

 private:
  // Runs the workload with a crash armed at point k; returns false if the
  // workload ended before reaching it.
  bool CrashAt(uint64_t k, uint64_t seed, ExplorerStats* stats);
  // Checks the recovered DB against the oracle; returns a failure or "".
  std::string Check(DB* db, size_t acked, const Op* in_flight) const;

  const Options options_;
  const std::vector<Op> workload_;
  const std::string device_;
  uint64_t key_space_ = 0;
  bool claim_in_flight_acked_ = false;
};

}  // namespace plush::test

#endif  // PLUSH_TESTS_CRASH_EXPLORER_H_
