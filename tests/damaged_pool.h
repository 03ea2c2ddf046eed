// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The contract a damaged pool must honour
// (docs/reliability.md#damaged-and-foreign-pools): opening it, verifying it
// and using it returns a Status — Corruption or IOError where the damage is
// noticed — and never crashes, hangs, or trips a sanitizer.
//
// ExerciseDamagedPool() is the one place that states this contract; the
// bad-input tests, the libFuzzer target and the corpus replay all call it.
// It checks, in order:
//
//   Open        OK, Corruption, IOError or NotSupported (a damaged version
//               field reads as a newer version), with a message if not OK
//   Verify      OK, or Corruption with a non-empty report
//   operations  Get: OK / NotFound / Corruption / IOError;
//               Put, Delete, Checkpoint: OK / NoSpace / Corruption / IOError
//   Close       OK or IOError
//   reopen      the same contract again: recovering a damaged pool that
//               was written to must not make matters worse than an error
//
// Free of gtest: the fuzzer links it too.

#ifndef PLUSH_TESTS_DAMAGED_POOL_H_
#define PLUSH_TESTS_DAMAGED_POOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plush/db.h"
#include "testing/internal_options.h"

namespace plush::test {

// The pools that the damage tests and the fuzzer start from: keys
// [0, kDamageKeys) written, some deleted, some rewritten, so that the small
// profile has several PMem levels, recycled log chunks, and records that
// live only in the DRAM level and the log (recovery has work to do).
inline constexpr uint64_t kDamageKeys = 600;
Status PopulatePool(DB* db);
// What a key holds after PopulatePool(): nullopt if deleted.
std::optional<uint64_t> PopulatedValue(uint64_t key);
// "" if every key of `db` holds its PopulatedValue(), else the first key
// that does not.
std::string CheckPopulated(DB* db);

struct PoolOp {
  enum class Kind : uint8_t { kGet, kPut, kDelete, kCheckpoint, kVerify } kind;
  uint64_t key = 0;
  uint64_t value = 0;
};

// Reads of `key_space` keys, puts, deletes and a checkpoint (which migrates
// every DRAM entry, so writes reach the damaged PMem levels), then reads.
std::vector<PoolOp> DefaultDamageOps(uint64_t key_space);

struct DamageReport {
  Status open;            // the first Open()
  Status verify;          // Verify() right after it (OK if Open failed)
  std::string violation;  // empty iff every step kept the contract
};

// `internal`: the pool's medium (a file, or the simulator: sim_pool.h).
DamageReport ExerciseDamagedPool(const Options& options,
                                 const InternalOptions& internal,
                                 const std::string& path,
                                 const std::vector<PoolOp>& ops);

}  // namespace plush::test

#endif  // PLUSH_TESTS_DAMAGED_POOL_H_
