// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ReplySync on a power-fail-safe pool file whose msyncs are counted (and
// failed on demand): the writes of a pass leave their barriers to its one
// sync, which tells every waiter; a waiter of the next pass gets the next
// sync; a failed sync is every waiter's answer, and stays. SyncedWrites:
// which writes a sync covered.

#include "reply_sync.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "keyspace.h"
#include "keyspace_gate.h"
#include "synced_pool.h"
#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"
#include "watched_keys.h"

namespace plush::server {
namespace {

class RecordingWaiter final : public ReplySync::Waiter {
 public:
  void Synced(const Status& s) override {
    statuses.push_back(s);
    if (then) std::exchange(then, nullptr)();
  }
  std::vector<Status> statuses;
  std::function<void()> then;  // run once, from inside Synced()
};

class ReplySyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TempDir() + "/plush_reply_sync_test_" +
            std::to_string(getpid()) + ".pool";
    std::filesystem::remove(path_);
    ASSERT_TRUE(OpenDB(SyncedPool(), {.file_ops = faults_}, path_, &db_).ok());
    keyspace_ = std::make_unique<PoolKeyspace>(db_.get(), nullptr, &watched_,
                                               /*synced=*/true);
    sync_ = std::make_unique<ReplySync>(
        [this](std::function<void()> fn) { posted_.push_back(std::move(fn)); },
        db_.get(), &gate_, &writes_, &syncs_);
    // The keys' first writes: their logs' first chunks taken (msyncs that
    // the tests do not count).
    for (const char* key : {"a", "b", "k"}) Set(key, "0");
  }
  void TearDown() override {
    EXPECT_EQ(db_->Close().ok(), !sync_failed_);  // a failed sync is sticky
    std::filesystem::remove(path_);
  }

  // Runs what was posted, in order, as the event loop would: what the
  // handlers post meanwhile runs too.
  void RunLoop() {
    while (!posted_.empty()) {
      std::function<void()> next = std::move(posted_.front());
      posted_.erase(posted_.begin());
      next();
    }
  }

  // A write as a connection makes it (SET k v): counted, its barrier left
  // to the reply's sync.
  void Set(const std::string& key, const std::string& value) {
    const KeyValue put{key, value};
    writes_.Begin();
    ASSERT_TRUE(keyspace_->Put({&put, 1}).ok());
    writes_.End();
  }

  // A connection's write and its wait for the reply's sync.
  std::shared_ptr<RecordingWaiter> WriteAndAwait(const std::string& key,
                                                 const std::string& value) {
    auto waiter = std::make_shared<RecordingWaiter>();
    Set(key, value);
    sync_->Await(waiter);
    return waiter;
  }

  std::string path_;
  const std::shared_ptr<media::FaultInjectingFileOps> faults_ =
      std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db_;
  bool sync_failed_ = false;
  KeyspaceGate gate_;
  WatchedKeys watched_;
  std::unique_ptr<PoolKeyspace> keyspace_;
  std::vector<std::function<void()>> posted_;  // the event loop's queue
  SyncedWrites writes_;
  std::atomic<uint64_t> syncs_{0};
  std::unique_ptr<ReplySync> sync_;
};

TEST_F(ReplySyncTest, OneSyncCoversEveryWaiterOfAPass) {
  const int msyncs = faults_->syncs();
  const auto a = WriteAndAwait("a", "1");
  const auto b = WriteAndAwait("b", "2");
  const auto c = std::make_shared<RecordingWaiter>();
  sync_->Await(c);  // a read of what they wrote, say
  EXPECT_EQ(posted_.size(), 1u) << "one sync per pass";
  EXPECT_EQ(faults_->syncs(), msyncs) << "the writes left it to the sync";
  EXPECT_TRUE(a->statuses.empty()) << "told before the sync";
  RunLoop();
  EXPECT_EQ(faults_->syncs(), msyncs + 1);
  EXPECT_EQ(syncs_.load(), 1u);
  EXPECT_FALSE(writes_.Uncovered());
  for (const auto& w : {a, b, c}) {
    ASSERT_EQ(w->statuses.size(), 1u);
    EXPECT_TRUE(w->statuses[0].ok()) << w->statuses[0].ToString();
  }
}

// A connection that its sync's answer sent on may write and wait again
// before the loop's pass ends: that write came after the sync began, so
// it waits for the next one.
TEST_F(ReplySyncTest, AWaiterOfTheNextPassGetsTheNextSync) {
  const int msyncs = faults_->syncs();
  const auto first = std::make_shared<RecordingWaiter>();
  const auto next = std::make_shared<RecordingWaiter>();
  first->then = [&] {
    EXPECT_TRUE(next->statuses.empty());
    Set("k", "2");
    sync_->Await(next);
  };
  Set("k", "1");
  sync_->Await(first);
  RunLoop();
  EXPECT_EQ(faults_->syncs(), msyncs + 2);
  EXPECT_EQ(syncs_.load(), 2u);
  ASSERT_EQ(next->statuses.size(), 1u);
  EXPECT_TRUE(next->statuses[0].ok());
}

// Requests that arrive while a pass runs (read by the loop after the
// sync was posted) share its sync: it is put off while waiters come.
TEST_F(ReplySyncTest, WaitersThatComeWhileThePassRunsShareItsSync) {
  const int msyncs = faults_->syncs();
  const auto a = WriteAndAwait("a", "1");
  const auto b = WriteAndAwait("b", "2");  // the same pass
  std::shared_ptr<RecordingWaiter> c;
  posted_.push_back([&] {  // a request read after the sync was posted
    c = WriteAndAwait("k", "3");
  });
  RunLoop();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(faults_->syncs(), msyncs + 1) << "one sync for the three";
  EXPECT_EQ(syncs_.load(), 1u);
  for (const auto& w : {a, b, c}) {
    ASSERT_EQ(w->statuses.size(), 1u);
    EXPECT_TRUE(w->statuses[0].ok()) << w->statuses[0].ToString();
  }
}

// A lone waiter is not kept waiting for others, and a stream of them
// puts the sync off only kMaxDeferrals times.
TEST_F(ReplySyncTest, ASyncIsPutOffOnlyWhileWaitersComeAndAtMostSoOften) {
  const auto lone = std::make_shared<RecordingWaiter>();
  Set("a", "1");
  sync_->Await(lone);
  ASSERT_EQ(posted_.size(), 1u);
  posted_.front()();  // the first check syncs: no waiter came
  posted_.clear();
  EXPECT_EQ(syncs_.load(), 1u);
  ASSERT_EQ(lone->statuses.size(), 1u);

  std::vector<std::shared_ptr<RecordingWaiter>> stream;
  size_t waiters_at_first_sync = 0;
  std::function<void()> arrive = [&] {  // a waiter each turn of the loop
    if (stream.size() + 1 < 40) posted_.push_back(arrive);
    stream.push_back(std::make_shared<RecordingWaiter>());
    if (stream.size() == 1)
      stream[0]->then = [&] { waiters_at_first_sync = stream.size(); };
    Set("k", std::to_string(stream.size()));
    sync_->Await(stream.back());
  };
  posted_.push_back(arrive);
  RunLoop();
  ASSERT_EQ(stream.size(), 40u);
  // The first waiter's sync was put off for each of the kMaxDeferrals
  // turns of the loop that brought another waiter, then made.
  EXPECT_EQ(waiters_at_first_sync, ReplySync::kMaxDeferrals + 2u);
  for (const auto& w : stream) {
    ASSERT_EQ(w->statuses.size(), 1u);
    EXPECT_TRUE(w->statuses[0].ok()) << w->statuses[0].ToString();
  }
}

TEST_F(ReplySyncTest, AFailedSyncIsEveryWaitersAnswerAndStays) {
  const std::string failed =
      "IOError: a sync of the pool failed; writes and syncs are refused "
      "until the pool is opened again: msync of the pool file: Input/output "
      "error";
  const auto a = std::make_shared<RecordingWaiter>();
  const auto b = std::make_shared<RecordingWaiter>();
  Set("a", "1");
  sync_->Await(a);
  Set("b", "2");
  sync_->Await(b);
  faults_->FailNextSyncs(1, EIO);
  sync_failed_ = true;
  RunLoop();
  for (const auto& w : {a, b}) {
    ASSERT_EQ(w->statuses.size(), 1u);
    EXPECT_EQ(w->statuses[0].ToString(), failed);
  }
  EXPECT_TRUE(writes_.Uncovered()) << "a failed sync covers nothing";
  // Sticky: the next pass is told the same, though no sync fails now.
  const auto later = std::make_shared<RecordingWaiter>();
  sync_->Await(later);
  RunLoop();
  ASSERT_EQ(later->statuses.size(), 1u);
  EXPECT_EQ(later->statuses[0].ToString(), failed);
}

TEST(SyncedWritesTest, AWriteIsUncoveredUntilASyncThatBeganAfterItEnded) {
  SyncedWrites writes;
  EXPECT_FALSE(writes.Uncovered());
  writes.Begin();
  EXPECT_TRUE(writes.Uncovered()) << "a reader may see it already";
  const uint64_t too_early = writes.Ended();  // a sync begun before its end
  writes.End();
  writes.Covered(too_early);
  EXPECT_TRUE(writes.Uncovered());
  writes.Covered(writes.Ended());
  EXPECT_FALSE(writes.Uncovered());
  // A report of an older sync arriving late takes nothing back.
  writes.Covered(too_early);
  EXPECT_FALSE(writes.Uncovered());
}

// A sync that began while one write ran covers the writes that had ended,
// but not so that readers could skip the one still running.
TEST(SyncedWritesTest, AWriteStillRunningKeepsEveryReplyWaiting) {
  SyncedWrites writes;
  writes.Begin();  // a long write
  writes.Begin();  // a short one
  writes.End();
  writes.Covered(writes.Ended());
  EXPECT_TRUE(writes.Uncovered());
  writes.End();  // the long one
  EXPECT_TRUE(writes.Uncovered());
  writes.Covered(writes.Ended());
  EXPECT_FALSE(writes.Uncovered());
}

}  // namespace
}  // namespace plush::server
