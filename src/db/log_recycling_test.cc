// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Log recycling (log_recycling.h), observed through a DB: writes that
// replace records free the logs' oldest chunks by rewriting the DRAM
// entries they belong to, so that the logs stay at a few chunks, and
// every key keeps its newest state across reopening.

#include "db/log_recycling.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>

#include "plush/db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::ScratchPool;
using test::Word;

// 16 DRAM entries of 256 slots, 2 logs of 32 chunks of 16 KiB (680
// records): the logs could hold 43,520 records, and a chunk's storage is
// backed as it fills (its header page from the start).
Options Pool(unsigned background_threads) {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;
  o.fanout_bits = 4;
  o.log_count = 2;
  o.log_chunk_size = 16 << 10;
  o.log_chunks_per_log = 32;
  o.background_threads = background_threads;
  return o;
}

uint64_t Count(const Stats& s, const std::string& name) {
  for (const auto& [n, value] : s.more_counts) {
    if (n == name) return value;
  }
  ADD_FAILURE() << "no count " << name;
  return 0;
}

class LogRecyclingTest : public ::testing::TestWithParam<unsigned> {
 protected:
  void Open() {
    db_.reset();
    ASSERT_OK(DB::Open(Pool(GetParam()), file_.path(), &db_));
  }
  Stats StatsNow() {
    Stats s;
    EXPECT_OK(db_->GetStats(&s));
    return s;
  }
  // Round r: every key of [0, keys) written again (1 in 7 deleted).
  void Round(uint64_t keys, uint64_t r) {
    for (uint64_t k = 0; k < keys; ++k) {
      if ((k + r) % 7 == 0) {
        ASSERT_OK(db_->Delete({}, Word(k)));
        model_.erase(Word(k));
      } else {
        ASSERT_OK(db_->Put({}, Word(k), Word(r << 20 | k)));
        model_[Word(k)] = Word(r << 20 | k);
      }
    }
  }
  void ExpectModel() {
    for (uint64_t k = 0; k < 200; ++k) {
      std::string value;
      const Status s = db_->Get({}, Word(k), &value);
      const auto it = model_.find(Word(k));
      if (it == model_.end()) {
        EXPECT_TRUE(s.IsNotFound()) << "key " << k << ": " << s.ToString();
      } else {
        ASSERT_OK(s) << "key " << k;
        EXPECT_EQ(value, it->second) << "key " << k;
      }
    }
    std::string report;
    EXPECT_OK(db_->Verify(&report)) << report;
  }

  ScratchPool file_{"log_recycling"};
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

// 40 keys written 400 times: 16,000 records, 12 chunks per log if nothing
// were freed. The logs rewrite entries instead, take (almost) no storage
// after the first rounds and migrate nothing (the DRAM entries never fill
// with old versions either).
TEST_P(LogRecyclingTest, OverwritesKeepTheLogsAtAFewChunks) {
  Open();
  for (uint64_t r = 0; r < 40; ++r) ASSERT_NO_FATAL_FAILURE(Round(40, r));
  const Stats early = StatsNow();
  for (uint64_t r = 40; r < 400; ++r) ASSERT_NO_FATAL_FAILURE(Round(40, r));
  const Stats late = StatsNow();
  EXPECT_GT(Count(late, "dram_rewrites"), 50u);
  EXPECT_EQ(late.migrations, 0u);
  EXPECT_LE(Count(late, "log_backed_bytes"),
            Count(early, "log_backed_bytes") + 4 * 4096);
  ExpectModel();
  Open();
  ExpectModel();
}

// Tombstones of keys that live below the DRAM level survive the rewrites
// of their entries, and so do the keys no write touched since.
TEST_P(LogRecyclingTest, RewritesKeepTombstonesAndUntouchedKeys) {
  Open();
  for (uint64_t k = 0; k < 200; ++k) {
    ASSERT_OK(db_->Put({}, Word(k), Word(k)));
    model_[Word(k)] = Word(k);
  }
  ASSERT_OK(db_->Checkpoint());
  for (uint64_t k = 100; k < 150; ++k) {
    ASSERT_OK(db_->Delete({}, Word(k)));
    model_.erase(Word(k));
  }
  const uint64_t before = Count(StatsNow(), "dram_rewrites");
  for (uint64_t r = 1; r < 300; ++r) {
    for (uint64_t k = 0; k < 20; ++k) {
      ASSERT_OK(db_->Put({}, Word(k), Word(r << 20 | k)));
      model_[Word(k)] = Word(r << 20 | k);
    }
  }
  EXPECT_GT(Count(StatsNow(), "dram_rewrites"), before);
  ExpectModel();
  Open();
  ExpectModel();
}

// Lookups run without locks while writers rewrite entries in place: a
// reader that meets a rewrite waits for it or reads again, and never
// misses a key that every version of holds a value.
TEST_P(LogRecyclingTest, ReadersFindEveryKeyWhileEntriesAreRewritten) {
  Open();
  constexpr uint64_t kKeys = 40;
  for (uint64_t k = 0; k < kKeys; ++k) ASSERT_OK(db_->Put({}, Word(k), Word(k)));
  std::atomic<bool> done{false};
  std::atomic<uint64_t> misses{0};
  std::thread reader([&] {
    for (uint64_t i = 0; !done.load(std::memory_order_relaxed); ++i) {
      std::string value;
      const uint64_t k = i % kKeys;
      if (!db_->Get({}, Word(k), &value).ok() || value.size() != 8 ||
          (test::FromWord(value) & 0xFFFFF) != k) {
        misses.fetch_add(1);
      }
    }
  });
  for (uint64_t r = 1; r < 300; ++r) {
    for (uint64_t k = 0; k < kKeys; ++k)
      ASSERT_OK(db_->Put({}, Word(k), Word(r << 20 | k)));
  }
  done = true;
  reader.join();
  EXPECT_EQ(misses.load(), 0u);
  EXPECT_GT(Count(StatsNow(), "dram_rewrites"), 20u);
}

INSTANTIATE_TEST_SUITE_P(BackgroundThreads, LogRecyclingTest,
                         ::testing::Values(0u, 1u));

}  // namespace
}  // namespace plush
