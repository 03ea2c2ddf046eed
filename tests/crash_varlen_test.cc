// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Simulated power failures at persist points (crash_explorer.h) with
// records of every size: empty and 1024-byte keys, empty, 8-byte and
// multi-KiB values, 8-byte keys switching between inline 8/8 records and
// payload records, checkpoints. The payload logs have a few small chunks so
// that the workloads garbage-collect chunks (a crash may hit a GC half way:
// records moved but their references not yet updated, or a chunk freed) as
// well as migrate DRAM entries and recycle recovery-log chunks.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "crash_explorer.h"
#include "testutil.h"

namespace plush::test {
namespace {

void Report(const char* name, const ExplorerStats& s, const Stats& run) {
  std::printf(
      "[crash] %s: %llu persist points, %llu crash states explored "
      "(%llu with a second crash during recovery), %llu failures; "
      "the crash-free run: %llu migrations, %llu payload chunks, "
      "%llu payload GC runs (%llu records moved)\n",
      name, static_cast<unsigned long long>(s.persist_points),
      static_cast<unsigned long long>(s.crash_states),
      static_cast<unsigned long long>(s.recovery_crash_states),
      static_cast<unsigned long long>(s.failures),
      static_cast<unsigned long long>(run.migrations),
      static_cast<unsigned long long>(run.payload_chunks),
      static_cast<unsigned long long>(run.payload_gc_runs),
      static_cast<unsigned long long>(run.payload_gc_moved));
}

TEST(CrashVarlenTest, EveryPersistPointOfASmallWorkload) {
  const Options o = TinyVarlenCrashPool();
  ASSERT_GT(o.payload_chunk_size, 0u);
  CrashExplorer explorer(
      // Values up to 3x the usual: 300 puts must fill enough chunks to
      // compact some (a log compacts once it has 4 sealed chunks).
      o,
      RandomVarlenWorkload(Soak() ? 1200 : 300, 24, SoakSeed(11),
          3 * MaxVarlenValue(o)));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u)
      << "the crash-free run of the workload failed";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("varlen exhaustive", stats, run);
  EXPECT_GT(stats.persist_points, 300u);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_GT(stats.recovery_crash_states, 0u);
  EXPECT_GT(run.payload_gc_runs, 0u) << "the workload must garbage-collect";
  EXPECT_GT(run.migrations, 0u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// A workload shaped for compaction: cold keys written once (small values,
// some deleted later, so that tombstones are live records too) sit in the
// first chunks while a few hot keys are overwritten with large values.
// Every chunk compaction then relocates the cold records and tombstones,
// over and over: crashes hit relocations (a logged write of the moved
// copy) and chunk frees (the epoch bump) many times.
std::vector<Op> GcHeavyWorkload(const Options& o, uint64_t hot_puts) {
  std::mt19937_64 rng(21);
  std::vector<Op> ops;
  constexpr uint64_t kCold = 40, kHot = 4;
  auto key_size = [](uint64_t k) -> uint32_t {
    return k % 5 == 0 ? 8 : 1 + static_cast<uint32_t>(k * 7 % 60);
  };
  for (uint64_t k = 0; k < kCold; ++k) {
    ops.push_back({Op::Kind::kPut, k, rng(), key_size(k),
                   k % 5 == 0 ? 8 : 50 + static_cast<uint32_t>(rng() % 250)});
  }
  const uint32_t big = o.payload_chunk_size / 12;
  for (uint64_t i = 0; i < hot_puts; ++i) {
    const uint64_t hot = 1000 + rng() % kHot;
    ops.push_back({Op::Kind::kPut, hot, rng(), 24,
                   big / 2 + static_cast<uint32_t>(rng() % big)});
    if (i % 10 == 5) {  // a cold key deleted, or put back
      const uint64_t k = rng() % kCold;
      if (rng() % 2 == 0) {
        ops.push_back({Op::Kind::kDelete, k, 0, key_size(k), 0});
      } else {
        ops.push_back({Op::Kind::kPut, k, rng(), key_size(k), 100});
      }
    }
  }
  return ops;
}

TEST(CrashVarlenTest, EveryPersistPointOfACompactionHeavyWorkload) {
  const Options o = TinyVarlenCrashPool();
  ASSERT_GT(o.payload_chunk_size, 0u);
  CrashExplorer explorer(o, GcHeavyWorkload(o, Soak() ? 600 : 150));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u)
      << "the crash-free run of the workload failed";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("varlen exhaustive, compaction-heavy", stats, run);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_GT(run.payload_gc_runs, 5u);
  EXPECT_GT(run.payload_gc_moved, 50u) << "compactions must relocate";
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// The same on a power-fail-safe pool file: a relocation leaves its barrier
// to the one before its chunk is freed (payload_gc.cc), so a crash before
// that sync may lose relocations, never the records they moved; and the
// chunk is never freed before the relocations are durable.
TEST(CrashVarlenTest, EveryPersistPointOfACompactionOnAPowerFailSafeFile) {
  Options o = TinyVarlenCrashPool();
  o.power_fail_safe = true;
  CrashExplorer explorer(o, GcHeavyWorkload(o, Soak() ? 600 : 150));
  explorer.set_simulate_file(true);
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u)
      << "the crash-free run of the workload failed";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("varlen exhaustive, compaction on a power-fail-safe file", stats,
         run);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_GT(run.payload_gc_moved, 50u) << "compactions must relocate";
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;

  explorer.set_claim_in_flight_acked(true);
  const ExplorerStats wrong = explorer.Sampled(100, SoakSeed(63));
  Report("compaction on a file, deliberately wrong oracle", wrong, run);
  EXPECT_GT(wrong.failures, 0u);
}

TEST(CrashVarlenTest, SampledPersistPointsOfALargerWorkload) {
  Options o = TinyVarlenCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 2;
  o.payload_log_count = 2;
  CrashExplorer explorer(o, RandomVarlenWorkload(Soak() ? 20000 : 4000, 300,
                                                 SoakSeed(12),
                                                 MaxVarlenValue(o)));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u);
  const ExplorerStats stats = explorer.Sampled(Soak() ? 2000 : 120,
      SoakSeed(13));
  Report("varlen sampled", stats, run);
  EXPECT_GT(stats.crash_states, 80u);
  EXPECT_GT(run.payload_gc_runs, 0u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// Records with an expiry — a third of them already expired — through
// migrations (which turn expired records into tombstones and drop those
// that hide nothing) and compactions (which move an expired record's key
// alone), among read-modify-writes (their new values and expiries drawn
// from the current ones): at every persist point, recovery brings back
// each acknowledged record with its expiry, and no expired record's older
// version; the update in flight whole or not at all.
//
// On a power-fail-safe pool file (`file`) every barrier is a sync.
void ExpectWritesAndUpdatesWithExpiryClean(bool file) {
  Options o = TinyVarlenCrashPool();
  ASSERT_GT(o.payload_chunk_size, 0u);
  o.power_fail_safe = file;
  CrashExplorer explorer(
      o, WithUpdates(WithExpiries(RandomVarlenWorkload(
             Soak() ? 1200 : 300, 24, SoakSeed(file ? 64 : 61),
             3 * MaxVarlenValue(o)))));
  explorer.set_simulate_file(file);
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u)
      << "the crash-free run of the workload failed";
  const ExplorerStats stats = explorer.Exhaustive();
  Report(file ? "varlen exhaustive, writes and updates with expiry, on a file"
              : "varlen exhaustive, writes and updates with expiry",
         stats, run);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_GT(run.migrations, 5u);
  EXPECT_GT(run.payload_gc_runs, 0u) << "the workload must garbage-collect";
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;

  explorer.set_claim_in_flight_acked(true);
  const ExplorerStats wrong = explorer.Sampled(100, SoakSeed(file ? 65 : 62));
  Report("writes and updates with expiry, deliberately wrong oracle", wrong,
         run);
  EXPECT_GT(wrong.failures, 0u);
}

TEST(CrashVarlenTest, EveryPersistPointOfWritesAndUpdatesWithExpiry) {
  ExpectWritesAndUpdatesWithExpiryClean(/*file=*/false);
}

TEST(CrashVarlenTest, EveryPersistPointOfWritesWithExpiryOnAPowerFailSafeFile) {
  ExpectWritesAndUpdatesWithExpiryClean(/*file=*/true);
}

// The small profile as it is (two payload logs) and values up to 4 KiB.
TEST(CrashVarlenTest, SampledPersistPointsWithTheSmallProfile) {
  CrashExplorer explorer(SmallCrashPool(),
                         RandomVarlenWorkload(Soak() ? 8000 : 2000, 60,
                             SoakSeed(14)));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u);
  const ExplorerStats stats = explorer.Sampled(Soak() ? 1000 : 60,
      SoakSeed(15));
  Report("varlen sampled, small profile", stats, run);
  EXPECT_GT(stats.crash_states, 40u);
  EXPECT_GT(run.payload_gc_runs, 0u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// With level 1's filters in DRAM: recovery rebuilds them, reading the keys
// of payload records through their references.
TEST(CrashVarlenTest, SampledPersistPointsWithFiltersInDram) {
  Options o = TinyVarlenCrashPool();
  o.dram_filter_levels = 1;
  CrashExplorer explorer(
      o, RandomVarlenWorkload(Soak() ? 5000 : 1500, 40, SoakSeed(16),
          MaxVarlenValue(o)));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u);
  const ExplorerStats stats = explorer.Sampled(Soak() ? 1000 : 40,
      SoakSeed(17));
  Report("varlen sampled, DRAM filters", stats, run);
  EXPECT_GT(stats.crash_states, 30u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// The oracle compares bytes of every size: with the operation in flight
// wrongly counted as acknowledged, crashes before its log entry is durable
// must be reported.
TEST(CrashVarlenTest, ExplorerDetectsALostWrite) {
  const Options o = TinyVarlenCrashPool();
  CrashExplorer explorer(o, RandomVarlenWorkload(80, 12, 18, MaxVarlenValue(o),
                                                 /*checkpoints=*/false));
  explorer.set_claim_in_flight_acked(true);
  const ExplorerStats stats = explorer.Exhaustive();
  Report("varlen, deliberately wrong oracle", stats, Stats());
  EXPECT_GT(stats.failures, 0u);
}

// The byte generators: size 8 is the word itself (8/8 workloads are
// unchanged), other sizes are deterministic and differ by word and size.
TEST(CrashVarlenTest, KeyAndValueBytes) {
  EXPECT_EQ(KeyBytes(42, 8), Word(42));
  EXPECT_EQ(ValueBytes(42, 8), Word(42));
  EXPECT_EQ(KeyBytes(42, 0), "");
  EXPECT_EQ(KeyBytes(42, 100), KeyBytes(42, 100));
  EXPECT_EQ(KeyBytes(42, 100).size(), 100u);
  EXPECT_EQ(ValueBytes(7, 4097).size(), 4097u);
  EXPECT_NE(KeyBytes(42, 100), KeyBytes(43, 100));
  EXPECT_NE(KeyBytes(42, 3), KeyBytes(43, 3));
  EXPECT_NE(KeyBytes(42, 100).substr(0, 50), KeyBytes(42, 50));
  EXPECT_NE(KeyBytes(42, 100), ValueBytes(42, 100));
  const std::vector<Op> ops = RandomVarlenWorkload(2000, 100, 1);
  uint64_t inline_puts = 0, payload_puts = 0, empty_values = 0, big_keys = 0,
           checkpoints = 0;
  for (const Op& op : ops) {
    if (op.kind == Op::Kind::kCheckpoint) ++checkpoints;
    if (op.kind != Op::Kind::kPut) continue;
    if (op.key_size == 8 && op.value_size == 8) {
      ++inline_puts;
    } else {
      ++payload_puts;
    }
    if (op.value_size == 0) ++empty_values;
    if (op.key_size == kMaxKeySize) ++big_keys;
  }
  EXPECT_GT(inline_puts, 50u);
  EXPECT_GT(payload_puts, 500u);
  EXPECT_GT(empty_values, 20u);
  EXPECT_GT(big_keys, 0u);
  EXPECT_GT(checkpoints, 0u);
}

}  // namespace
}  // namespace plush::test
