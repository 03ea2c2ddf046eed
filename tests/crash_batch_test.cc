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
// checkpoints. The control recovers with a deliberately broken recovery
// that replays batches without their commit: it must fail.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "crash_explorer.h"
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

  uint64_t CountPersistPoints() {
    media::SimMedia::Remove(device_);
    std::unique_ptr<DB> db;
    EXPECT_OK(OpenDB(options_, internal_, device_, &db));
    auto sim = media::SimMedia::Find(device_);
    const uint64_t start = sim->persist_points();
    for (const Step& s : steps_) EXPECT_OK(Apply(db.get(), s));
    const uint64_t points = sim->persist_points() - start;
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
    if (in_flight != nullptr && in_flight->kind == Step::Kind::kBatch &&
        in_flight->ops.size() > 1) {
      ++r->in_flight_batches;
    }
    auto fail = [&](const std::string& what) {
      if (r->failures++ == 0) {
        r->first_failure =
            "crash at persist point " + std::to_string(k) + ": " + what;
      }
    };
    const std::vector<uint64_t> image = sim->CrashImage(k);
    sim->Restore(image);
    ++r->crash_states;
    Status s = OpenDB(options_, internal_, device_, &db);
    if (!s.ok()) return fail("recovery failed: " + s.ToString());
    const uint64_t recovery_points = sim->persist_points();
    if (std::string e = Check(db.get(), acked, in_flight); !e.empty())
      return fail(e);
    db.reset();
    if (recovery_points == 0) return;
    s = CrashDuringRecovery(options_, device_, image, recovery_points, k, &db,
                            internal_);
    if (!s.ok()) return fail("recovery after a crash in recovery failed");
    if (db == nullptr) return;
    ++r->recovery_crash_states;
    if (std::string e = Check(db.get(), acked, in_flight); !e.empty())
      fail("after a crash during recovery: " + e);
  }

  // The recovered DB equals the model after the acknowledged steps, or
  // after them and the whole step in flight.
  std::string Check(DB* db, size_t acked, const Step* in_flight) const {
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
  const auto steps = Steps(RandomWorkload(Soak() ? 6000 : 900, 120, 21), 12, 1);
  ExpectClean(BatchCrashExplorer(ManyLogs(), steps).Explore(1),
              "8/8, 4 logs");
}

TEST(CrashBatchTest, VariableLengthBatches) {
  const Options o = ManyLogsVarlen();
  const auto steps = Steps(
      RandomVarlenWorkload(Soak() ? 3000 : 450, 80, 22, MaxVarlenValue(o) / 4),
      10, 2);
  ExpectClean(BatchCrashExplorer(o, steps).Explore(1),
              "varlen, 4 logs");
}

TEST(CrashBatchTest, RangePoolBatches) {
  Options o = ManyLogsVarlen();
  o.partitioning = Partitioning::kRange;
  const auto steps = Steps(
      RandomVarlenWorkload(Soak() ? 2500 : 400, 60, 23, MaxVarlenValue(o) / 4),
      10, 3);
  ExpectClean(BatchCrashExplorer(o, steps).Explore(1),
              "range pool, varlen");
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
