// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches are atomic across crashes (write_batch.h): the crash
// simulator stops workloads of batches at persist points, builds post-crash
// images (torn words included), recovers them — also after a crash during
// recovery — and checks that
//
//   * every acknowledged batch (and single write) is there, whole;
//   * the batch in flight at the crash is there whole or not at all;
//   * Verify is clean.
//
// Workloads: 8/8 and variable-length records, hash and range pools, many
// logs (a batch's records belong to DRAM entries of several logs but are
// all written to one), repeated keys within a batch, deletes, single
// writes between batches (so that a key's versions sit in several logs),
// checkpoints; batches that fill one DRAM entry several times over (the
// entry migrates while the batch is inserted: a crash then leaves records
// of later epochs that recovery must place, migrating), and batches too
// large for a log chunk (their members in the spill area, which the next
// such batch reuses, and whose log chunk is recycled). The controls
// recover with a deliberately broken recovery that replays batches
// without their commit: they must fail.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "crash_explorer.h"
#include "placement/key_hash.h"
#include "testutil.h"

namespace plush::test {
namespace {

// A step of a workload: a batch (DB::Write), a single Put/Delete, or a
// checkpoint.
struct Step {
  enum class Kind { kBatch, kSingle, kCheckpoint } kind;
  std::vector<Op> ops;
};

// Groups `ops` into steps: batches of 1..max_batch operations, single
// writes, and the workload's checkpoints.
std::vector<Step> Steps(const std::vector<Op>& ops, size_t max_batch,
                        uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Step> steps;
  for (size_t i = 0; i < ops.size();) {
    if (ops[i].kind == Op::Kind::kCheckpoint) {
      steps.push_back({Step::Kind::kCheckpoint, {}});
      ++i;
      continue;
    }
    if (rng() % 3 == 0) {
      steps.push_back({Step::Kind::kSingle, {ops[i++]}});
      continue;
    }
    Step batch{Step::Kind::kBatch, {}};
    const size_t n = 1 + rng() % max_batch;
    for (; i < ops.size() && batch.ops.size() < n &&
           ops[i].kind != Op::Kind::kCheckpoint;
         ++i) {
      batch.ops.push_back(ops[i]);
    }
    steps.push_back(std::move(batch));
  }
  return steps;
}

Status Apply(DB* db, const Step& step) {
  switch (step.kind) {
    case Step::Kind::kCheckpoint:
      return db->Checkpoint(1);
    case Step::Kind::kSingle: {
      const Op& op = step.ops[0];
      return op.kind == Op::Kind::kPut
                 ? db->Put({}, KeyBytes(op), ValueBytes(op.value, op.value_size))
                 : db->Delete({}, KeyBytes(op));
    }
    case Step::Kind::kBatch: {
      WriteBatch batch;
      for (const Op& op : step.ops) {
        if (op.kind == Op::Kind::kPut) {
          batch.Put(KeyBytes(op), ValueBytes(op.value, op.value_size));
        } else {
          batch.Delete(KeyBytes(op));
        }
      }
      return db->Write({}, &batch);
    }
  }
  return Status::InvalidArgument("bad step");
}

using Model = std::map<std::string, KeyState>;

void ApplyToModel(const Step& step, Model* model) {
  for (const Op& op : step.ops) (*model)[KeyBytes(op)] = After(op);
}

struct Result {
  uint64_t crash_states = 0;
  uint64_t recovery_crash_states = 0;
  uint64_t in_flight_batches = 0;  // crashes inside a batch of > 1 record
  // Of those, the crashes after the batch's commit was durable (it
  // recovered whole): those in its inserts and their migrations.
  uint64_t in_flight_committed = 0;
  // Crash states whose recovery migrated DRAM entries (a batch that filled
  // one more than once had not been inserted whole).
  uint64_t recovery_migrations = 0;
  uint64_t failures = 0;
  std::string first_failure;
};

class BatchCrashExplorer {
 public:
  BatchCrashExplorer(Options options, std::vector<Step> steps,
                     InternalOptions internal = Simulated())
      : options_(std::move(options)),
        steps_(std::move(steps)),
        internal_(internal) {
    for (const Step& s : steps_) {
      for (const Op& op : s.ops) keys_.insert(KeyBytes(op));
    }
  }

  // If `stats` is not null, stores the DB's statistics at the end of the
  // crash-free run.
  uint64_t CountPersistPoints(Stats* stats = nullptr) {
    media::SimMedia::Remove(device_);
    std::unique_ptr<DB> db;
    EXPECT_OK(OpenDB(options_, internal_, device_, &db));
    auto sim = media::SimMedia::Find(device_);
    const uint64_t start = sim->persist_points();
    for (const Step& s : steps_) EXPECT_OK(Apply(db.get(), s));
    const uint64_t points = sim->persist_points() - start;
    if (stats != nullptr) {
      EXPECT_OK(db->GetStats(stats));
    }
    db.reset();
    media::SimMedia::Remove(device_);
    return points;
  }

  // Crashes at every `stride`-th persist point.
  Result Explore(uint64_t stride) {
    Result r;
    const uint64_t points = CountPersistPoints();
    for (uint64_t k = 1; k <= points; k += stride) CrashAt(k, &r);
    media::SimMedia::Remove(device_);
    return r;
  }

 private:
  void CrashAt(uint64_t k, Result* r) {
    media::SimMedia::Remove(device_);
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDB(options_, internal_, device_, &db));
    auto sim = media::SimMedia::Find(device_);
    sim->ArmCrash(k);
    size_t acked = 0;
    for (const Step& s : steps_) {
      const Status st = Apply(db.get(), s);
      if (sim->crashed()) break;
      ASSERT_OK(st);
      ++acked;
    }
    db.reset();
    if (!sim->crashed()) return;
    const Step* in_flight = acked < steps_.size() ? &steps_[acked] : nullptr;
    const bool in_batch = in_flight != nullptr &&
                          in_flight->kind == Step::Kind::kBatch &&
                          in_flight->ops.size() > 1;
    if (in_batch) ++r->in_flight_batches;
    auto fail = [&](const std::string& what) {
      if (r->failures++ == 0) {
        r->first_failure =
            "crash at persist point " + std::to_string(k) + ": " + what;
      }
    };
    sim->CrashImage(k, &image_);
    sim->Restore(image_);
    ++r->crash_states;
    Status s = OpenDB(options_, internal_, device_, &db);
    if (!s.ok()) return fail("recovery failed: " + s.ToString());
    const uint64_t recovery_points = sim->persist_points();
    Stats stats;
    if (db->GetStats(&stats).ok() && stats.migrations > 0)
      ++r->recovery_migrations;
    bool whole = false;
    if (std::string e = Check(db.get(), acked, in_flight, &whole); !e.empty())
      return fail(e);
    if (in_batch && whole) ++r->in_flight_committed;
    db.reset();
    if (recovery_points == 0) return;
    s = CrashDuringRecovery(options_, device_, image_, recovery_points, k, &db,
                            internal_);
    if (!s.ok()) return fail("recovery after a crash in recovery failed");
    if (db == nullptr) return;
    ++r->recovery_crash_states;
    bool whole_again = false;
    if (std::string e = Check(db.get(), acked, in_flight, &whole_again);
        !e.empty()) {
      return fail("after a crash during recovery: " + e);
    }
    if (whole_again != whole) {
      fail("a crash during recovery changed whether the step in flight is "
           "there");
    }
  }

  // The recovered DB equals the model after the acknowledged steps, or
  // after them and the whole step in flight (*with_in_flight: the latter,
  // and not the former).
  std::string Check(DB* db, size_t acked, const Step* in_flight,
                    bool* with_in_flight) const {
    Model before;
    for (size_t i = 0; i < acked; ++i) ApplyToModel(steps_[i], &before);
    Model after = before;
    if (in_flight != nullptr) ApplyToModel(*in_flight, &after);
    std::string first_diff_before;
    std::string first_diff_after;
    for (const std::string& key : keys_) {
      std::string value;
      const Status s = db->Get({}, key, &value);
      if (!s.ok() && !s.IsNotFound())
        return "Get(" + KeyName(key) + "): " + s.ToString();
      const KeyState got{s.ok(), s.ok() ? value : std::string()};
      auto want = [&](const Model& m) {
        auto it = m.find(key);
        return it == m.end() ? KeyState{} : it->second;
      };
      if (first_diff_before.empty() && got != want(before)) {
        first_diff_before = "key " + KeyName(key) + " is " + got.ToString() +
                            ", not " + want(before).ToString();
      }
      if (first_diff_after.empty() && got != want(after)) {
        first_diff_after = "key " + KeyName(key) + " is " + got.ToString() +
                           ", not " + want(after).ToString();
      }
    }
    if (!first_diff_before.empty() && !first_diff_after.empty()) {
      return "neither the state after " + std::to_string(acked) +
             " acknowledged steps (" + first_diff_before +
             ") nor the one with the step in flight (" + first_diff_after +
             ")";
    }
    *with_in_flight = !first_diff_before.empty();
    std::string report;
    const Status v = db->Verify(&report);
    if (!v.ok()) return "Verify: " + v.ToString() + "\n" + report;
    return "";
  }

  const Options options_;
  const std::vector<Step> steps_;
  const InternalOptions internal_;
  const std::string device_ = "crash_batch_" + std::to_string(getpid());
  std::set<std::string> keys_;
  // The crash image of the state being explored (one buffer for all).
  std::vector<uint64_t> image_;
};

// A hash pool of 8 DRAM entries and 4 logs: a batch's records belong to
// several logs' entries, and single writes between batches put a key's
// versions in its own log and in others.
Options ManyLogs() {
  Options o = SmallCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 4;
  return o;
}

Options ManyLogsVarlen() {
  Options o = ManyLogs();
  o.payload_log_count = 1;
  o.payload_chunk_size = SmallestPayloadChunkSize(o);
  return o;
}

void ExpectClean(const Result& r, const char* what) {
  std::printf("[crash_batch] %s: %llu crash states (%llu inside a batch), "
              "%llu crashed again during recovery, %llu failures\n",
              what, static_cast<unsigned long long>(r.crash_states),
              static_cast<unsigned long long>(r.in_flight_batches),
              static_cast<unsigned long long>(r.recovery_crash_states),
              static_cast<unsigned long long>(r.failures));
  EXPECT_EQ(r.failures, 0u) << r.first_failure;
  EXPECT_GT(r.in_flight_batches, 10u) << "crashes must hit batches";
}

TEST(CrashBatchTest, EveryPersistPointOfBatchesOnManyLogs) {
  const auto steps = Steps(RandomWorkload(Soak() ? 6000 : 900, 120,
      SoakSeed(21)), 12, SoakSeed(1));
  ExpectClean(BatchCrashExplorer(ManyLogs(), steps).Explore(1),
              "8/8, 4 logs");
}

// A power-fail-safe pool file (the simulator's model of one): every batch
// is synced, and an acknowledged one survives whole.
TEST(CrashBatchTest, BatchesOnAPowerFailSafeFile) {
  Options o = ManyLogsVarlen();
  o.power_fail_safe = true;
  InternalOptions file = Simulated();
  file.simulate_file = true;
  const auto steps = Steps(
      RandomVarlenWorkload(Soak() ? 3000 : 450, 80, SoakSeed(24),
          MaxVarlenValue(o) / 4),
      10, 4);
  ExpectClean(BatchCrashExplorer(o, steps, file).Explore(1),
              "varlen, power-fail-safe file");
}

TEST(CrashBatchTest, VariableLengthBatches) {
  const Options o = ManyLogsVarlen();
  const auto steps = Steps(
      RandomVarlenWorkload(Soak() ? 3000 : 450, 80, SoakSeed(22),
          MaxVarlenValue(o) / 4),
      10, 2);
  ExpectClean(BatchCrashExplorer(o, steps).Explore(1),
              "varlen, 4 logs");
}

TEST(CrashBatchTest, RangePoolBatches) {
  Options o = ManyLogsVarlen();
  o.partitioning = Partitioning::kRange;
  const auto steps = Steps(
      RandomVarlenWorkload(Soak() ? 2500 : 400, 60, SoakSeed(23),
          MaxVarlenValue(o) / 4),
      10, 3);
  ExpectClean(BatchCrashExplorer(o, steps).Explore(1),
              "range pool, varlen");
}

// ---- Batches that fill a DRAM entry several times over, and batches too
// large for a log chunk (issue 27) ----------------------------------------

// `n` 8-byte key ids, from `first` on, whose keys a hash pool of 2^dram_bits
// DRAM entries places in entry `entry`.
std::vector<uint64_t> KeysOfEntry(unsigned dram_bits, uint64_t entry, size_t n,
                                  uint64_t first = 1) {
  std::vector<uint64_t> keys;
  for (uint64_t k = first; keys.size() < n; ++k) {
    if ((InlineKeyHash(k) & ((uint64_t{1} << dram_bits) - 1)) == entry)
      keys.push_back(k);
  }
  return keys;
}

Step Batch(std::vector<Op> ops) { return {Step::Kind::kBatch, std::move(ops)}; }
Step Single(Op op) { return {Step::Kind::kSingle, {op}}; }
Op Put(uint64_t key, uint64_t value) { return {Op::Kind::kPut, key, value}; }
Op Del(uint64_t key) { return {Op::Kind::kDelete, key, 0}; }

// Batches of 120-130 records into one DRAM entry of 32 that already holds
// records (so the batch fills it 4 times and more), with records for other
// entries, overwrites and deletes of the previous batches' keys and
// repeated keys within a batch; single writes and a checkpoint between.
// Each fits one log chunk (167 entries): the entry's limit alone.
std::vector<Step> OverflowingBatches() {
  const std::vector<uint64_t> hot = KeysOfEntry(2, 0, 150);
  const std::vector<uint64_t> cold = KeysOfEntry(2, 1, 10);
  std::vector<Step> steps;
  for (size_t i = 0; i < 10; ++i) steps.push_back(Single(Put(hot[i], 1)));
  std::vector<Op> first;
  for (size_t i = 0; i < 120; ++i) first.push_back(Put(hot[i], 100 + i));
  for (size_t i = 0; i < 6; ++i) first.push_back(Put(cold[i], 100 + i));
  steps.push_back(Batch(first));
  steps.push_back(Single(Put(hot[5], 7777)));
  steps.push_back(Single(Del(hot[6])));
  std::vector<Op> second;
  for (size_t i = 60; i < 150; ++i) second.push_back(Put(hot[i], 200 + i));
  for (size_t i = 0; i < 20; ++i) second.push_back(Del(hot[i]));
  second.push_back(Put(hot[5], 8888));  // after its delete: the later wins
  second.push_back(Put(cold[0], 200));
  steps.push_back(Batch(second));
  steps.push_back({Step::Kind::kCheckpoint, {}});
  std::vector<Op> third;
  for (size_t i = 100; i < 150; ++i) third.push_back(Put(hot[i], 300 + i));
  for (size_t i = 0; i < 40; ++i) third.push_back(Put(hot[i], 300 + i));
  for (size_t i = 0; i < 30; ++i) third.push_back(Del(hot[149 - i]));
  steps.push_back(Batch(third));
  steps.push_back(Single(Put(hot[120], 9999)));
  return steps;
}

// Batches of 250-300 records (a log chunk holds 167: their members go to
// the spill area) over 8 DRAM entries of 32, one of them taking 130 of
// them, on one log of two chunks: the second batch reuses the spill area
// (migrating the entries that still hold the first one's records in DRAM
// only), and the small batches after it fill the log until the chunk of
// its commit is recycled (which migrates its entries).
std::vector<Step> SpilledBatches() {
  const std::vector<uint64_t> hot = KeysOfEntry(3, 0, 130);
  std::vector<uint64_t> spread;
  for (uint64_t k = 1000; spread.size() < 200; ++k) spread.push_back(k);
  std::vector<Step> steps;
  for (size_t i = 0; i < 12; ++i) steps.push_back(Single(Put(spread[i], 1)));
  std::vector<Op> first;
  for (size_t i = 0; i < 170; ++i) first.push_back(Put(spread[i], 100 + i));
  for (size_t i = 0; i < 130; ++i) first.push_back(Put(hot[i], 100 + i));
  steps.push_back(Batch(first));
  for (size_t i = 0; i < 20; ++i)
    steps.push_back(Single(Put(spread[i * 7 % 200], 150 + i)));
  std::vector<Op> second;
  for (size_t i = 100; i < 200; ++i) second.push_back(Put(spread[i], 200 + i));
  for (size_t i = 0; i < 130; i += 2) second.push_back(Put(hot[i], 200 + i));
  for (size_t i = 0; i < 60; ++i) second.push_back(Del(spread[i]));
  second.push_back(Put(spread[3], 2003));  // after its delete: the later wins
  steps.push_back(Batch(second));
  for (size_t b = 0; b < 32; ++b) {
    std::vector<Op> small;
    for (size_t i = 0; i < 10; ++i)
      small.push_back(Put(spread[(b * 10 + i) % 200], 300 + b));
    steps.push_back(Batch(small));
  }
  return steps;
}

Options OneLogOfTwoChunks() {
  Options o = SmallCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 1;
  o.log_chunks_per_log = 2;
  return o;
}

void ExpectCleanCommittedCrashes(const Result& r, const char* what) {
  ExpectClean(r, what);
  std::printf("[crash_batch] %s: %llu crashes after a batch's commit, %llu "
              "recoveries that migrated\n",
              what, static_cast<unsigned long long>(r.in_flight_committed),
              static_cast<unsigned long long>(r.recovery_migrations));
  EXPECT_GT(r.in_flight_committed, 10u)
      << "crashes must hit the batches' inserts and migrations";
  EXPECT_GT(r.recovery_migrations, 0u)
      << "crashes must leave batches that recovery inserts, migrating";
}

TEST(CrashBatchTest, EveryPersistPointOfBatchesOverflowingAnEntry) {
  ExpectCleanCommittedCrashes(
      BatchCrashExplorer(SmallCrashPool(), OverflowingBatches()).Explore(1),
      "overflowing one entry");
}

TEST(CrashBatchTest, EveryPersistPointOfBatchesSpanningLogChunks) {
  BatchCrashExplorer explorer(OneLogOfTwoChunks(), SpilledBatches());
  Stats stats;
  explorer.CountPersistPoints(&stats);
  // The spill area was reused and the chunk of a spilled commit recycled:
  // both migrate entries that still hold a spilled batch's records.
  EXPECT_GT(stats.log_forced_migrations, 0u);
  EXPECT_GT(stats.log_compactions, 0u);
  ExpectCleanCommittedCrashes(explorer.Explore(1), "spilled");
}

// The overflowing and spilled batches again, with the broken recovery:
// the explorer must see the parts it replays.
TEST(CrashBatchTest, ControlReplayingUncommittedLargeBatchesFails) {
  InternalOptions broken = Simulated();
  broken.replay_uncommitted_batches = true;
  const Result overflowing =
      BatchCrashExplorer(SmallCrashPool(), OverflowingBatches(), broken)
          .Explore(1);
  const Result spilled =
      BatchCrashExplorer(OneLogOfTwoChunks(), SpilledBatches(), broken)
          .Explore(1);
  std::printf("[crash_batch] control: %llu + %llu failures\n",
              static_cast<unsigned long long>(overflowing.failures),
              static_cast<unsigned long long>(spilled.failures));
  EXPECT_GT(overflowing.failures, 0u) << "no partial overflowing batch seen";
  EXPECT_GT(spilled.failures, 0u) << "no partial spilled batch seen";
}

// The control: a recovery that replays batches without their commit must
// be caught leaving part of a batch.
TEST(CrashBatchTest, ControlReplayingUncommittedBatchesFails) {
  InternalOptions broken = Simulated();
  broken.replay_uncommitted_batches = true;
  const auto steps = Steps(RandomWorkload(300, 100, 24), 12, 4);
  const Result r = BatchCrashExplorer(ManyLogs(), steps, broken).Explore(1);
  std::printf("[crash_batch] control: %llu crash states, %llu failures\n",
              static_cast<unsigned long long>(r.crash_states),
              static_cast<unsigned long long>(r.failures));
  EXPECT_GT(r.failures, 0u) << "the explorer cannot see a partial batch";
}

}  // namespace
}  // namespace plush::test
