// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The public API end to end: behaviour, limits, errors, statistics, and a
// model-based randomized test against std::unordered_map with reopens.

#include "plush/db.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <random>
#include <unordered_map>

#include "testing/fault_injecting_file_ops.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush {
namespace {

using test::FromWord;
using test::ScratchPool;
using test::Word;

Options TinyOptions() {
  Options o = Options::SmallProfile();
  return o;
}

TEST(DBTest, PutGetDeleteRoundTrip) {
  ScratchPool file("basic");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  std::string value;
  EXPECT_TRUE(db->Get({}, Word(1), &value).IsNotFound());
  ASSERT_OK(db->Put({}, Word(1), Word(100)));
  ASSERT_OK(db->Get({}, Word(1), &value));
  EXPECT_EQ(FromWord(value), 100u);
  ASSERT_OK(db->Put({}, Word(1), Word(101)));
  ASSERT_OK(db->Get({}, Word(1), &value));
  EXPECT_EQ(FromWord(value), 101u);
  ASSERT_OK(db->Delete({}, Word(1)));
  EXPECT_TRUE(db->Get({}, Word(1), &value).IsNotFound());
  ASSERT_OK(db->Delete({}, Word(2)));  // deleting a missing key is fine
}

// An UpdateFunction may run more than once (a log rotation, a re-balance
// starts the write over): each run gets an empty new value, so a function
// that appends to it stores what one run wrote. Small log chunks make
// rotations frequent; both record kinds (8-byte values inline, longer
// ones in the payload logs) are updated.
TEST(DBTest, EveryRunOfAnUpdateFunctionStartsFromAnEmptyValue) {
  ScratchPool file("update_runs");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  for (int i = 0; i < 3000; ++i) {
    char digits[16];
    std::snprintf(digits, sizeof(digits), "%08d", i);
    const std::string want = i % 2 == 0 ? digits : std::string(digits) + "+";
    const std::string key = Word(i % 7);
    ASSERT_OK(db->Update({}, key, [&](const std::string*, std::string* next) {
      next->append(want);
      return DB::UpdateAction::kPut;
    }));
    std::string value;
    ASSERT_OK(db->Get({}, key, &value));
    ASSERT_EQ(value, want) << "update " << i;
  }
}

// Footprint follows the data: a default pool's recovery logs (256 MiB)
// take storage as they are written, and its heap grows by steps of its own
// size. (Bounds here are generous; docs/benchmarks.md has the figures.)
TEST(DBTest, ASmallPoolIsSmallOnDisk) {
  ScratchPool file("small_on_disk");
  constexpr uint64_t kMiB = 1 << 20;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  ASSERT_OK(db->Put({}, "greeting", "hello!!!"));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_GE(stats.pool_bytes, 256 * kMiB) << "the logs' space is reserved";
  EXPECT_LE(stats.pool_allocated_bytes, 16 * kMiB);
  EXPECT_GT(stats.pool_allocated_bytes, 0u);
  // 200,000 records of 35 bytes: payload entries, log entries, no level.
  for (int i = 0; i < 200000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key:%010d", i);
    ASSERT_OK(db->Put({}, key, "value-of-twenty-bytes"));
  }
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_LE(stats.pool_allocated_bytes, 64 * kMiB);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  std::string value;
  ASSERT_OK(db->Get({}, "key:0000199999", &value));
  EXPECT_EQ(value, "value-of-twenty-bytes");
  ASSERT_OK(db->Get({}, "greeting", &value));
  EXPECT_EQ(value, "hello!!!");
}

// A PMem level's directory (2^18 entries of 512 bytes, 128 MiB, for the
// first level at the defaults) takes storage only where migrations write:
// a checkpoint of ten records migrates ten DRAM entries, 8 KiB each.
TEST(DBTest, ALevelTakesStorageForTheEntriesItHolds) {
  ScratchPool file("level_on_disk");
  constexpr uint64_t kMiB = 1 << 20;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  for (uint64_t k = 1; k <= 10; ++k) ASSERT_OK(db->Put({}, Word(k), Word(k)));
  ASSERT_OK(db->Checkpoint(1));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  ASSERT_EQ(stats.levels, 2u);
  EXPECT_GE(stats.pool_used_bytes, 128 * kMiB) << "the directory is reserved";
  EXPECT_LE(stats.pool_allocated_bytes, 16 * kMiB);
  std::string report;
  ASSERT_OK(db->Verify(&report));
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  std::string value;
  for (uint64_t k = 1; k <= 10; ++k) {
    ASSERT_OK(db->Get({}, Word(k), &value));
    EXPECT_EQ(FromWord(value), k);
  }
}

TEST(DBTest, EveryKeyAndValuePatternIsData) {
  ScratchPool file("patterns");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  const uint64_t patterns[] = {0, ~0ull, 1ull << 63, 0x8000000000000001ull};
  for (uint64_t k : patterns) {
    for (uint64_t v : patterns) {
      ASSERT_OK(db->Put({}, Word(k), Word(v)));
      std::string got;
      ASSERT_OK(db->Get({}, Word(k), &got));
      EXPECT_EQ(FromWord(got), v);
    }
  }
  ASSERT_OK(db->Checkpoint());  // and through a migration to PMem
  for (uint64_t k : patterns) {
    std::string got;
    ASSERT_OK(db->Get({}, Word(k), &got));
    EXPECT_EQ(FromWord(got), patterns[3]);
  }
}

TEST(DBTest, SizeLimitsAreEnforced) {
  ScratchPool file("limits");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  const std::string big_key(kMaxKeySize + 1, 'k');
  const std::string big_value(kMaxValueSize + 1, 'v');
  // The message names the limit that was broken, and only that one.
  const std::string key_message = "InvalidArgument: key of 1025 bytes "
                                  "exceeds the limit of 1024 bytes";
  const std::string value_message = "InvalidArgument: value of 65537 bytes "
                                    "exceeds the limit of 65536 bytes";
  EXPECT_EQ(db->Put({}, big_key, Word(1)).ToString(), key_message);
  EXPECT_EQ(db->Put({}, Word(1), big_value).ToString(), value_message);
  EXPECT_EQ(db->Put({}, big_key, big_value).ToString(), key_message);
  EXPECT_EQ(db->Delete({}, big_key).ToString(), key_message);
  std::string value;
  EXPECT_EQ(db->Get({}, big_key, &value).ToString(), key_message);
  // At the limits exactly, everything is accepted.
  ASSERT_OK(db->Put({}, std::string(kMaxKeySize, 'k'),
                    std::string(kMaxValueSize, 'v')));
}

// A clean close keeps every write made before it, logged or not (regression:
// unlogged writes still in the DRAM level were dropped).
TEST(DBTest, CloseKeepsUnloggedWrites) {
  for (const bool explicit_close : {true, false}) {
    ScratchPool file("unlogged_close");
    WriteOptions unlogged;
    unlogged.log = false;
    {
      std::unique_ptr<DB> db;
      ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
      for (uint64_t k = 0; k < 1000; ++k) {
        ASSERT_OK(db->Put(unlogged, Word(k), Word(k + 7)));
        ASSERT_OK(db->Put(unlogged, "key-" + std::to_string(k),
                          "value-" + std::to_string(k)));
      }
      for (uint64_t k = 0; k < 1000; k += 10)
        ASSERT_OK(db->Delete(unlogged, Word(k)));
      if (explicit_close) {
        ASSERT_OK(db->Close());
      }
    }  // else: the destructor closes
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
    uint64_t found = 0;
    std::string value;
    for (uint64_t k = 0; k < 1000; ++k) {
      const Status s = db->Get({}, Word(k), &value);
      if (k % 10 == 0) {
        EXPECT_TRUE(s.IsNotFound()) << k << ": " << s.ToString();
      } else if (s.ok() && FromWord(value) == k + 7) {
        ++found;
      }
      ASSERT_OK(db->Get({}, "key-" + std::to_string(k), &value));
      EXPECT_EQ(value, "value-" + std::to_string(k));
    }
    EXPECT_EQ(found, 900u) << "explicit close: " << explicit_close;
    EXPECT_OK(db->Verify());
  }
}

// When the unlogged writes cannot be made durable at close (the pool is
// full), Close() says so instead of returning OK.
TEST(DBTest, CloseReportsUnloggedWritesItCouldNotKeep) {
  ScratchPool file("unlogged_full");
  Options o = TinyOptions();
  o.max_pool_size = o.MinimumPoolSize();
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  WriteOptions unlogged;
  unlogged.log = false;
  Status s;
  uint64_t k = 0;
  // Fill the pool until a migration finds no room; the DRAM entry that
  // failed to migrate keeps its unlogged records.
  for (; s.ok() && k < 10'000'000; ++k) s = db->Put(unlogged, Word(k), Word(k));
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  s = db->Close();
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.ToString().find("unlogged writes of"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("are lost"), std::string::npos) << s.ToString();
}

TEST(DBTest, CallsAfterCloseFail) {
  ScratchPool file("closed");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  ASSERT_OK(db->Put({}, Word(1), Word(1)));
  ASSERT_OK(db->Close());
  ASSERT_OK(db->Close());  // idempotent
  std::string value;
  EXPECT_TRUE(db->Put({}, Word(1), Word(1)).IsInvalidArgument());
  EXPECT_TRUE(db->Get({}, Word(1), &value).IsInvalidArgument());
  EXPECT_TRUE(db->Delete({}, Word(1)).IsInvalidArgument());
  EXPECT_TRUE(db->Checkpoint().IsInvalidArgument());
  Stats stats;
  EXPECT_TRUE(db->GetStats(&stats).IsInvalidArgument());
  // The lock is released: the pool opens again.
  std::unique_ptr<DB> again;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &again));
  ASSERT_OK(again->Get({}, Word(1), &value));
}

TEST(DBTest, SecondOpenIsBusy) {
  ScratchPool file("busy");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  std::unique_ptr<DB> second;
  Status s = DB::Open(TinyOptions(), file.path(), &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  // The holder is this very process: say so (not "another user").
  EXPECT_NE(s.ToString().find("already open in this process"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(second, nullptr);
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &second));
}

// Range partitioning is a creation parameter; asking for it on an existing
// hash pool is refused rather than silently ignored.
TEST(DBTest, RangeOptionOnAHashPoolIsRefused) {
  ScratchPool file("range_on_hash");
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  }
  Options o = TinyOptions();
  o.partitioning = Partitioning::kRange;
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, file.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("is hash-partitioned"), std::string::npos)
      << s.ToString();
  // A range pool opened with default options stays a range pool.
  ScratchPool range_file("hash_on_range");
  ASSERT_OK(DB::Open(o, range_file.path(), &db));
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(TinyOptions(), range_file.path(), &db));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.partitioning, "range");
  EXPECT_EQ(stats.range_units, "adaptive");
}

// Linux reports a writeback error once; a sync after it must not claim
// durability (regression: later syncs returned OK over lost pages).
TEST(DBTest, FailedSyncIsStickyUntilReopen) {
  ScratchPool file("sticky");
  const auto faults = std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDB(TinyOptions(), {.file_ops = faults}, file.path(), &db));
  ASSERT_OK(db->Put({}, Word(1), Word(1)));
  faults->FailNextSyncs(1, EIO);
  Status s = db->Sync();
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("msync of the pool file: Input/output error"),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("refused until the pool is opened again"),
            std::string::npos)
      << s.ToString();
  // The injected failure is spent; the error is not.
  EXPECT_EQ(db->Sync().ToString(), s.ToString());
  EXPECT_EQ(db->Put({}, Word(2), Word(2)).ToString(), s.ToString());
  EXPECT_EQ(db->Delete({}, Word(1)).ToString(), s.ToString());
  EXPECT_EQ(db->Checkpoint().ToString(), s.ToString());
  std::string value;
  EXPECT_OK(db->Get({}, Word(1), &value));  // reads still work
  EXPECT_EQ(db->Close().ToString(), s.ToString());
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  ASSERT_OK(db->Get({}, Word(1), &value));
  EXPECT_TRUE(db->Get({}, Word(2), &value).IsNotFound());
  ASSERT_OK(db->Put({}, Word(2), Word(2)));
  EXPECT_OK(db->Sync());
}

TEST(DBTest, StatsDescribeBackendLevelsAndWork) {
  ScratchPool file("stats");
  InternalOptions instrumented;
  instrumented.model_media_write_amp = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDB(TinyOptions(), instrumented, file.path(), &db));
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_OK(db->Put({}, Word(i), Word(i)));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.backend, "file");
  EXPECT_FALSE(stats.power_fail_durable);
  EXPECT_GT(stats.levels, 3u)
      << "the small profile spills to several PMem levels";
  EXPECT_EQ(stats.records_per_level.size(), stats.levels);
  EXPECT_GT(stats.migrations, 0u);
  EXPECT_GE(stats.persist_calls, 5000u)
      << "one barrier per logged write at least";
  EXPECT_GT(stats.flushed_lines, 0u);
  EXPECT_EQ(stats.user_bytes_written, 5000u * 16);
  EXPECT_GT(stats.media_write_amp, 0.0);
  EXPECT_GT(stats.dram_bytes, 0u);
  EXPECT_GE(stats.pool_bytes, stats.pool_used_bytes);
  uint64_t slots = 0;
  for (uint64_t n : stats.records_per_level) slots += n;
  EXPECT_GE(slots, 5000u);
}

// The unit balance tells an even range pool from a skewed one: keys with a
// common prefix all land in the unit of that prefix (without re-balancing).
TEST(DBTest, StatsReportTheBalanceOfTheUnits) {
  auto balance = [](bool skewed) {
    ScratchPool file(skewed ? "balance_skewed" : "balance_even");
    Options o = TinyOptions();
    o.partitioning = Partitioning::kRange;
    o.dram_directory_bits = 4;
    o.range_rebalance = false;
    std::unique_ptr<DB> db;
    EXPECT_OK(DB::Open(o, file.path(), &db));
    for (uint64_t i = 0; i < 400; ++i) {
      // Spread: the first byte takes every value; skewed: always 'u'.
      const std::string key = skewed ? "user" + std::to_string(i)
                                     : Word(i * 0x9E3779B97F4A7C15ull);
      EXPECT_OK(db->Put({}, key, "v"));
    }
    Stats stats;
    EXPECT_OK(db->GetStats(&stats));
    uint64_t stored = 0;
    for (uint64_t n : stats.records_per_level) stored += n;
    EXPECT_LE(stats.unit_records_min, stats.unit_records_median);
    EXPECT_LE(stats.unit_records_median, stats.unit_records_max);
    EXPECT_LE(stats.unit_records_max, stored);
    return stats;
  };
  const Stats skewed = balance(true);
  EXPECT_EQ(skewed.unit_records_median, 0u);
  EXPECT_GE(skewed.unit_records_max, 400u) << "one unit holds every key";
  EXPECT_EQ(skewed.range_rebalances, 0u);
  const Stats even = balance(false);
  EXPECT_GT(even.unit_records_min, 0u);
  EXPECT_LT(even.unit_records_max, 3 * even.unit_records_median);
}

// Every Stats field is a property with the same value, as text.
TEST(DBTest, PropertiesAreTheStatsFields) {
  ScratchPool file("properties");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  for (uint64_t i = 0; i < 300; ++i) ASSERT_OK(db->Put({}, Word(i), Word(i)));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::string value;
  ASSERT_OK(db->GetProperty("plush.migrations", &value));
  EXPECT_EQ(value, std::to_string(stats.migrations));
  ASSERT_OK(db->GetProperty("plush.backend", &value));
  EXPECT_EQ(value, "file");
  ASSERT_OK(db->GetProperty("plush.power_fail_durable", &value));
  EXPECT_EQ(value, "false");
  ASSERT_OK(db->GetProperty("plush.records_per_level", &value));
  EXPECT_EQ(std::count(value.begin(), value.end(), ',') + 1,
            static_cast<long>(stats.levels));
  ASSERT_OK(db->GetProperty("plush.stats", &value));
  EXPECT_NE(value.find("levels: " + std::to_string(stats.levels) + "\n"),
            std::string::npos)
      << value;
  EXPECT_NE(value.find("recovered_log_entries: "), std::string::npos);
  // One line per field and per entry of more_counts, each a property of its
  // own.
  size_t lines = 0;
  for (size_t at = 0; (at = value.find('\n', at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 46u + stats.more_counts.size());
  ASSERT_OK(db->GetProperty("plush.syncs", &value));
  EXPECT_EQ(value, std::to_string(stats.more_counts.at(0).second));
  for (const char* bad : {"plush.nonsense", "rocksdb.stats", "", "plush."}) {
    const Status s = db->GetProperty(bad, &value);
    EXPECT_TRUE(s.IsNotFound()) << bad;
    EXPECT_EQ(s.ToString(), "NotFound: unknown property '" + std::string(bad) +
                                "'");
  }
  ASSERT_OK(db->Close());
  EXPECT_TRUE(db->GetProperty("plush.levels", &value).IsInvalidArgument());
}

TEST(DBTest, IteratorStopsAtTheUpperBound) {
  ScratchPool file("upper_bound");
  Options o = TinyOptions();
  o.partitioning = Partitioning::kRange;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (int i = 0; i < 500; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%04d", i);
    ASSERT_OK(db->Put({}, key, "v"));
  }
  ReadOptions bounded;
  bounded.iterate_upper_bound = "key0250";
  std::unique_ptr<Iterator> it = db->NewIterator(bounded);
  int n = 0;
  std::string last;
  for (it->Seek("key0100"); it->Valid(); it->Next(), ++n) last = it->key();
  EXPECT_OK(it->status());
  EXPECT_EQ(n, 150);
  EXPECT_EQ(last, "key0249");
  ASSERT_OK(db->Close());

  ScratchPool hash_file("upper_bound_hash");
  ASSERT_OK(DB::Open(TinyOptions(), hash_file.path(), &db));
  it = db->NewIterator(bounded);
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotSupported()) << it->status().ToString();
  EXPECT_NE(it->status().ToString().find("needs a range-partitioned pool"),
            std::string::npos)
      << it->status().ToString();
}

TEST(DBTest, CheckpointEmptiesTheDramLevel) {
  ScratchPool file("checkpoint");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(TinyOptions(), file.path(), &db));
  for (uint64_t i = 0; i < 100; ++i)
    ASSERT_OK(db->Put({}, Word(i), Word(i * 3)));
  ASSERT_OK(db->Checkpoint(2));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.records_per_level[0], 0u);
  for (uint64_t i = 0; i < 100; ++i) {
    std::string v;
    ASSERT_OK(db->Get({}, Word(i), &v));
    EXPECT_EQ(FromWord(v), i * 3);
  }
  ASSERT_OK(db->Verify());
}

// ---- Model-based randomized test --------------------------------------------

struct ModelCase {
  const char* name;
  test::Medium medium;
  uint32_t first_level_fanout_bits;
  uint32_t preallocated_levels;
  uint32_t dram_filter_levels;
};

class DBModelTest : public ::testing::TestWithParam<ModelCase> {};

// Random puts, overwrites and deletes against std::unordered_map, with the
// DB closed and reopened (recovering from its logs) at random points.
TEST_P(DBModelTest, MatchesReferenceMapAcrossReopens) {
  const ModelCase& c = GetParam();
  test::Pool pool(c.name, c.medium);
  Options o = TinyOptions();
  o.first_level_fanout_bits = c.first_level_fanout_bits;
  o.preallocated_levels = c.preallocated_levels;
  o.dram_filter_levels = c.dram_filter_levels;
  const uint64_t ops = test::Soak() ? 2000000 : 250000;
  const uint64_t key_space = 3000;

  std::unordered_map<uint64_t, uint64_t> model;
  std::mt19937_64 rng(std::hash<std::string>()(c.name));
  std::unique_ptr<DB> db;
  ASSERT_OK(pool.Open(o, &db));
  // Stats count from each Open: sum the recycled log chunks over the DBs.
  uint64_t log_compactions = 0;
  auto count_compactions = [&] {
    Stats stats;
    ASSERT_OK(db->GetStats(&stats));
    log_compactions += stats.log_compactions;
  };
  for (uint64_t i = 0; i < ops; ++i) {
    const uint64_t key = rng() % key_space;
    const unsigned dice = rng() % 100;
    if (dice < 60) {
      const uint64_t value = rng();
      ASSERT_OK(db->Put({}, Word(key), Word(value)));
      model[key] = value;
    } else if (dice < 80) {
      ASSERT_OK(db->Delete({}, Word(key)));
      model.erase(key);
    } else if (dice < 99) {
      std::string value;
      Status s = db->Get({}, Word(key), &value);
      auto it = model.find(key);
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound())
            << "key " << key << " op " << i << ": " << s.ToString();
      } else {
        ASSERT_OK(s);
        ASSERT_EQ(FromWord(value), it->second) << "key " << key << " op " << i;
      }
    } else if (rng() % 20 == 0) {
      count_compactions();
      db.reset();  // close and recover
      ASSERT_OK(pool.Open(o, &db));
    }
  }
  std::string report;
  ASSERT_OK(db->Verify(&report));
  for (uint64_t key = 0; key < key_space; ++key) {
    std::string value;
    Status s = db->Get({}, Word(key), &value);
    auto it = model.find(key);
    if (it == model.end()) {
      ASSERT_TRUE(s.IsNotFound()) << key;
    } else {
      ASSERT_OK(s);
      ASSERT_EQ(FromWord(value), it->second) << key;
    }
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_GE(stats.levels, 4u)
      << "the workload must exercise recursive migrations";
  count_compactions();
  EXPECT_GT(log_compactions, 0u) << "and recycle log chunks";
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, DBModelTest,
    ::testing::Values(ModelCase{"file", test::Medium::kFile, 1, 0, 0},
                      ModelCase{"sim", test::Medium::kSim, 1, 0, 0},
                      ModelCase{"unit_first_fanout", test::Medium::kFile, 0, 0, 0},
                      ModelCase{"preallocated", test::Medium::kFile, 2, 2, 0},
                      ModelCase{"dram_filters", test::Medium::kFile, 1, 1, 2}),
    [](const ::testing::TestParamInfo<ModelCase>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace plush
