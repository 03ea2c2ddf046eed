// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A crash-consistency explorer on the sim back end (docs/reliability.md §2.1).
//
// It runs a deterministic workload of puts and deletes, simulates a power
// failure at persist point k, builds a post-crash image with the torn-word
// model, recovers from it and checks the result against an oracle:
//
//   * every acknowledged write is visible with its value, unless the write
//     in flight at the crash (same key) replaced it;
//   * no acknowledged delete is undone; no key holds a value never written;
//   * on range pools, a full scan returns exactly the keys that Get finds,
//     in ascending order, with the same values (copies that a re-balance
//     cut short left behind must stay out of sight);
//   * Verify() is clean;
//   * recovering again (after a clean close, and after a crash *during*
//     recovery) gives the same contents.
//
// Every persist point of a workload can be explored (Exhaustive) or a
// random sample of them (Sampled). Counts are reported so that test output
// says how many crash states were examined.
//
// Records of any size: an Op names its key and value by a 64-bit word plus
// a size; KeyBytes()/ValueBytes() turn them into bytes deterministically
// (size 8 gives the word itself, so 8/8 workloads are what they always
// were). The oracle compares the bytes, so keys of different ids that map
// to the same bytes (e.g. every empty key) are simply the same key.

#ifndef PLUSH_TESTS_CRASH_EXPLORER_H_
#define PLUSH_TESTS_CRASH_EXPLORER_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plush/db.h"
#include "sim_pool.h"

namespace plush::test {

struct Op {
  // kUpdate is a read-modify-write (UpdateWithExpiry) whose decision
  // depends on the key's current value and expiry: see DecideUpdate().
  // kCheckpoint calls Checkpoint(1) and kRebalance calls Rebalance() (range
  // pools: moves key ranges between units); neither changes a key (key,
  // value unused).
  enum class Kind { kPut, kDelete, kUpdate, kCheckpoint, kRebalance } kind;
  uint64_t key;
  uint64_t value;           // for kPut
  uint32_t key_size = 8;    // bytes of KeyBytes(key, key_size)
  uint32_t value_size = 8;  // kPut, kUpdate: bytes of the values written
  bool sync = false;        // kPut, kDelete, kUpdate: WriteOptions::sync
  // kPut, kDelete, kUpdate: WriteOptions::caller_syncs, and whether the
  // op then calls DB::Sync() (as plush-server does before it answers): the
  // op is acknowledged once that returns.
  bool caller_syncs = false;
  bool then_sync = false;
  uint64_t expires_at_ms = 0;  // kPut, kUpdate: the expiry written
};

// The time on the clock every explorer's DB runs with (Options::clock): a
// put with an expiry at or after it is present, one before it expired.
inline constexpr uint64_t kExplorerNowMs = 1'800'000'000'000;

// Whether `op` writes its key (a put, a delete or an update), as opposed
// to work that changes no key (a checkpoint, a re-balance).
inline bool WritesKey(const Op& op) {
  return op.kind == Op::Kind::kPut || op.kind == Op::Kind::kDelete ||
         op.kind == Op::Kind::kUpdate;
}

// The key and value bytes an Op stands for. Size 8 gives the word itself
// (little-endian, like Word()); other sizes give `size` bytes drawn from a
// generator seeded by the word and the size.
std::string KeyBytes(uint64_t key, uint32_t size);
std::string ValueBytes(uint64_t value, uint32_t size);
std::string KeyBytes(const Op& op);

// `n` random operations on keys in [0, key_space): 75% puts, 25% deletes.
std::vector<Op> RandomWorkload(uint64_t n, uint64_t key_space, uint64_t seed);
// `ops` with every third put made a kUpdate (same key, value and expiry).
std::vector<Op> WithUpdates(std::vector<Op> ops);
// `ops` with every other put and delete made a sync write.
std::vector<Op> WithEveryOtherWriteSynced(std::vector<Op> ops);
// `ops` with an expiry on two puts in three: one in the explorer's future
// (the record is there, with its expiry), one in its past (the record
// hides the key as a delete would).
std::vector<Op> WithExpiries(std::vector<Op> ops);

// The smallest payload_chunk_size that DB::Open accepts with `options`
// (powers of two from 4 KiB; 0 if none up to 4 MiB), found by creating
// pools on the sim back end. Lets tests pick chunks that fill quickly.
uint32_t SmallestPayloadChunkSize(Options options);

// `n` random operations with records of all sizes on `key_space` keys.
// Each key id has one key size for the whole workload: id 0 is the empty
// key, about a third are 8 bytes, 5% are 1024 bytes (kMaxKeySize), the
// rest 1..64 bytes. Half the operations go to the first quarter of the key
// ids (so that GC finds live records to move in old chunks). Puts (~75%)
// draw value sizes: 8% empty, 32% exactly 8 (so that 8-byte keys switch
// between inline 8/8 records and payload records), 40% 1..600 bytes, 20%
// 0..max_value bytes. Deletes ~22%; with checkpoints, about 1 op in 100 is
// a kCheckpoint.
std::vector<Op> RandomVarlenWorkload(uint64_t n, uint64_t key_space,
                                     uint64_t seed, uint32_t max_value = 4096,
                                     bool checkpoints = true);

// Pools for crash tests. Crash exploration replays one run persist point
// by persist point, so their persist sequence must not depend on timing:
// none has background threads (Options::background_threads), except where
// a test sets them to crash them. SmallCrashPool: the small profile as it
// is otherwise. TinyCrashPool: a tiny table (4 DRAM entries of 32
// slots, fanout 2) and one recovery log of two 4 KiB chunks, so that a few
// hundred operations cross migrations into several levels, recursive
// migrations and recycled log chunks. TinyVarlenCrashPool: the same with
// one payload log of the smallest chunks, so that payload GC runs.
Options SmallCrashPool();
Options TinyCrashPool();
Options TinyVarlenCrashPool();
// The largest value for varlen workloads on pool `o`: large enough to fill
// its payload chunks in a few dozen puts, small enough that a 1024-byte key
// with it fits a chunk.
uint32_t MaxVarlenValue(const Options& o);

// The state of one key in an oracle: absent, or holding a value (with an
// expiry, 0 = none).
struct KeyState {
  bool present = false;
  std::string value;
  uint64_t expires_at_ms = 0;
  bool operator==(const KeyState&) const = default;
  std::string ToString() const;
};
// What a kUpdate decides, given the key's current value (null: absent)
// and expiry. Absent keys: a put of the op's value and expiry, or (one in
// three) nothing. Present ones, by the op's value: a delete, nothing, a
// new value drawn from the op and the current value (the expiry kept), or
// the same with the op's expiry. The engine runs it; the oracle too.
struct UpdateDecision {
  DB::UpdateAction action;
  std::string value;           // kPut
  uint64_t expires_at_ms = 0;  // kPut
};
UpdateDecision DecideUpdate(const Op& op, const std::string* current,
                            uint64_t current_expires_at_ms);
// The state `op` leaves its key in, which held `before` (absent after a
// delete; `before` matters only to a kUpdate).
KeyState After(const Op& op, const KeyState& before = KeyState());
// A printable name for a key: its id for 8-byte keys, else its size and
// first word.
std::string KeyName(const std::string& key);

// Restores `image` on the sim device `device`, crashes the recovery that
// opening it starts at one of its first `recovery_points` persist points
// (chosen by `seed`), then recovers again from that post-crash image into
// *db. If the recovery ended before the crash point, returns OK with *db
// empty.
// `internal`: the simulator's options (Simulated(), possibly with a
// deliberately broken recovery for a control).
Status CrashDuringRecovery(const Options& options, const std::string& device,
                           const std::vector<uint64_t>& image,
                           uint64_t recovery_points, uint64_t seed,
                           std::unique_ptr<DB>* db,
                           const InternalOptions& internal = Simulated());

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
  // If `stats` is not null, stores the DB's statistics at the end of that
  // crash-free run (e.g. to show that it garbage-collected payload chunks).
  // If `per_op` is not null, stores how many persist points each operation
  // of the workload passed through (e.g. to show that crashes hit the
  // persist sequences of re-balances).
  uint64_t CountPersistPoints(Stats* stats = nullptr,
                              std::vector<uint64_t>* per_op = nullptr);
  // Crashes at every persist point in [1, CountPersistPoints()].
  ExplorerStats Exhaustive();
  // Crashes at every persist point that falls inside an operation of kind
  // `kind` in the crash-free run (e.g. every persist point of every
  // re-balance of a workload too long to explore in full).
  ExplorerStats ExhaustiveWithin(Op::Kind kind);
  // Crashes at `samples` random persist points.
  ExplorerStats Sampled(uint64_t samples, uint64_t seed);

  // Makes the oracle wrongly treat the operation in flight at the crash as
  // acknowledged. A correct engine then fails some crash states: this is
  // how the explorer proves it can detect a lost write.
  void set_claim_in_flight_acked(bool on) { claim_in_flight_acked_ = on; }

  // The device models a plain file on a disk (InternalOptions::
  // simulate_file): only syncs, and with Options::power_fail_safe the
  // engine's other barriers, make bytes durable. Then only sync writes are
  // acknowledged durable: workloads of sync writes alone.
  void set_simulate_file(bool on) { internal_.simulate_file = on; }

  // Sleeps this long after every operation, so that background threads
  // (Options::background_threads) get to their work between operations
  // and crashes hit them there too. Their timing then varies from run to
  // run: use Sampled(), whose crash points a run may not reach.
  void set_pause_after_each_op(std::chrono::microseconds pause) {
    pause_ = pause;
  }

 private:
  // Runs the workload with a crash armed at point k; returns false if the
  // workload ended before reaching it.
  bool CrashAt(uint64_t k, uint64_t seed, ExplorerStats* stats);
  // Checks the recovered DB against the oracle; returns a failure or "".
  std::string Check(DB* db, size_t acked, const Op* in_flight) const;
  // Range pools: a full scan returns the keys of `found` (what Get found,
  // by key), each once, in order, with the same values; returns a failure
  // or "".
  static std::string CheckScan(DB* db,
                               const std::map<std::string, std::string>& found);

  const Options options_;
  const std::vector<Op> workload_;
  const std::string device_;
  // Every key the oracle reads back: the bytes of every key in the
  // workload, and the 8-byte keys 0..n-1 below the largest 8-byte key id.
  std::vector<std::string> keys_to_check_;
  bool claim_in_flight_acked_ = false;
  InternalOptions internal_ = Simulated();
  std::chrono::microseconds pause_{0};
  // The crash image of the state being explored (one buffer for all).
  std::vector<uint64_t> image_;
};

}  // namespace plush::test

#endif  // PLUSH_TESTS_CRASH_EXPLORER_H_
