// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Simulated power failures (crash_explorer.h) at the persist points of
// re-balances of range pools (DB::Rebalance; db/range_rebalancer.h lists a
// move's persist order and why a crash anywhere in it loses nothing):
// merges of light neighbours, splits at the median (both halves copied to
// freed units, the unit cleared), splits of keys that keep growing (a free
// unit takes the keys above, nothing copied) or falling (below), with
// inline 8/8 records and payload records (the copies' payload entries,
// compacted afterwards).
//
// The pools have no background threads, so a run's persist points do not
// depend on timing: re-balances happen exactly where the workload has a
// kRebalance. Small workloads are explored at every persist point
// (Exhaustive), longer ones at every persist point inside their
// re-balances (ExhaustiveWithin) or at a sample; each crash state is
// crashed again during its recovery. On range pools the explorer
// also compares a full scan with what Get finds: copies that a move left
// behind (in the unit it copied to, before the switch; in the unit it
// copied from, after) must never show.
//
// The explorer's 8-byte keys are little-endian words: ids below 256 differ
// in their first byte only, so they ascend in key order with the id. The
// pools are created with a key sample above them, which leaves every id
// below 249 on unit 0: re-balancing must split it, again and again.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "crash_explorer.h"
#include "testutil.h"

namespace plush::test {
namespace {

// The smallest id that is not on unit 0 when the pool is created.
constexpr uint64_t kCrowdedIds = 0xf9;

// 8 units: splitting a unit at its median takes two free units, which a
// map that names every unit gets by merging light neighbours (4 units
// leave too few pairs beside the heavy one). The map starts split at the
// sample's quantiles, ids 0xf9..0xff: every id below kCrowdedIds is on
// unit 0.
Options RebalancingCrashPool(Options o = TinyCrashPool()) {
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = 3;
  for (uint64_t id = kCrowdedIds - 1; id <= 0xff; ++id)
    o.range_key_sample.push_back(KeyBytes(id, 8));
  return o;
}

// `ops` with a kRebalance after every `every` operations, and one at the
// end.
std::vector<Op> WithRebalances(const std::vector<Op>& ops, size_t every) {
  std::vector<Op> out;
  for (size_t i = 0; i < ops.size(); ++i) {
    out.push_back(ops[i]);
    if ((i + 1) % every == 0 || i + 1 == ops.size())
      out.push_back({Op::Kind::kRebalance, 0, 0});
  }
  return out;
}

// Keys that keep growing: puts of ids 0, 1, 2, ... (ascending in key
// order, below 256), with overwrites and deletes of recent ones now and
// then, so that not every split is of keys that only grow.
std::vector<Op> GrowingWorkload(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  uint64_t next = 0;
  for (uint64_t i = 0; i < n && next < kCrowdedIds; ++i) {
    const unsigned dice = rng() % 10;
    if (dice < 7 || next < 8) {
      ops.push_back({Op::Kind::kPut, next++, rng()});
    } else if (dice < 9) {
      ops.push_back({Op::Kind::kPut, next - 1 - rng() % 8, rng()});
    } else {
      ops.push_back({Op::Kind::kDelete, next - 1 - rng() % 8, 0});
    }
  }
  return ops;
}

// Keys that keep falling: puts of 12-byte keys (payload records, whose
// slots hold fingerprints) of ids kCrowdedIds - 1, ..., 1, 0 (descending in
// key order), with overwrites and deletes of recent ones now and then.
std::vector<Op> FallingWorkload(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  uint64_t next = kCrowdedIds;  // one above the next id
  for (uint64_t i = 0; i < n && next > 0; ++i) {
    const unsigned dice = rng() % 10;
    const uint64_t recent = std::min(next + rng() % 8, kCrowdedIds - 1);
    if (dice < 7 || next + 8 > kCrowdedIds) {
      ops.push_back({Op::Kind::kPut, --next, rng(), 12, 8});
    } else if (dice < 9) {
      ops.push_back({Op::Kind::kPut, recent, rng(), 12, 8});
    } else {
      ops.push_back({Op::Kind::kDelete, recent, 0, 12, 0});
    }
  }
  return ops;
}

// A hot spot that moves: phases of writes to 12-byte keys (payload
// records) that share their first byte, a new one each phase, each phase
// ended by a re-balance. The unit of each phase's byte becomes heavy and
// is split, taking free units from merges of the units earlier phases
// left light. (Ids b + 256 j: KeyBytes() leads with the id's little-endian
// word, so the first byte is b.)
std::vector<Op> ShiftingHotSpotWorkload(uint64_t phases, uint64_t per_phase,
                                        uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  for (uint64_t phase = 0; phase < phases; ++phase) {
    const uint64_t b = rng() % 256;
    for (uint64_t i = 0; i < per_phase; ++i) {
      const uint64_t id = b + 256 * (rng() % 64);
      if (rng() % 5 == 0) {
        ops.push_back({Op::Kind::kDelete, id, 0, 12, 0});
      } else {
        ops.push_back({Op::Kind::kPut, id, rng(), 12, 8});
      }
    }
    ops.push_back({Op::Kind::kRebalance, 0, 0});
  }
  return ops;
}

// The persist points of the crash-free run that fall inside re-balances.
uint64_t RebalancePoints(const std::vector<Op>& workload,
                         const std::vector<uint64_t>& per_op) {
  uint64_t points = 0;
  for (size_t i = 0; i < workload.size() && i < per_op.size(); ++i) {
    if (workload[i].kind == Op::Kind::kRebalance) points += per_op[i];
  }
  return points;
}

void Report(const char* name, const ExplorerStats& s, const Stats& run,
            uint64_t rebalance_points) {
  std::printf(
      "[crash] %s: %llu persist points (%llu inside re-balances), %llu "
      "crash states explored (%llu with a second crash during recovery), "
      "%llu failures; the crash-free run: %llu changes of the range map, "
      "%llu migrations, %llu payload GC runs\n",
      name, static_cast<unsigned long long>(s.persist_points),
      static_cast<unsigned long long>(rebalance_points),
      static_cast<unsigned long long>(s.crash_states),
      static_cast<unsigned long long>(s.recovery_crash_states),
      static_cast<unsigned long long>(s.failures),
      static_cast<unsigned long long>(run.range_rebalances),
      static_cast<unsigned long long>(run.migrations),
      static_cast<unsigned long long>(run.payload_gc_runs));
}

// The crash-free run of `workload` re-balances (the test would prove
// nothing otherwise): stores its stats and the persist points inside
// re-balances.
void ExpectRebalances(CrashExplorer* explorer, const std::vector<Op>& workload,
                      Stats* run, uint64_t* rebalance_points) {
  std::vector<uint64_t> per_op;
  ASSERT_GT(explorer->CountPersistPoints(run, &per_op), 0u)
      << "the crash-free run of the workload failed";
  EXPECT_GT(run->range_rebalances, 0u) << "no re-balance moved anything";
  *rebalance_points = RebalancePoints(workload, per_op);
  EXPECT_GT(*rebalance_points, 0u);
}

// A crash at every persist point of `workload` on a re-balancing pool
// (each crashed again during recovery): every state recovers as the
// oracle says. *stats: the exploration's.
void ExpectEveryPersistPointRecovered(const std::vector<Op>& workload,
                                      const char* what, ExplorerStats* stats,
                                      bool power_fail_safe_file = false) {
  Options o = RebalancingCrashPool();
  o.power_fail_safe = power_fail_safe_file;
  CrashExplorer explorer(o, workload);
  explorer.set_simulate_file(power_fail_safe_file);
  Stats run;
  uint64_t rebalance_points = 0;
  ASSERT_NO_FATAL_FAILURE(
      ExpectRebalances(&explorer, workload, &run, &rebalance_points));
  *stats = explorer.Exhaustive();
  Report(what, *stats, run, rebalance_points);
  EXPECT_EQ(stats->crash_states, stats->persist_points);
  EXPECT_EQ(stats->failures, 0u) << stats->first_failure;
}

// Random puts and deletes of 30 keys, all on unit 0: each Rebalance()
// merges light neighbours and splits unit 0's keys at their median, with
// copies of inline records and tombstones.
TEST(CrashRebalanceTest, EveryPersistPointOfSplitsAtTheMedian) {
  ExplorerStats stats;
  ASSERT_NO_FATAL_FAILURE(ExpectEveryPersistPointRecovered(
      WithRebalances(RandomWorkload(Soak() ? 1200 : 120, 30, SoakSeed(31)), 20),
      "re-balances at the median, exhaustive", &stats));
  EXPECT_GT(stats.recovery_crash_states, 0u);
}

// The same on a power-fail-safe pool file (the simulator's model of one):
// a re-balance's copies and its range map change reach the file in the
// order their barriers (msyncs) set.
TEST(CrashRebalanceTest, EveryPersistPointOfSplitsOnAPowerFailSafeFile) {
  ExplorerStats stats;
  ASSERT_NO_FATAL_FAILURE(ExpectEveryPersistPointRecovered(
      WithRebalances(RandomWorkload(Soak() ? 1200 : 120, 30, SoakSeed(38)), 20),
      "re-balances on a power-fail-safe file, exhaustive", &stats,
      /*power_fail_safe_file=*/true));
}

// Keys that keep growing: splits that give the keys above a unit's to a
// free unit, and merges, interleaved with writes to the newest keys.
TEST(CrashRebalanceTest, EveryPersistPointOfSplitsOfGrowingKeys) {
  ExplorerStats stats;
  ASSERT_NO_FATAL_FAILURE(ExpectEveryPersistPointRecovered(
      WithRebalances(GrowingWorkload(Soak() ? 1000 : 120, SoakSeed(32)), 15),
      "re-balances of growing keys, exhaustive", &stats));
}

// Keys that keep falling: splits that give the keys below a unit's to a
// free unit (the unit's range then begins above where its fingerprints
// were taken), and merges, interleaved with writes to the newest keys.
TEST(CrashRebalanceTest, EveryPersistPointOfSplitsOfFallingKeys) {
  ExplorerStats stats;
  ASSERT_NO_FATAL_FAILURE(ExpectEveryPersistPointRecovered(
      WithRebalances(FallingWorkload(Soak() ? 1000 : 120, SoakSeed(35)), 15),
      "re-balances of falling keys, exhaustive", &stats));
}

// A hot spot that moves from unit to unit: merges, splits and reassigns
// of payload records, a crash at every persist point of every re-balance.
TEST(CrashRebalanceTest, EveryPersistPointOfRebalancesFollowingAHotSpot) {
  const std::vector<Op> workload =
      ShiftingHotSpotWorkload(Soak() ? 60 : 12, 60, SoakSeed(37));
  CrashExplorer explorer(RebalancingCrashPool(), workload);
  Stats run;
  uint64_t rebalance_points = 0;
  ASSERT_NO_FATAL_FAILURE(
      ExpectRebalances(&explorer, workload, &run, &rebalance_points));
  const ExplorerStats stats = explorer.ExhaustiveWithin(Op::Kind::kRebalance);
  Report("re-balances following a hot spot", stats, run, rebalance_points);
  EXPECT_EQ(stats.crash_states, rebalance_points);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// Records of every size (crash_explorer.h, RandomVarlenWorkload): moves
// copy payload records into new payload entries, which compaction of the
// tiny payload chunks then relocates or frees. Random persist points of
// the whole workload, and every persist point of its re-balances.
TEST(CrashRebalanceTest, SampledPersistPointsOfVarlenRebalances) {
  const Options o = RebalancingCrashPool(TinyVarlenCrashPool());
  ASSERT_GT(o.payload_chunk_size, 0u);
  const std::vector<Op> workload = WithRebalances(
      RandomVarlenWorkload(Soak() ? 3000 : 1000, 60, SoakSeed(33),
          MaxVarlenValue(o)),
      40);
  CrashExplorer explorer(o, workload);
  Stats run;
  uint64_t rebalance_points = 0;
  ASSERT_NO_FATAL_FAILURE(
      ExpectRebalances(&explorer, workload, &run, &rebalance_points));
  EXPECT_GT(run.payload_gc_runs, 0u) << "the workload must garbage-collect";
  const ExplorerStats stats = explorer.Sampled(Soak() ? 1500 : 60,
      SoakSeed(34));
  Report("varlen re-balances, sampled", stats, run, rebalance_points);
  EXPECT_GT(stats.crash_states, 40u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  const ExplorerStats within = explorer.ExhaustiveWithin(Op::Kind::kRebalance);
  Report("varlen re-balances, every persist point of each", within, run,
         rebalance_points);
  EXPECT_EQ(within.crash_states, rebalance_points);
  EXPECT_EQ(within.failures, 0u) << within.first_failure;
}

// The units of ids kCrowdedIds..0xff hold records that had expired when
// they were written (before the explorer's clock), some of them on PMem
// (a checkpoint), some in DRAM, and one unit also a record that expires
// later. The re-balance that splits unit 0 takes its free units from a
// run of the vacant ones: cleared whole, expired records and all
// (RangeRebalancer::FreeEmptyRun), while the unit with the live record
// keeps it. A crash anywhere loses no live record and shows no expired
// one.
TEST(CrashRebalanceTest, EveryPersistPointOfClearingUnitsWhoseRecordsExpired) {
  auto expired_put = [](uint64_t id) {
    Op put{Op::Kind::kPut, id, id, 12, 8};
    put.expires_at_ms = kExplorerNowMs - 1;
    return put;
  };
  std::vector<Op> workload;
  for (uint64_t id = kCrowdedIds; id <= 0xff; ++id)
    workload.push_back(expired_put(id));
  workload.push_back({Op::Kind::kCheckpoint, 0, 0});
  for (uint64_t id = kCrowdedIds; id <= 0xff; id += 2)
    workload.push_back(expired_put(id + 256));  // on the same units
  Op later{Op::Kind::kPut, 0xfc + 512, 7, 12, 8};  // on 0xfc's unit
  later.expires_at_ms = kExplorerNowMs + 1000;
  workload.push_back(later);
  for (uint64_t id = 0; id < 30; ++id)
    workload.push_back({Op::Kind::kPut, id, id * 3});
  workload.push_back({Op::Kind::kRebalance, 0, 0});
  CrashExplorer explorer(RebalancingCrashPool(), workload);
  Stats run;
  uint64_t rebalance_points = 0;
  ASSERT_NO_FATAL_FAILURE(
      ExpectRebalances(&explorer, workload, &run, &rebalance_points));
  uint64_t cleared = 0;
  for (const auto& [name, value] : run.more_counts) {
    if (name == "expired_units_cleared") cleared = value;
  }
  EXPECT_GE(cleared, 2u) << "the split took no unit of expired records";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("clearing units whose records expired", stats, run,
         rebalance_points);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// Payload compaction that meets the records of a unit whose records all
// expired empties the unit whole (LeveledTable::ClearExpiredUnit) rather
// than copy their keys: unit 0's records expired when written, and writes
// to the other units rotate the one payload log. A crash anywhere loses
// no live record and shows no expired one.
TEST(CrashRebalanceTest, EveryPersistPointOfCompactionEmptyingAnExpiredUnit) {
  const Options o = RebalancingCrashPool(TinyVarlenCrashPool());
  const uint32_t value_size = MaxVarlenValue(o);  // 8 a chunk
  std::vector<Op> workload;
  for (uint64_t id = 0; id < 16; ++id) {
    Op put{Op::Kind::kPut, id, id, 12, value_size};
    put.expires_at_ms = kExplorerNowMs - 1;
    workload.push_back(put);
  }
  for (uint64_t i = 0; i < 48; ++i) {
    workload.push_back(
        {Op::Kind::kPut, kCrowdedIds + i % 7, i, 12, value_size});
  }
  CrashExplorer explorer(o, workload);
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u)
      << "the crash-free run of the workload failed";
  uint64_t cleared = 0;
  for (const auto& [name, value] : run.more_counts) {
    if (name == "expired_units_cleared") cleared = value;
  }
  EXPECT_GE(cleared, 1u) << "compaction emptied no unit";
  EXPECT_EQ(run.payload_gc_moved, 0u) << "expired keys were copied";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("compaction emptying an expired unit", stats, run, 0);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// The explorer must be able to fail on these workloads too: with an oracle
// that counts the operation in flight at the crash as acknowledged, the
// crashes before a write's log entry is durable are reported.
TEST(CrashRebalanceTest, ExplorerDetectsALostWrite) {
  const std::vector<Op> workload =
      WithRebalances(RandomWorkload(80, 30, 31), 20);
  CrashExplorer explorer(RebalancingCrashPool(), workload);
  explorer.set_claim_in_flight_acked(true);
  Stats run;
  uint64_t rebalance_points = 0;
  ASSERT_NO_FATAL_FAILURE(
      ExpectRebalances(&explorer, workload, &run, &rebalance_points));
  const ExplorerStats stats = explorer.Exhaustive();
  Report("re-balances, deliberately wrong oracle", stats, run,
         rebalance_points);
  EXPECT_GT(stats.failures, 0u);
}

}  // namespace
}  // namespace plush::test
