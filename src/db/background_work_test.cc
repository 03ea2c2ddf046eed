// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Background work (background_work.h), observed through a DB: who migrates
// the DRAM entries and recycles the log chunks, and that nothing is lost
// whoever does.

#include "db/background_work.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "plush/db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::ScratchPool;
using test::Word;

// The small profile: 4 DRAM entries of 32 slots (high-water mark 28) and
// 2 logs of 3 chunks of 168 entries.
Options Small(unsigned background_threads) {
  Options o = Options::SmallProfile();
  o.background_threads = background_threads;
  return o;
}

Stats StatsOf(DB* db) {
  Stats s;
  EXPECT_OK(db->GetStats(&s));
  return s;
}

// Waits (up to 10 s) until `done(stats)` holds.
template <typename Done>
bool WaitFor(DB* db, Done done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done(StatsOf(db))) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class BackgroundWorkTest : public ::testing::Test {
 protected:
  void Open(unsigned threads) {
    db_.reset();
    ASSERT_OK(DB::Open(Small(threads), file_.path(), &db_));
  }
  // Puts keys [first, first + n), pausing after each so that background
  // threads keep up with a writer this slow.
  void PutPaced(uint64_t first, uint64_t n) {
    for (uint64_t k = first; k < first + n; ++k) {
      ASSERT_OK(db_->Put({}, Word(k), Word(k * 3)));
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  }
  void ExpectAll(uint64_t n) {
    for (uint64_t k = 0; k < n; ++k) {
      std::string v;
      ASSERT_OK(db_->Get({}, Word(k), &v)) << "key " << k;
      EXPECT_EQ(v, Word(k * 3)) << "key " << k;
    }
  }

  ScratchPool file_{"background_work"};
  std::unique_ptr<DB> db_;
};

TEST_F(BackgroundWorkTest, EntriesMigrateBeforeTheyFillWhenWritersArePaced) {
  Open(1);
  PutPaced(0, 600);  // some 20 fills of the 4 entries
  const Stats s = StatsOf(db_.get());
  EXPECT_GT(s.dram_migrations_background, 10u);
  // A writer this slow finds its entry full only when the thread was held
  // up (a loaded machine, a sanitizer build): rarely.
  EXPECT_GT(s.dram_migrations_background, 4 * s.dram_migrations_inline);
  ExpectAll(600);
  db_.reset();
  Open(1);  // reopened: the logs and the levels hold everything
  ExpectAll(600);
}

TEST_F(BackgroundWorkTest, WithoutThreadsWritersMigrateTheirEntries) {
  Open(0);
  PutPaced(0, 300);
  const Stats s = StatsOf(db_.get());
  EXPECT_EQ(s.dram_migrations_background, 0u);
  EXPECT_EQ(s.log_recycles_background, 0u);
  EXPECT_GT(s.dram_migrations_inline, 5u);
  ExpectAll(300);
}

TEST_F(BackgroundWorkTest, LogChunksAreRecycledAheadOfTheWriters) {
  Open(1);
  // 2 logs of 3 chunks: past two and a half chunks per log the oldest one
  // is recycled in the background.
  PutPaced(0, 1100);
  EXPECT_TRUE(WaitFor(db_.get(), [](const Stats& s) {
    return s.log_recycles_background > 0;
  }));
  ExpectAll(1100);
}

// A writer faster than the background thread still never waits for it:
// whatever the thread has not migrated, the writer migrates itself.
TEST_F(BackgroundWorkTest, AFastWriterMigratesWhatTheThreadsHaveNotReached) {
  Open(1);
  for (uint64_t k = 0; k < 20000; ++k) {
    ASSERT_OK(db_->Put({}, Word(k), Word(k * 3)));
  }
  const Stats s = StatsOf(db_.get());
  // Recycling the log's chunks ahead of need migrates entries too.
  EXPECT_GT(s.dram_migrations_background + s.dram_migrations_inline +
                s.log_forced_migrations,
            500u);
  ExpectAll(20000);
}

// Close stops the threads (work in progress finishes, queued work is
// dropped) and keeps every write.
TEST_F(BackgroundWorkTest, CloseWithWorkQueuedKeepsEveryWrite) {
  Open(1);
  for (uint64_t k = 0; k < 3000; ++k) {
    ASSERT_OK(db_->Put({}, Word(k), Word(k * 3)));
  }
  ASSERT_OK(db_->Close());
  Open(1);
  ExpectAll(3000);
  std::string report;
  EXPECT_OK(db_->Verify(&report)) << report;
}

}  // namespace
}  // namespace plush
