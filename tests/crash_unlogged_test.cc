// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Simulated power failures after unlogged writes (WriteOptions::log =
// false) mixed with logged writes and checkpoints, on the sim back end, with
// 8/8 records and with records of every size (hash-partitioned pools).
//
// The oracle, per key (compared by bytes):
//
//   durable  the state left by its last logged write or by its last write
//            before the last *completed* Checkpoint(), whichever came later
//            (absent if neither);
//   pending  the states written by its unlogged writes after that, and the
//            state of the write in flight at the crash, if any.
//
// After recovery each key must be in one of {durable} ∪ pending: a crash
// may lose unlogged writes, and only them, leaving the key at one of its own
// versions; it never loses an acknowledged logged write or an unlogged write
// that a completed checkpoint covered, and never resurrects a version older
// than the durable one (a deleted key comes back only as a pending version).
// Keys never written are absent; Verify() is clean; and what recovery
// produced stays as it is across a clean reopen and across a checkpoint
// followed by a reopen, and after a second crash during recovery still
// satisfies the oracle.
//
// Crashes happen at persist points (inside a logged write, a migration, a
// log rotation, a payload append, a checkpoint or a backup) and between
// operations (SimMedia::CrashNow: everything acknowledged, nothing in
// flight). Two controls run deliberately wrong oracles and must report
// failures.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "crash_explorer.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::test {
namespace {

// An Op of crash_explorer.h and how it is written.
struct UOp {
  Op op;
  bool logged = true;
  // A checkpoint made by DB::Backup, which migrates unlogged records as
  // Checkpoint does before it copies the pool.
  bool backup = false;
};

// How the oracle treats the workload.
enum class Oracle {
  kCorrect,
  // Wrong: the operation in flight at the crash counts as acknowledged. A
  // crash before a logged write's log entry is durable loses that write
  // legitimately; the check must report it.
  kInFlightAcked,
  // Wrong: unlogged writes count as durable when they return. A crash
  // loses them legitimately; the check must report it.
  kUnloggedAsLogged,
};

// What the oracle knows of one key.
struct History {
  KeyState latest;                // by issue order
  KeyState durable;               // see the file comment
  std::vector<KeyState> pending;  // unlogged (or in flight) since `durable`
  bool Accepts(const KeyState& s) const {
    return s == durable ||
           std::find(pending.begin(), pending.end(), s) != pending.end();
  }
  std::string ToString() const {
    std::string s = "durable " + durable.ToString();
    if (!pending.empty()) {
      s += ", or one of " + std::to_string(pending.size()) +
           " unlogged version(s), the newest " + pending.back().ToString();
    }
    return s;
  }
};

using Histories = std::unordered_map<std::string, History>;

// Applies `u` to the oracle as an acknowledged operation (`durable`: as if
// it were logged, or as if a checkpoint completed).
void Acknowledge(const UOp& u, bool durable, Histories* h) {
  if (u.op.kind == Op::Kind::kCheckpoint) {
    if (!durable) return;  // a checkpoint that did not complete: nothing
    for (auto& [key, history] : *h) {
      history.durable = history.latest;
      history.pending.clear();
    }
    return;
  }
  History& history = (*h)[KeyBytes(u.op)];
  history.latest = After(u.op);
  if (durable) {
    history.durable = history.latest;
    history.pending.clear();
  } else {
    history.pending.push_back(history.latest);
  }
}

Histories BuildOracle(const std::vector<UOp>& workload, size_t acked,
                      const UOp* in_flight, Oracle mode) {
  Histories h;
  for (size_t i = 0; i < acked; ++i) {
    const UOp& u = workload[i];
    Acknowledge(u,
                u.op.kind == Op::Kind::kCheckpoint || u.logged ||
                    mode == Oracle::kUnloggedAsLogged,
                &h);
  }
  if (in_flight != nullptr) {
    // In flight: its effect may or may not be there (a pending version); a
    // checkpoint in flight makes nothing durable (the versions it may have
    // moved are pending already).
    const bool durable =
        mode == Oracle::kInFlightAcked &&
        (in_flight->op.kind == Op::Kind::kCheckpoint || in_flight->logged);
    Acknowledge(*in_flight, durable, &h);
  }
  return h;
}

// DB::Backup into a scratch file, removed again: the explorer crashes in
// the backup's migrations; BackupTest checks what copies hold.
Status BackUp(DB* db) {
  static const ScratchPool copy("crash_unlogged_backup");
  unlink(copy.path().c_str());
  const Status s = db->Backup(copy.path());
  unlink(copy.path().c_str());
  return s;
}

Status Apply(DB* db, const UOp& u) {
  WriteOptions w;
  w.log = u.logged;
  switch (u.op.kind) {
    case Op::Kind::kPut:
      return db->Put(w, KeyBytes(u.op),
                     ValueBytes(u.op.value, u.op.value_size));
    case Op::Kind::kDelete:
      return db->Delete(w, KeyBytes(u.op));
    case Op::Kind::kCheckpoint:
      return u.backup ? BackUp(db) : db->Checkpoint(1);
    case Op::Kind::kRebalance:
      return db->Rebalance();
    case Op::Kind::kUpdate:  // not in these workloads: the oracle has none
      break;
  }
  return Status::InvalidArgument("bad op");
}

// Marks the writes of `ops` logged or unlogged in phases of 20..150
// operations, in turn "logged" (5% of the writes unlogged), "bulk load"
// (85%) and "mixed" (50%); adds a checkpoint after 1% of the operations, and
// ends a bulk-load phase with one half of the time (the documented pattern);
// the second checkpoint is a backup (a copy per crash state costs more).
std::vector<UOp> MarkUnlogged(const std::vector<Op>& ops, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<UOp> out;
  size_t phase_end = 0;
  unsigned unlogged_percent = 0;
  unsigned phase = 0;
  bool bulk = false;
  uint64_t checkpoints = 0;
  auto checkpoint = [&] {
    out.push_back({{Op::Kind::kCheckpoint, 0, 0}, true, checkpoints++ == 1});
  };
  for (const Op& op : ops) {
    if (out.size() >= phase_end) {
      if (bulk && rng() % 2 == 0) checkpoint();
      const unsigned kind = phase++ % 3;
      bulk = kind == 1;
      unlogged_percent = kind == 0 ? 5 : kind == 1 ? 85 : 50;
      phase_end = out.size() + 20 + rng() % 131;
    }
    if (op.kind == Op::Kind::kCheckpoint) {
      checkpoint();
      continue;
    }
    out.push_back({op, rng() % 100 >= unlogged_percent});
    if (rng() % 100 == 0) checkpoint();
  }
  return out;
}

struct RunStats {
  uint64_t persist_points = 0;  // of the crash-free run
  uint64_t crash_states = 0;
  uint64_t at_persist_points = 0;
  uint64_t at_op_boundaries = 0;
  uint64_t recovery_crash_states = 0;
  uint64_t failures = 0;
  std::string first_failure;
  // Over all crash states, keys with unlogged versions pending at the
  // crash: recovered at their newest version, at their durable one (every
  // pending version lost), or at another pending one.
  uint64_t kept_newest = 0;
  uint64_t rolled_back = 0;
  uint64_t kept_older = 0;
};

class UnloggedCrashRunner {
 public:
  UnloggedCrashRunner(Options options, std::vector<UOp> workload,
                      Oracle mode = Oracle::kCorrect)
      : options_([&] {
          return options;
        }()),
        workload_(std::move(workload)),
        mode_(mode),
        device_("crash_unlogged_" + std::to_string(counter_++)) {
    std::set<std::string> keys;
    uint64_t word_keys = 0;
    for (const UOp& u : workload_) {
      if (u.op.kind == Op::Kind::kCheckpoint) continue;
      keys.insert(KeyBytes(u.op));
      if (u.op.key_size == 8) word_keys = std::max(word_keys, u.op.key + 1);
    }
    // Never-written keys: every 8-byte id up to a few past the largest,
    // and keys of other sizes with ids no op uses.
    for (uint64_t k = 0; k < word_keys + 8; ++k) keys.insert(Word(k));
    for (uint32_t j = 0; j < 16; ++j) {
      keys.insert(KeyBytes(1000000 + j, j == 0 ? 1 : j * 29 % 200 + 1));
    }
    keys_.assign(keys.begin(), keys.end());
  }
  ~UnloggedCrashRunner() { media::SimMedia::Remove(device_); }

  // The device simulates a plain file (CrashExplorer::set_simulate_file).
  void set_simulate_file(bool on) { internal_.simulate_file = on; }

  // Persist points of a crash-free run; 0 if the run failed.
  uint64_t CountPersistPoints(Stats* stats = nullptr) {
    media::SimMedia::Remove(device_);
    std::unique_ptr<DB> db;
    if (!OpenDB(options_, internal_, device_, &db).ok()) return 0;
    auto device = media::SimMedia::Find(device_);
    const uint64_t start = device->persist_points();
    for (const UOp& u : workload_) {
      if (!Apply(db.get(), u).ok()) return 0;
    }
    const uint64_t points = device->persist_points() - start;
    if (stats != nullptr && !db->GetStats(stats).ok()) return 0;
    return points;
  }

  // Crashes at `samples` random persist points and after `boundaries`
  // random operations.
  RunStats Sampled(uint64_t samples, uint64_t boundaries, uint64_t seed) {
    RunStats stats;
    stats.persist_points = CountPersistPoints();
    if (stats.persist_points == 0) return Failed("the crash-free run failed");
    std::mt19937_64 rng(seed);
    for (uint64_t i = 0; i < samples; ++i)
      CrashAt(1 + rng() % stats.persist_points, 0, rng(), &stats);
    for (uint64_t i = 0; i < boundaries; ++i)
      CrashAt(0, 1 + rng() % workload_.size(), rng(), &stats);
    return stats;
  }

  // Crashes at every persist point and after every operation.
  RunStats Exhaustive() {
    RunStats stats;
    stats.persist_points = CountPersistPoints();
    if (stats.persist_points == 0) return Failed("the crash-free run failed");
    for (uint64_t k = 1; k <= stats.persist_points; ++k)
      CrashAt(k, 0, k, &stats);
    for (size_t i = 1; i <= workload_.size(); ++i) CrashAt(0, i, i, &stats);
    return stats;
  }

 private:
  static RunStats Failed(const std::string& why) {
    RunStats stats;
    stats.failures = 1;
    stats.first_failure = why;
    return stats;
  }

  // Crashes at persist point `k` (k >= 1), or with CrashNow() after the
  // first `ops` operations (k == 0), recovers and checks.
  void CrashAt(uint64_t k, size_t ops, uint64_t seed, RunStats* stats) {
    const std::string where =
        k != 0 ? "crash at persist point " + std::to_string(k)
               : "crash after op " + std::to_string(ops);
    auto fail = [&](const std::string& what) {
      if (stats->failures++ == 0) {
        stats->first_failure =
            where + " (seed " + std::to_string(seed) + "): " + what;
      }
    };
    media::SimMedia::Remove(device_);
    std::unique_ptr<DB> db;
    Status s = OpenDB(options_, internal_, device_, &db);
    if (!s.ok()) return fail("cannot create the pool: " + s.ToString());
    auto device = media::SimMedia::Find(device_);
    if (k != 0) device->ArmCrash(k);
    size_t acked = 0;
    const UOp* in_flight = nullptr;
    for (const UOp& u : workload_) {
      if (k == 0 && acked == ops) {
        device->CrashNow();
        break;
      }
      s = Apply(db.get(), u);
      if (device->crashed()) {
        in_flight = &u;
        break;
      }
      if (!s.ok()) return fail("workload op failed: " + s.ToString());
      ++acked;
    }
    if (k == 0 && acked == ops) device->CrashNow();  // after the last op
    db.reset();
    if (!device->crashed()) return;  // the workload has fewer points
    ++(k != 0 ? stats->at_persist_points : stats->at_op_boundaries);

    const Histories oracle = BuildOracle(workload_, acked, in_flight, mode_);
    device->CrashImage(seed, &image_);
    device->Restore(image_);
    ++stats->crash_states;
    s = OpenDB(options_, internal_, device_, &db);
    if (!s.ok()) return fail("recovery failed: " + s.ToString());
    const uint64_t recovery_points = device->persist_points();
    std::map<std::string, KeyState> recovered;
    if (std::string e = Check(db.get(), oracle, &recovered, stats); !e.empty())
      return fail(e);

    // What recovery produced is the DB's content now: a clean reopen, and
    // a checkpoint followed by a reopen, must not change it.
    for (const char* step : {"reopen", "checkpoint and reopen"}) {
      if (step[0] == 'c') {
        s = db->Checkpoint(1);
        if (!s.ok()) return fail(std::string(step) + ": " + s.ToString());
      }
      db.reset();
      s = OpenDB(options_, internal_, device_, &db);
      if (!s.ok()) return fail(std::string(step) + ": " + s.ToString());
      if (std::string e = SameAs(db.get(), recovered); !e.empty())
        return fail("after " + std::string(step) + " after recovery: " + e);
    }
    db.reset();

    // A second crash in the middle of recovering from the same image.
    if (recovery_points > 0) {
      s = CrashDuringRecovery(options_, device_, image_, recovery_points, seed,
                              &db, internal_);
      if (!s.ok())
        return fail("recovery after a crash during recovery: " + s.ToString());
      if (db != nullptr) {
        ++stats->recovery_crash_states;
        if (std::string e = Check(db.get(), oracle, nullptr, nullptr);
            !e.empty())
          return fail("after a crash during recovery: " + e);
        db.reset();
      }
    }
  }

  // Checks every key against the oracle and Verify(); stores what it read
  // in *recovered and counts outcomes in *stats (if not null). Returns a
  // failure or "".
  std::string Check(DB* db, const Histories& oracle,
                    std::map<std::string, KeyState>* recovered,
                    RunStats* stats) const {
    static const History kNeverWritten;
    for (const std::string& key : keys_) {
      std::string value;
      const Status s = db->Get({}, key, &value);
      if (!s.ok() && !s.IsNotFound())
        return "Get(" + KeyName(key) + "): " + s.ToString();
      const KeyState got{s.ok(), s.ok() ? value : std::string()};
      auto it = oracle.find(key);
      const History& want = it == oracle.end() ? kNeverWritten : it->second;
      if (!want.Accepts(got)) {
        return "key " + KeyName(key) + ": got " + got.ToString() +
               ", expected " + want.ToString();
      }
      if (recovered != nullptr) (*recovered)[key] = got;
      if (stats != nullptr && !want.pending.empty()) {
        if (got == want.pending.back()) {
          ++stats->kept_newest;
        } else if (got == want.durable) {
          ++stats->rolled_back;
        } else {
          ++stats->kept_older;
        }
      }
    }
    std::string report;
    const Status v = db->Verify(&report);
    if (!v.ok()) return "Verify: " + v.ToString() + "\n" + report;
    return "";
  }

  std::string SameAs(DB* db,
                     const std::map<std::string, KeyState>& recovered) const {
    for (const auto& [key, state] : recovered) {
      std::string value;
      const Status s = db->Get({}, key, &value);
      if (!s.ok() && !s.IsNotFound())
        return "Get(" + KeyName(key) + "): " + s.ToString();
      const KeyState got{s.ok(), s.ok() ? value : std::string()};
      if (!(got == state)) {
        return "key " + KeyName(key) + ": now " + got.ToString() +
               ", recovery gave " + state.ToString();
      }
    }
    std::string report;
    const Status v = db->Verify(&report);
    if (!v.ok()) return "Verify: " + v.ToString() + "\n" + report;
    return "";
  }

  static inline std::atomic<int> counter_{0};
  const Options options_;
  InternalOptions internal_ = Simulated();
  const std::vector<UOp> workload_;
  const Oracle mode_;
  const std::string device_;
  std::vector<std::string> keys_;  // every key the check reads back
  // The crash image of the state being explored (one buffer for all).
  std::vector<uint64_t> image_;
};

void Report(const char* name, const std::vector<UOp>& w, const RunStats& s) {
  uint64_t logged = 0, unlogged = 0, checkpoints = 0, backups = 0;
  for (const UOp& u : w) {
    if (u.op.kind == Op::Kind::kCheckpoint) {
      ++(u.backup ? backups : checkpoints);
    } else {
      ++(u.logged ? logged : unlogged);
    }
  }
  std::printf("[crash] unlogged, %s: %zu ops (%" PRIu64 " logged, %" PRIu64
              " unlogged writes, %" PRIu64 " checkpoints, %" PRIu64
              " backups), %" PRIu64
              " persist points; %" PRIu64 " crash states (%" PRIu64
              " at persist points, %" PRIu64 " between ops, %" PRIu64
              " with a second crash during recovery); keys with unlogged "
              "versions pending: %" PRIu64 " kept the newest, %" PRIu64
              " rolled back to the durable one, %" PRIu64
              " kept an older one; %" PRIu64 " failures\n",
              name, w.size(), logged, unlogged, checkpoints, backups,
              s.persist_points,
              s.crash_states, s.at_persist_points, s.at_op_boundaries,
              s.recovery_crash_states, s.kept_newest, s.rolled_back,
              s.kept_older, s.failures);
}

void ExpectClean(const RunStats& s) {
  EXPECT_EQ(s.failures, 0u) << s.first_failure;
  // The workload must put the oracle's latitude to use: crashes lose
  // unlogged writes and keep others.
  EXPECT_GT(s.rolled_back, 0u);
  EXPECT_GT(s.kept_newest, 0u);
}

// The oracle on a hand-made history, so that its rules are pinned down
// independently of any engine.
TEST(CrashUnloggedTest, OracleRules) {
  auto put = [](uint64_t key, uint64_t value, bool logged) {
    return UOp{{Op::Kind::kPut, key, value}, logged};
  };
  auto del = [](uint64_t key, bool logged) {
    return UOp{{Op::Kind::kDelete, key, 0}, logged};
  };
  const UOp checkpoint{{Op::Kind::kCheckpoint, 0, 0}, true};
  const std::vector<UOp> w = {
      put(1, 10, true),  put(1, 11, false), put(2, 20, false),
      checkpoint,        put(1, 12, false), put(1, 13, true),
      put(1, 14, false), put(1, 15, false), del(2, false),
      put(3, 30, true),  del(3, false),     put(4, 40, false),
      put(5, 50, true),
  };
  const KeyState absent;
  auto value = [](uint64_t v) { return KeyState{true, Word(v)}; };
  const Histories h = BuildOracle(w, w.size(), nullptr, Oracle::kCorrect);
  const History& k1 = h.at(Word(1));
  EXPECT_TRUE(k1.Accepts(value(13)));  // the last logged write
  EXPECT_TRUE(k1.Accepts(value(14)));
  EXPECT_TRUE(k1.Accepts(value(15)));
  EXPECT_FALSE(k1.Accepts(value(12)));  // overwritten by a logged write
  EXPECT_FALSE(k1.Accepts(value(11)));  // covered by the checkpoint
  EXPECT_FALSE(k1.Accepts(value(10)));
  EXPECT_FALSE(k1.Accepts(absent));
  const History& k2 = h.at(Word(2));  // checkpointed, then deleted unlogged
  EXPECT_TRUE(k2.Accepts(value(20)));
  EXPECT_TRUE(k2.Accepts(absent));
  const History& k3 = h.at(Word(3));  // logged, then deleted unlogged
  EXPECT_TRUE(k3.Accepts(value(30)));
  EXPECT_TRUE(k3.Accepts(absent));
  const History& k4 = h.at(Word(4));  // only an unlogged write
  EXPECT_TRUE(k4.Accepts(value(40)));
  EXPECT_TRUE(k4.Accepts(absent));
  const History& k5 = h.at(Word(5));
  EXPECT_TRUE(k5.Accepts(value(50)));
  EXPECT_FALSE(k5.Accepts(absent));
  EXPECT_EQ(h.count(Word(6)), 0u);

  // The logged write of key 5 in flight: either state.
  const Histories f = BuildOracle(w, w.size() - 1, &w.back(), Oracle::kCorrect);
  EXPECT_TRUE(f.at(Word(5)).Accepts(value(50)));
  EXPECT_TRUE(f.at(Word(5)).Accepts(absent));
  // A checkpoint in flight makes nothing durable.
  const Histories c = BuildOracle(w, 3, &w[3], Oracle::kCorrect);
  EXPECT_TRUE(c.at(Word(1)).Accepts(value(10)));
  EXPECT_TRUE(c.at(Word(2)).Accepts(absent));
  // The wrong oracles are stricter.
  EXPECT_FALSE(BuildOracle(w, w.size() - 1, &w.back(), Oracle::kInFlightAcked)
                   .at(Word(5))
                   .Accepts(absent));
  EXPECT_FALSE(BuildOracle(w, w.size(), nullptr, Oracle::kUnloggedAsLogged)
                   .at(Word(1))
                   .Accepts(value(13)));
}

TEST(CrashUnloggedTest, EveryCrashPointOfASmallWorkload) {
  const std::vector<UOp> w =
      MarkUnlogged(RandomWorkload(Soak() ? 1200 : 200, 40, SoakSeed(31)),
          SoakSeed(32));
  UnloggedCrashRunner runner(TinyCrashPool(), w);
  const RunStats stats = runner.Exhaustive();
  Report("8/8 exhaustive", w, stats);
  EXPECT_GT(stats.persist_points, 80u);
  EXPECT_EQ(stats.crash_states, stats.persist_points + w.size());
  EXPECT_GT(stats.recovery_crash_states, 0u);
  ExpectClean(stats);
}

TEST(CrashUnloggedTest, SampledCrashesOfALargerWorkload) {
  Options o = TinyCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 2;
  const std::vector<UOp> w =
      MarkUnlogged(RandomWorkload(Soak() ? 20000 : 4000, 600, SoakSeed(33)),
          SoakSeed(34));
  UnloggedCrashRunner runner(o, w);
  Stats run;
  ASSERT_GT(runner.CountPersistPoints(&run), 0u);
  EXPECT_GT(run.migrations, 50u);
  EXPECT_GT(run.log_forced_migrations + run.log_compactions, 0u);
  const RunStats stats =
      runner.Sampled(Soak() ? 1500 : 120, Soak() ? 1000 : 80, SoakSeed(35));
  Report("8/8 sampled", w, stats);
  EXPECT_GT(stats.crash_states, 150u);
  ExpectClean(stats);
}

TEST(CrashUnloggedTest, VarlenEveryCrashPointOfASmallWorkload) {
  const Options o = TinyVarlenCrashPool();
  ASSERT_GT(o.payload_chunk_size, 0u);
  const std::vector<UOp> w = MarkUnlogged(
      RandomVarlenWorkload(Soak() ? 800 : 150, 24, SoakSeed(36),
          MaxVarlenValue(o)), SoakSeed(37));
  UnloggedCrashRunner runner(o, w);
  const RunStats stats = runner.Exhaustive();
  Report("varlen exhaustive", w, stats);
  EXPECT_EQ(stats.crash_states, stats.persist_points + w.size());
  ExpectClean(stats);
}

TEST(CrashUnloggedTest, VarlenSampledCrashesOfALargerWorkload) {
  Options o = TinyVarlenCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 2;
  o.payload_log_count = 2;
  ASSERT_GT(o.payload_chunk_size, 0u);
  const std::vector<UOp> w = MarkUnlogged(
      RandomVarlenWorkload(Soak() ? 15000 : 3000, 300, SoakSeed(38),
          MaxVarlenValue(o)),
      39);
  UnloggedCrashRunner runner(o, w);
  Stats run;
  ASSERT_GT(runner.CountPersistPoints(&run), 0u);
  EXPECT_GT(run.payload_gc_runs, 0u);
  const RunStats stats =
      runner.Sampled(Soak() ? 1500 : 100, Soak() ? 1000 : 60, SoakSeed(40));
  Report("varlen sampled", w, stats);
  EXPECT_GT(stats.crash_states, 120u);
  ExpectClean(stats);
}

// The small profile as it is (two logs, two payload logs).
TEST(CrashUnloggedTest, VarlenSampledCrashesWithTheSmallProfile) {
  const std::vector<UOp> w =
      MarkUnlogged(RandomVarlenWorkload(Soak() ? 8000 : 2000, 80,
          SoakSeed(41)), SoakSeed(42));
  UnloggedCrashRunner runner(SmallCrashPool(), w);
  const RunStats stats =
      runner.Sampled(Soak() ? 1000 : 60, Soak() ? 600 : 40, SoakSeed(43));
  Report("varlen sampled, small profile", w, stats);
  EXPECT_GT(stats.crash_states, 80u);
  ExpectClean(stats);
}

// A range-partitioned pool: placement by key prefix must not change what
// survives.
TEST(CrashUnloggedTest, VarlenSampledCrashesOnARangePool) {
  Options o = SmallCrashPool();
  o.partitioning = Partitioning::kRange;
  const std::vector<UOp> w =
      MarkUnlogged(RandomVarlenWorkload(Soak() ? 8000 : 2000, 80,
          SoakSeed(48)), SoakSeed(49));
  UnloggedCrashRunner runner(o, w);
  const RunStats stats =
      runner.Sampled(Soak() ? 1000 : 60, Soak() ? 600 : 40, SoakSeed(50));
  Report("varlen sampled, range pool", w, stats);
  EXPECT_GT(stats.crash_states, 80u);
  ExpectClean(stats);
}

// On a power-fail-safe pool file (the device simulating a plain file:
// only syncs make anything durable, and every barrier is one): unlogged
// writes, checkpoints and logged writes mixed, of every size, crashed at
// every persist point and between operations.
TEST(CrashUnloggedTest, EveryCrashPointOnAPowerFailSafeFile) {
  Options o = TinyCrashPool();
  o.power_fail_safe = true;
  const std::vector<UOp> w =
      MarkUnlogged(RandomWorkload(Soak() ? 1200 : 200, 40, SoakSeed(51)),
                   SoakSeed(52));
  UnloggedCrashRunner runner(o, w);
  runner.set_simulate_file(true);
  const RunStats stats = runner.Exhaustive();
  Report("8/8 exhaustive, power-fail-safe file", w, stats);
  EXPECT_GT(stats.persist_points, 80u);
  ExpectClean(stats);

  UnloggedCrashRunner wrong(o, w, Oracle::kInFlightAcked);
  wrong.set_simulate_file(true);
  const RunStats lost = wrong.Exhaustive();
  Report("control on a file: in-flight write claimed acknowledged", w, lost);
  EXPECT_GT(lost.failures, 0u);
}

TEST(CrashUnloggedTest, VarlenEveryCrashPointOnAPowerFailSafeFile) {
  Options o = TinyVarlenCrashPool();
  o.power_fail_safe = true;
  const std::vector<UOp> w = MarkUnlogged(
      RandomVarlenWorkload(Soak() ? 800 : 150, 24, SoakSeed(53),
                           MaxVarlenValue(o)),
      SoakSeed(54));
  UnloggedCrashRunner runner(o, w);
  runner.set_simulate_file(true);
  const RunStats stats = runner.Exhaustive();
  Report("varlen exhaustive, power-fail-safe file", w, stats);
  ExpectClean(stats);
}

// Control: with the write in flight at the crash counted as acknowledged,
// crashes before a logged write's log entry is durable must be reported:
// the check catches a lost logged write.
TEST(CrashUnloggedTest, DetectsALostLoggedWrite) {
  std::vector<UOp> w = MarkUnlogged(RandomWorkload(120, 20, 44), 45);
  // No checkpoints: every failure is then a logged write lost.
  std::erase_if(
      w, [](const UOp& u) { return u.op.kind == Op::Kind::kCheckpoint; });
  UnloggedCrashRunner runner(TinyCrashPool(), w, Oracle::kInFlightAcked);
  const RunStats stats = runner.Exhaustive();
  Report("control: in-flight write claimed acknowledged", w, stats);
  EXPECT_GT(stats.failures, 0u);
  EXPECT_NE(stats.first_failure.find("crash at persist point"),
            std::string::npos)
      << stats.first_failure;
}

// Control: with unlogged writes claimed durable, crashes that lose them
// (between operations: nothing in flight) must be reported.
TEST(CrashUnloggedTest, DetectsALostUnloggedWriteClaimedDurable) {
  const Options o = TinyVarlenCrashPool();
  const std::vector<UOp> w =
      MarkUnlogged(RandomVarlenWorkload(400, 30, 46, MaxVarlenValue(o)), 47);
  UnloggedCrashRunner runner(o, w, Oracle::kUnloggedAsLogged);
  const RunStats stats = runner.Sampled(0, 40, 48);
  Report("control: unlogged writes claimed durable", w, stats);
  EXPECT_GT(stats.failures, 0u);
}

}  // namespace
}  // namespace plush::test
