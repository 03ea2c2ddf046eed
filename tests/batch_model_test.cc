// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches of any size, wherever their keys fall (issue 27), checked
// against std::map<std::string, std::string>:
//
//   * batches of 65,536 records (kMaxBatchRecords) into one DRAM entry of
//     32 slots (the small profile): the entry fills and migrates 2,048
//     times while the batch is inserted;
//   * batches larger than a recovery-log chunk (167 entries: their
//     members go to the spill area) and smaller ones, over one entry or
//     spread over the table;
//   * overwrites and deletes of earlier batches' keys, a key written
//     several times in one batch (the last write wins), 8/8 and payload
//     records, single writes and checkpoints in between;
//
// on hash pools (keys picked by their DRAM entry) and range pools (keys of
// one prefix: one partition; with re-balancing off, so that they stay in
// one entry, and on), logged and unlogged. After each phase the pool is
// reopened — cleanly, or, for logged batches, after a simulated power
// failure — and must equal the model: every key written reads as the model
// says, a range pool's full scan returns the model in order, and Verify()
// is clean.

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "placement/key_hash.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::test {
namespace {

using Model = std::map<std::string, std::string>;

struct Config {
  const char* name;
  Partitioning partitioning;
  bool logged;
  bool rebalance = false;  // range pools: re-balancing in the background
};

std::string BigEndian(uint64_t v) {
  const uint64_t word = __builtin_bswap64(v);
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

class BatchModelTest : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    const Config& c = GetParam();
    options_ = Options::SmallProfile();
    options_.partitioning = c.partitioning;
    options_.range_rebalance = c.rebalance;
    options_.background_threads = c.rebalance ? 1 : 0;
    ASSERT_OK(pool_.Open(options_, &db_));
    ASSERT_EQ(1u << options_.dram_directory_bits, 4u);
  }

  // Key `i` of the hot set: all in one DRAM entry. Even keys are 8 bytes
  // (inline records when their value is 8 bytes too), odd ones longer.
  // Range pools: one prefix ("user:" and its leading bytes); hash pools:
  // the keys whose table hash selects entry 0.
  std::string HotKey(uint64_t i) {
    if (GetParam().partitioning == Partitioning::kRange) {
      if (i % 2 == 0) return BigEndian(0x7573000000000000 | i);  // "us"...
      char key[32];
      std::snprintf(key, sizeof(key), "user:%08" PRIu64, i);
      return key;
    }
    while (hot_.size() <= i) {
      const uint64_t n = hot_.size();
      for (;; ++next_candidate_) {
        const std::string key =
            n % 2 == 0 ? Word(next_candidate_)
                       : "hot:" + std::to_string(next_candidate_);
        const uint64_t hash =
            n % 2 == 0 ? InlineKeyHash(next_candidate_) : KeyHash(key);
        if ((hash & 3) == 0) {
          hot_.push_back(key);
          ++next_candidate_;
          break;
        }
      }
    }
    return hot_[i];
  }
  // A key anywhere in the table.
  std::string SpreadKey(uint64_t i) {
    return i % 3 == 0 ? Word(i * 0x9E3779B97F4A7C15)
                      : "spread:" + std::to_string(i * 7919);
  }
  // 8 bytes half of the time, else 0..100 bytes.
  std::string Value() {
    const size_t n = rng_() % 2 == 0 ? 8 : rng_() % 101;
    return RandomBytes(rng_, n);
  }

  // Writes `ops` as one batch (null value: a delete) and applies them to
  // the model.
  void WriteBatchOf(const std::vector<std::pair<std::string, const std::string*>>& ops) {
    WriteBatch batch;
    for (const auto& [key, value] : ops) {
      if (value != nullptr) {
        batch.Put(key, *value);
      } else {
        batch.Delete(key);
      }
    }
    WriteOptions w;
    w.log = GetParam().logged;
    ASSERT_OK(db_->Write(w, &batch)) << ops.size() << " operations";
    for (const auto& [key, value] : ops) {
      if (value != nullptr) {
        model_[key] = *value;
      } else {
        model_.erase(key);
      }
      written_.insert(key);
    }
    ++batches_;
  }

  // A batch of `n` operations on hot keys [0, key_space) (and, with
  // `spread`, a quarter on keys anywhere): puts, ~15% deletes, and a few
  // keys written twice.
  void RandomBatch(size_t n, uint64_t key_space, bool spread) {
    std::deque<std::string> values;  // (stable addresses)
    std::vector<std::pair<std::string, const std::string*>> ops;
    ops.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      std::string key = spread && rng_() % 4 == 0
                            ? SpreadKey(rng_() % 50000)
                            : HotKey(rng_() % key_space);
      if (rng_() % 100 < 15) {
        ops.emplace_back(std::move(key), nullptr);
      } else {
        values.push_back(Value());
        ops.emplace_back(std::move(key), &values.back());
      }
      if (rng_() % 50 == 0 && !ops.empty()) {  // the same key again
        values.push_back(Value());
        ops.emplace_back(ops[rng_() % ops.size()].first, &values.back());
      }
    }
    ASSERT_NO_FATAL_FAILURE(WriteBatchOf(ops));
  }

  // Hot keys [first, first + n) put in one batch, in order.
  void HotBatch(uint64_t first, uint64_t n) {
    std::deque<std::string> values;  // (stable addresses)
    std::vector<std::pair<std::string, const std::string*>> ops;
    ops.reserve(n);
    for (uint64_t i = first; i < first + n; ++i) {
      values.push_back(Value());
      ops.emplace_back(HotKey(i), &values.back());
    }
    ASSERT_NO_FATAL_FAILURE(WriteBatchOf(ops));
  }

  void ExpectMatchesModel(const std::string& when) {
    const std::vector<std::string> keys(written_.begin(), written_.end());
    ASSERT_NO_FATAL_FAILURE(ExpectGetsMatch(db_.get(), model_, keys, when));
    if (GetParam().partitioning == Partitioning::kRange) {
      std::unique_ptr<Iterator> it = db_->NewIterator({});
      it->SeekToFirst();
      ASSERT_NO_FATAL_FAILURE(ExpectRecords(it.get(), model_.begin(),
                                            model_.end(), model_.size() + 1,
                                            when + ", full scan"));
    }
    ASSERT_NO_FATAL_FAILURE(ExpectVerified(db_.get()));
  }

  // Closes and reopens the pool; logged batches: every other time after a
  // simulated power failure instead (all of them were acknowledged).
  void Reopen(const std::string& when) {
    const bool crash = ++reopens_ % 2 == 0 && GetParam().logged;
    if (crash) {
      auto device = media::SimMedia::Find(pool_.path);
      ASSERT_NE(device, nullptr);
      device->CrashNow();
      db_.reset();  // (its close fails on the crashed device: ignored)
      device->RestoreCrashImage(rng_());
    } else {
      ASSERT_OK(db_->Close());
      db_.reset();
    }
    ASSERT_OK(pool_.Open(options_, &db_));
    ASSERT_NO_FATAL_FAILURE(
        ExpectMatchesModel(when + (crash ? ", after a crash" : ", reopened")));
  }

  // Every phase ends with a check and a reopen.
  void EndPhase(const std::string& when) {
    ASSERT_NO_FATAL_FAILURE(ExpectMatchesModel(when));
    ASSERT_NO_FATAL_FAILURE(Reopen(when));
  }

  Options options_;
  Pool pool_{"batch_model", Medium::kSim};
  std::unique_ptr<DB> db_;
  std::mt19937_64 rng_{27};
  Model model_;
  std::set<std::string> written_;
  std::vector<std::string> hot_;
  uint64_t next_candidate_ = 1;
  uint64_t batches_ = 0;
  int reopens_ = 0;
};

TEST_P(BatchModelTest, MatchesReferenceMap) {
  constexpr uint64_t kLargest = kMaxBatchRecords;
  // Phase 1: a few records in the entry, then the largest batch into it.
  ASSERT_NO_FATAL_FAILURE(HotBatch(0, 10));
  ASSERT_NO_FATAL_FAILURE(HotBatch(5, kLargest));
  Stats stats;
  ASSERT_OK(db_->GetStats(&stats));
  EXPECT_GE(stats.dram_migrations_inline, kLargest / 32)
      << "the batch filled one entry of 32 (and migrated it) again and again";
  ASSERT_NO_FATAL_FAILURE(EndPhase("after the largest batch into one entry"));

  // Phase 2: batches of every size, on the hot keys and all over.
  const size_t sizes[] = {1, 7, 31, 33, 100, 166, 167, 168, 400, 2000, 9000};
  for (int round = 0; round < 3; ++round) {
    for (const size_t n : sizes) {
      ASSERT_NO_FATAL_FAILURE(RandomBatch(n, kLargest + 5, round % 2 == 1));
    }
    if (round == 1) {
      ASSERT_OK(db_->Checkpoint(1));
    }
  }
  ASSERT_NO_FATAL_FAILURE(EndPhase("after batches of every size"));

  // Phase 3: the largest batch again, over the same keys: overwrites,
  // deletes and repeated keys, after a single write of some of its keys.
  for (uint64_t i = 0; i < 20; ++i)
    ASSERT_OK(db_->Put({}, HotKey(i * 1000), "single"));
  for (uint64_t i = 0; i < 20; ++i) model_[HotKey(i * 1000)] = "single";
  ASSERT_NO_FATAL_FAILURE(RandomBatch(kLargest - 2000, kLargest + 5, false));
  ASSERT_NO_FATAL_FAILURE(EndPhase("after the largest batch again"));

  // Phase 4: batches right after a reopen (the spill area holds a
  // recovered batch), then without anything in between.
  ASSERT_NO_FATAL_FAILURE(RandomBatch(5000, 2 * kLargest, true));
  ASSERT_NO_FATAL_FAILURE(HotBatch(kLargest, 3000));
  ASSERT_NO_FATAL_FAILURE(EndPhase("after more batches"));
  ASSERT_OK(db_->GetStats(&stats));
  std::printf("[batch_model] %s: %" PRIu64 " batches, %zu keys, %d reopens, "
              "%" PRIu64 " re-balances\n",
              GetParam().name, batches_, model_.size(), reopens_,
              stats.range_rebalances);
}

INSTANTIATE_TEST_SUITE_P(
    AllPools, BatchModelTest,
    ::testing::Values(Config{"HashLogged", Partitioning::kHash, true},
                      Config{"HashUnlogged", Partitioning::kHash, false},
                      Config{"RangeLogged", Partitioning::kRange, true},
                      Config{"RangeUnlogged", Partitioning::kRange, false},
                      Config{"RangeLoggedRebalancing", Partitioning::kRange,
                             true, true}),
    [](const ::testing::TestParamInfo<Config>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace plush::test
