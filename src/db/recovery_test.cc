// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RecoverDramLevel on its own (db/recovery.h), on the engine's layers
// opened by hand (tests/engine_layers.h) over a simulated device that
// crashed: the logged records that lived only in the DRAM level come back,
// each key's newest version wins over what migrated before the crash,
// unlogged records that never migrated are gone, every DRAM entry's epoch
// ends above its children's, any number of threads gives the same result,
// and recovery writes nothing to the pool.

#include "db/recovery.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_layers.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush {
namespace {

using test::DescribeKey;
using Model = std::map<std::string, std::string>;

constexpr char kDevice[] = "recovery_test";

class RecoveryTest : public ::testing::Test {
 protected:
  ~RecoveryTest() override { media::SimMedia::Remove(kDevice); }

  // Writes a random history (inline and payload records, overwrites,
  // deletes, unlogged writes, migrations of some entries), then crashes at
  // no particular persist point. `durable`: what must come back;
  // `unlogged`: keys whose last write was unlogged and never migrated.
  void WriteAndCrash(const Options& options, uint64_t seed) {
    auto layers = std::make_unique<test::EngineLayers>(kDevice,
                                                       /*keep_device=*/true);
    ASSERT_OK(layers->Open(options));
    std::mt19937_64 rng(seed);
    std::vector<std::string> keys;
    for (int i = 0; i < 3000; ++i) {
      const bool fresh = keys.empty() || rng() % 3 == 0;
      if (fresh) {
        keys.push_back(test::RandomBytes(rng, 1 + rng() % 20));
        if (rng() % 2 == 0) keys.back().resize(8);
      }
      const std::string& key = fresh ? keys.back() : keys[rng() % keys.size()];
      const bool log = rng() % 10 != 0;
      if (rng() % 8 == 0) {
        ASSERT_OK(layers->Delete(key, log));
        Apply(key, std::nullopt, log);
      } else {
        const std::string value = test::RandomBytes(rng, rng() % 3 == 0 ? 8 : 24);
        ASSERT_OK(layers->Put(key, value, log));
        Apply(key, value, log);
      }
      if (i % 700 == 699) {
        // A migration makes what an entry held durable, unlogged or not.
        const uint64_t d = rng() % layers->table().dram_entries();
        ASSERT_OK(layers->Migrate(d));
        for (auto it = pending_.begin(); it != pending_.end();) {
          if (layers->UnitOf(it->first) != d) {
            ++it;
            continue;
          }
          Settle(it->first, it->second);
          it = pending_.erase(it);
        }
      }
    }
    ASSERT_GT(layers->table().level_count(), 1u) << "records must be on PMem";
    media::SimMedia::Find(kDevice)->CrashNow();
    image_ = media::SimMedia::Find(kDevice)->DurableImage();
    layers.reset();
  }

  // Opens the crashed pool's layers and recovers with `threads`.
  void Recover(const Options& options, unsigned threads,
               std::unique_ptr<test::EngineLayers>* out,
               uint64_t* replayed) {
    std::shared_ptr<media::SimMedia> device = media::SimMedia::Find(kDevice);
    device->Restore(image_);
    auto layers = std::make_unique<test::EngineLayers>(kDevice,
                                                       /*keep_device=*/true);
    ASSERT_OK(layers->OpenWithoutRecovery(options));
    const std::vector<uint64_t> before = device->LiveImage();
    ASSERT_OK(RecoverDramLevel(&layers->table(), &layers->logs(),
                               layers->payload(), threads, replayed));
    EXPECT_TRUE(device->LiveImage() == before)
        << "recovery wrote to the pool";
    layers->FinishOpen();
    *out = std::move(layers);
  }

  // Every key's newest durable version reads back; keys whose newest
  // version was an unlogged write that never migrated read as one of their
  // versions since their last durable one (the DRAM entry was lost, older
  // migrated versions may show).
  void ExpectRecovered(test::EngineLayers& layers) {
    for (const auto& [key, value] : durable_) {
      if (pending_.count(key) != 0) continue;
      std::string got;
      const Status s = layers.Get(key, &got);
      if (value) {
        ASSERT_OK(s) << DescribeKey(key);
        EXPECT_EQ(got, *value) << DescribeKey(key);
      } else {
        EXPECT_TRUE(s.IsNotFound()) << DescribeKey(key) << ": " << s.ToString();
      }
    }
    for (uint64_t d = 0; d < layers.table().dram_entries(); ++d) {
      const auto [min, max] = layers.table().ChildEpochRange(d);
      EXPECT_GT(layers.table().DramState(d).epoch, max) << "DRAM entry " << d;
    }
  }

  using Version = std::optional<std::string>;
  // A write: logged, it is durable now (unless a later unlogged one of the
  // key is pending); unlogged, it waits for its entry's migration.
  void Apply(const std::string& key, const Version& value, bool log) {
    if (log) {
      pending_.erase(key);
      Settle(key, value);
    } else {
      pending_[key] = value;
    }
  }
  void Settle(const std::string& key, const Version& value) {
    durable_[key] = value;
  }

  std::map<std::string, Version> durable_;  // newest durable version
  std::map<std::string, Version> pending_;  // unlogged, not yet migrated
  std::vector<uint64_t> image_;
};

TEST_F(RecoveryTest, LoggedRecordsComeBackAndEpochsEndAboveTheChildren) {
  for (const Partitioning partitioning :
       {Partitioning::kHash, Partitioning::kRange}) {
    SCOPED_TRACE(partitioning == Partitioning::kHash ? "hash" : "range");
    Options o = Options::SmallProfile();
    o.partitioning = partitioning;
    o.log_chunks_per_log = 64;  // the history stays in the logs
    durable_.clear();
    pending_.clear();
    ASSERT_NO_FATAL_FAILURE(WriteAndCrash(o, 7));
    std::unique_ptr<test::EngineLayers> layers;
    uint64_t replayed = 0;
    ASSERT_NO_FATAL_FAILURE(Recover(o, 2, &layers, &replayed));
    EXPECT_GT(replayed, 0u);
    ASSERT_NO_FATAL_FAILURE(ExpectRecovered(*layers));
    ASSERT_OK(layers->Put("after", "recovery")) << "writes go on";
    layers.reset();
    media::SimMedia::Remove(kDevice);
  }
}

TEST_F(RecoveryTest, AnyNumberOfThreadsRecoversTheSame) {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;
  o.log_count = 4;
  o.log_chunks_per_log = 64;
  ASSERT_NO_FATAL_FAILURE(WriteAndCrash(o, 11));
  std::map<std::string, std::string> first;
  uint64_t first_replayed = 0;
  for (const unsigned threads : {1u, 3u, 8u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::unique_ptr<test::EngineLayers> layers;
    uint64_t replayed = 0;
    ASSERT_NO_FATAL_FAILURE(Recover(o, threads, &layers, &replayed));
    ASSERT_NO_FATAL_FAILURE(ExpectRecovered(*layers));
    std::map<std::string, std::string> records;
    ASSERT_OK(layers->Scan(&records));
    if (threads == 1) {
      first = records;
      first_replayed = replayed;
    } else {
      EXPECT_TRUE(records == first) << test::FirstDifference(records, first);
      EXPECT_EQ(replayed, first_replayed);
    }
  }
}

// A re-balance raises the epoch of a unit it names above every epoch a
// log may hold, through an empty migration; a unit without a block on
// level 1 keeps that epoch in level 1's block table (no block). Recovery
// resumes the unit above it (else records written after the crash would
// sort below older ones of other units that the logs still hold), and the
// block the unit takes later starts its entries there: a crash at any
// persist point of the unit's first migration into a block leaves no
// child below the epoch.
TEST_F(RecoveryTest, AnEmptyMigrationsEpochSurvivesWithoutABlock) {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;
  const uint64_t children = uint64_t{1} << o.first_level_fanout_bits;
  constexpr uint64_t kUnit = 5;
  constexpr uint64_t kRaised = 1000;
  auto migrate = [](test::EngineLayers& layers, uint64_t d) {
    return layers.write_path().WithEntryLocked(
        d, [&](uint64_t) { return layers.table().MigrateDram(d); });
  };
  auto key_of = [](test::EngineLayers& layers, uint64_t unit) {
    std::string key = test::Word(0);
    for (uint64_t i = 1; layers.UnitOf(key) != unit; ++i) key = test::Word(i);
    return key;
  };
  {
    auto layers = std::make_unique<test::EngineLayers>(kDevice,
                                                       /*keep_device=*/true);
    ASSERT_OK(layers->Open(o));
    ASSERT_OK(layers->Put(key_of(*layers, 0), "level 1"));
    ASSERT_OK(layers->Migrate(0));
    table::LeveledTable& table = layers->table();
    ASSERT_EQ(table.level_count(), 2u);
    table.SetDramEpoch(kUnit, kRaised);
    ASSERT_OK(migrate(*layers, kUnit));
    EXPECT_EQ(table.EntryOffset(1, kUnit * children), 0u)
        << "the empty migration took a block";
    EXPECT_EQ(table.ChildEpochRange(kUnit),
              (std::pair<uint64_t, uint64_t>{kRaised, kRaised}));
    std::string report;
    EXPECT_EQ(table.Verify(&report), 0u) << report;
    media::SimMedia::Find(kDevice)->CrashNow();
    image_ = media::SimMedia::Find(kDevice)->DurableImage();
  }
  const std::vector<uint64_t> raised = image_;
  bool crashed = true;
  for (uint64_t k = 1; crashed; ++k) {
    SCOPED_TRACE("crash at persist point " + std::to_string(k) +
                 " of the unit's first migration into a block");
    image_ = raised;
    std::unique_ptr<test::EngineLayers> layers;
    uint64_t replayed = 0;
    ASSERT_NO_FATAL_FAILURE(Recover(o, 1, &layers, &replayed));
    EXPECT_EQ(layers->table().ChildEpochRange(kUnit),
              (std::pair<uint64_t, uint64_t>{kRaised, kRaised}));
    EXPECT_GT(layers->table().DramState(kUnit).epoch, kRaised);
    std::shared_ptr<media::SimMedia> device = media::SimMedia::Find(kDevice);
    device->ArmCrash(k);
    const std::string key = key_of(*layers, kUnit);
    ASSERT_OK(layers->Put(key, "value"));
    ASSERT_OK(layers->Migrate(kUnit));
    crashed = device->crashed();
    if (!crashed) device->CrashNow();
    image_ = device->DurableImage();
    layers.reset();
    ASSERT_NO_FATAL_FAILURE(Recover(o, 1, &layers, &replayed));
    table::LeveledTable& table = layers->table();
    EXPECT_GE(table.ChildEpochRange(kUnit).first, kRaised);
    EXPECT_GT(table.DramState(kUnit).epoch, kRaised);
    std::string value;
    const Status s = layers->Get(key, &value);
    if (s.ok()) {
      EXPECT_EQ(value, "value");
    } else {
      EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    }
    std::string report;
    EXPECT_EQ(table.Verify(&report), 0u) << report;
  }
}

}  // namespace
}  // namespace plush
