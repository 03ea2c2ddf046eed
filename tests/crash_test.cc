// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Simulated power failures at persist points (crash_explorer.h).

#include <gtest/gtest.h>

#include <string>

#include "crash_explorer.h"
#include "testutil.h"

namespace plush::test {
namespace {

void Report(const char* name, const ExplorerStats& s) {
  std::printf(
      "[crash] %s: %llu persist points, %llu crash states explored "
      "(%llu with a second crash during recovery), %llu failures\n",
      name, static_cast<unsigned long long>(s.persist_points),
      static_cast<unsigned long long>(s.crash_states),
      static_cast<unsigned long long>(s.recovery_crash_states),
      static_cast<unsigned long long>(s.failures));
}

// The control of a test's explorer: with an oracle that counts the write
// in flight at the crash as acknowledged, some of `samples` sampled crash
// states must fail.
void ExpectWrongOracleCaught(CrashExplorer* explorer, const char* name,
                             uint64_t seed, uint64_t samples = 100) {
  explorer->set_claim_in_flight_acked(true);
  const ExplorerStats wrong = explorer->Sampled(samples, seed);
  Report(name, wrong);
  EXPECT_GT(wrong.failures, 0u);
}

// Crashes `explorer` (a workload of 400 operations or more on a
// power-fail-safe pool file) at every persist point: none fails, and its
// deliberately wrong oracle is caught.
void ExpectEveryPersistPointOfAFileClean(CrashExplorer* explorer,
                                         const std::string& writes,
                                         uint64_t seed) {
  const ExplorerStats stats = explorer->Exhaustive();
  Report(("exhaustive, " + writes + " on a power-fail-safe file").c_str(),
         stats);
  EXPECT_GT(stats.persist_points, 400u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  ExpectWrongOracleCaught(
      explorer, (writes + " on a file, deliberately wrong oracle").c_str(),
      seed);
}

TEST(CrashTest, EveryPersistPointOfASmallWorkload) {
  CrashExplorer explorer(TinyCrashPool(),
                         RandomWorkload(Soak() ? 1500 : 400, 60, SoakSeed(1)));
  const ExplorerStats stats = explorer.Exhaustive();
  Report("exhaustive", stats);
  EXPECT_GT(stats.persist_points, 400u);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_GT(stats.recovery_crash_states, 0u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

TEST(CrashTest, SampledPersistPointsOfALargerWorkload) {
  Options o = TinyCrashPool();
  o.dram_directory_bits = 3;
  o.log_count = 2;
  CrashExplorer explorer(o, RandomWorkload(Soak() ? 20000 : 5000, 2000,
      SoakSeed(2)));
  const ExplorerStats stats = explorer.Sampled(Soak() ? 2000 : 150,
      SoakSeed(3));
  Report("sampled", stats);
  EXPECT_GT(stats.crash_states, 100u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// A range pool split at a key sample's quantiles: its records are placed
// by the boundaries read back at every recovery (and on a crash during
// recovery).
TEST(CrashTest, EveryPersistPointOfARangePoolWithAKeySample) {
  Options o = TinyCrashPool();
  o.partitioning = Partitioning::kRange;
  for (uint64_t key = 0; key < 60; key += 3)
    o.range_key_sample.push_back(KeyBytes(key, 8));
  CrashExplorer explorer(o, RandomWorkload(Soak() ? 1500 : 400, 60,
      SoakSeed(21)));
  const ExplorerStats stats = explorer.Exhaustive();
  Report("exhaustive, range pool with a key sample", stats);
  EXPECT_GT(stats.persist_points, 400u);
  EXPECT_EQ(stats.crash_states, stats.persist_points);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  ExpectWrongOracleCaught(
      &explorer, "range pool with a key sample, deliberately wrong oracle",
      SoakSeed(22));
}

// With level 1's filters in DRAM, a crash leaves no filter on PMem to
// trust: recovery rebuilds it from the records.
TEST(CrashTest, SampledPersistPointsWithFiltersInDram) {
  Options o = TinyCrashPool();
  o.dram_filter_levels = 1;
  CrashExplorer explorer(o, RandomWorkload(Soak() ? 5000 : 1500, 300,
      SoakSeed(5)));
  const ExplorerStats stats = explorer.Sampled(Soak() ? 1000 : 40, SoakSeed(6));
  Report("sampled, DRAM filters", stats);
  EXPECT_GT(stats.crash_states, 30u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  ExpectWrongOracleCaught(&explorer, "DRAM filters, deliberately wrong oracle",
                          SoakSeed(7));
}

// Background threads migrate DRAM entries and recycle log chunks while the
// workload runs (pauses between operations let them get there first):
// crashes inside their persist sequences must leave what an inline
// migration or rotation would.
TEST(CrashTest, SampledPersistPointsWithBackgroundWork) {
  Options o = TinyCrashPool();
  o.background_threads = 1;
  o.log_chunks_per_log = 3;  // recycling ahead leaves logs of two alone
  CrashExplorer explorer(o, RandomWorkload(Soak() ? 3000 : 600, 60,
      SoakSeed(11)));
  explorer.set_pause_after_each_op(std::chrono::microseconds(50));
  Stats run;
  ASSERT_GT(explorer.CountPersistPoints(&run), 0u);
  EXPECT_GT(run.dram_migrations_background, 0u);
  EXPECT_GT(run.log_recycles_background, 0u);
  const ExplorerStats stats = explorer.Sampled(Soak() ? 1500 : 80,
      SoakSeed(12));
  Report("sampled, background work", stats);
  EXPECT_GT(stats.crash_states, 40u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  ExpectWrongOracleCaught(&explorer,
                          "background work, deliberately wrong oracle",
                          SoakSeed(13), /*samples=*/40);
}

// Sync writes of every DRAM entry share one log (RecoveryLogs::kSyncLog),
// interleaved with writes to each entry's own log: recovery orders an
// entry's records from both, and recycling the shared log's chunks
// migrates the entries of its foreign records first.
TEST(CrashTest, EveryPersistPointOfSyncWritesSharingALog) {
  Options o = TinyCrashPool();
  o.log_count = 2;
  CrashExplorer explorer(
      o, WithEveryOtherWriteSynced(RandomWorkload(Soak() ? 1500 : 500, 60,
          SoakSeed(31))));
  Stats run;
  explorer.CountPersistPoints(&run);
  EXPECT_GT(run.log_compactions, 0u) << "the shared log's chunks recycle";
  const ExplorerStats stats = explorer.Exhaustive();
  Report("exhaustive, sync writes sharing a log", stats);
  EXPECT_GT(stats.persist_points, 500u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;

  explorer.set_claim_in_flight_acked(true);
  const ExplorerStats wrong = explorer.Exhaustive();
  Report("sync writes sharing a log, deliberately wrong oracle", wrong);
  EXPECT_GT(wrong.failures, 0u);
}

// The file back end's power-fail guarantee (Options::power_fail_safe), on
// the simulator's model of a plain file on a disk: only an msync makes
// bytes durable, and it writes back every page dirtied before it. Every
// write is a sync write, so each acknowledged one must survive a power
// failure anywhere in the migrations (recursive ones too) and log
// recycling that follow it. The control is the same pool opened without
// power_fail_safe, whose barriers are left to the kernel's write-back:
// the explorer must find acknowledged writes it loses.
TEST(CrashTest, EveryPersistPointOfSyncWritesOnAPowerFailSafeFile) {
  std::vector<Op> workload =
      RandomWorkload(Soak() ? 1500 : 400, 60, SoakSeed(41));
  for (Op& op : workload) op.sync = true;
  Options o = TinyCrashPool();
  o.power_fail_safe = true;
  CrashExplorer explorer(o, workload);
  explorer.set_simulate_file(true);
  Stats run;
  explorer.CountPersistPoints(&run);
  EXPECT_GT(run.migrations, 0u);
  EXPECT_GT(run.log_compactions, 0u);
  ExpectEveryPersistPointOfAFileClean(&explorer, "sync writes", SoakSeed(42));

  o.power_fail_safe = false;
  CrashExplorer unordered(o, workload);
  unordered.set_simulate_file(true);
  const ExplorerStats lost = unordered.Exhaustive();
  Report("sync writes on a file without power_fail_safe (control)", lost);
  std::printf("[crash] its first failure: %s\n", lost.first_failure.c_str());
  EXPECT_GT(lost.failures, 0u);
}

// Writes whose caller syncs after each (plush-server under --sync-writes):
// their log appends leave their barriers to that sync and go to the sync
// log, mixed with writes that sync at their own barrier. The control
// leaves the sync out: acknowledged writes a power failure then loses
// must be found.
TEST(CrashTest, EveryPersistPointOfCallerSyncedWritesOnAPowerFailSafeFile) {
  std::vector<Op> workload =
      WithUpdates(RandomWorkload(Soak() ? 1500 : 400, 60, SoakSeed(47)));
  bool caller_syncs = true;
  for (Op& op : workload) {
    if (!WritesKey(op)) continue;
    op.caller_syncs = op.then_sync = caller_syncs;
    caller_syncs = !caller_syncs;
  }
  Options o = TinyCrashPool();
  o.power_fail_safe = true;
  CrashExplorer explorer(o, workload);
  explorer.set_simulate_file(true);
  ExpectEveryPersistPointOfAFileClean(&explorer, "caller-synced writes",
                                      SoakSeed(48));

  for (Op& op : workload) op.then_sync = false;
  CrashExplorer unsynced(o, workload);
  unsynced.set_simulate_file(true);
  const ExplorerStats lost = unsynced.Exhaustive();
  Report("caller-synced writes never synced (control)", lost);
  EXPECT_GT(lost.failures, 0u);
}

// In a power-fail-safe pool every barrier is a sync, a write's log
// append's too: a workload of puts, deletes and read-modify-writes that
// ask for no sync loses none of them at any persist point.
TEST(CrashTest, EveryPersistPointOfWritesOnAPowerFailSafeFile) {
  Options o = TinyCrashPool();
  o.power_fail_safe = true;
  CrashExplorer explorer(
      o, WithUpdates(RandomWorkload(Soak() ? 1500 : 400, 60, SoakSeed(45))));
  explorer.set_simulate_file(true);
  ExpectEveryPersistPointOfAFileClean(&explorer, "writes", SoakSeed(46));
}

// The same with records of every size: payload appends, payload chunks
// compacted and freed, checkpoints.
TEST(CrashTest, SyncWritesOfEverySizeOnAPowerFailSafeFile) {
  Options o = TinyVarlenCrashPool();
  o.power_fail_safe = true;
  // Values up to 3x the usual, so that chunks fill and compact.
  std::vector<Op> workload = RandomVarlenWorkload(
      Soak() ? 1200 : 300, 24, SoakSeed(43), 3 * MaxVarlenValue(o));
  for (Op& op : workload) op.sync = true;
  CrashExplorer explorer(o, workload);
  explorer.set_simulate_file(true);
  Stats run;
  explorer.CountPersistPoints(&run);
  EXPECT_GT(run.payload_gc_runs, 0u);
  const ExplorerStats stats = explorer.Sampled(Soak() ? 3000 : 300,
                                               SoakSeed(44));
  Report("sampled, sync writes of every size on a power-fail-safe file",
         stats);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
}

// Read-modify-writes (UpdateWithExpiry deciding a put, a delete or
// nothing on the current value and expiry) among puts and deletes, a
// third of them with an expiry: at every persist point, recovery holds
// every acknowledged decision and the one in flight whole or not at all.
TEST(CrashTest, EveryPersistPointOfReadModifyWrites) {
  CrashExplorer explorer(
      TinyCrashPool(),
      WithUpdates(WithExpiries(RandomWorkload(Soak() ? 1500 : 500, 40,
          SoakSeed(51)))));
  const ExplorerStats stats = explorer.Exhaustive();
  Report("exhaustive, read-modify-writes", stats);
  EXPECT_GT(stats.persist_points, 300u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;

  ExpectWrongOracleCaught(
      &explorer, "read-modify-writes, deliberately wrong oracle", SoakSeed(52));
}

// Keys written again and again leave the log's oldest chunks mostly
// superseded: rotations free them by rewriting the DRAM entries they
// belong to (their newest versions logged again, one batch per entry, in
// the entry's next epoch) rather than take new chunks. A crash anywhere
// in that leaves the old records or the batch, never neither.
//
// On a power-fail-safe file (`file`) the rewrites of a recycling go in
// groups that share their two barriers (EntryRewriter::Group): a crash
// may then leave some entries' batches durable and others' not, and
// retired epochs only after every batch of the group.
void ExpectRewritesThatFreeLogChunksClean(bool file) {
  Options o = TinyCrashPool();
  o.fanout_bits = 4;        // DRAM entries of 256 slots: they rarely fill
  o.log_chunk_size = 8192;  // a chunk of one page has its storage at once
  o.log_chunks_per_log = 8;
  o.power_fail_safe = file;
  CrashExplorer explorer(o, RandomWorkload(Soak() ? 6000 : 2000, 12,
      SoakSeed(41)));
  explorer.set_simulate_file(file);
  Stats run;
  explorer.CountPersistPoints(&run);
  uint64_t rewrites = 0;
  for (const auto& [name, value] : run.more_counts) {
    if (name == "dram_rewrites") rewrites = value;
  }
  EXPECT_GE(rewrites, 20u);
  // (On a file a crash state misses a barrier of the group's only where
  // a sync had words of the group pending: more samples.)
  const ExplorerStats stats = explorer.Sampled(
      Soak() ? 2000 : (file ? 1200 : 300), SoakSeed(42));
  Report(file ? "sampled, rewrites that free log chunks, on a file"
              : "sampled, rewrites that free log chunks",
         stats);
  EXPECT_GT(stats.crash_states, 250u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;

  ExpectWrongOracleCaught(
      &explorer, "rewrites that free log chunks, deliberately wrong oracle",
      SoakSeed(43));
}

TEST(CrashTest, SampledPersistPointsOfRewritesThatFreeLogChunks) {
  ExpectRewritesThatFreeLogChunksClean(/*file=*/false);
}

TEST(CrashTest, SampledPersistPointsOfRewritesOnAPowerFailSafeFile) {
  ExpectRewritesThatFreeLogChunksClean(/*file=*/true);
}

// Rewrites that free log chunks also leave out the tombstones that hide
// nothing below the DRAM level — deletes, and records that expired — and
// so first retire the entry's epoch on level 1 (its children's epochs or
// its epoch floor), lest recovery replay a left-out key's older records.
// A crash anywhere leaves every acknowledged write, and no left-out key
// comes back.
void ExpectRewritesThatDropExpiredRecordsClean(bool file) {
  Options o = TinyCrashPool();
  o.fanout_bits = 4;
  o.log_chunk_size = 8192;
  o.log_chunks_per_log = 8;
  // A key's records in two logs (sync writes share log 0): one log may
  // free the chunk of a key's tombstone while the other still holds the
  // key's older versions.
  o.log_count = 2;
  o.power_fail_safe = file;
  CrashExplorer explorer(o, WithEveryOtherWriteSynced(WithExpiries(
                                RandomWorkload(Soak() ? 6000 : 2000, 40,
                                    SoakSeed(45)))));
  explorer.set_simulate_file(file);
  Stats run;
  explorer.CountPersistPoints(&run);
  uint64_t rewrites = 0;
  for (const auto& [name, value] : run.more_counts) {
    if (name == "dram_rewrites") rewrites = value;
  }
  EXPECT_GE(rewrites, 10u);
  const ExplorerStats stats = explorer.Sampled(
      Soak() ? 2000 : (file ? 1200 : 300), SoakSeed(46));
  Report(file ? "sampled, rewrites that drop expired records, on a file"
              : "sampled, rewrites that drop expired records",
         stats);
  EXPECT_GT(stats.crash_states, 250u);
  EXPECT_EQ(stats.failures, 0u) << stats.first_failure;
  ExpectWrongOracleCaught(
      &explorer, "rewrites that drop expired records, deliberately wrong "
      "oracle", SoakSeed(47));
}

TEST(CrashTest, SampledPersistPointsOfRewritesThatDropExpiredRecords) {
  ExpectRewritesThatDropExpiredRecordsClean(/*file=*/false);
}

TEST(CrashTest, SampledPersistPointsOfExpiredRewritesOnAPowerFailSafeFile) {
  ExpectRewritesThatDropExpiredRecordsClean(/*file=*/true);
}

// The explorer must be able to fail: with an oracle that counts the
// operation in flight at the crash as acknowledged, crashes that hit before
// that operation's log entry is durable must be reported.
TEST(CrashTest, ExplorerDetectsALostWrite) {
  CrashExplorer explorer(TinyCrashPool(), RandomWorkload(100, 20, 4));
  explorer.set_claim_in_flight_acked(true);
  const ExplorerStats stats = explorer.Exhaustive();
  Report("deliberately wrong oracle", stats);
  EXPECT_GT(stats.failures, 0u);
}

}  // namespace
}  // namespace plush::test
