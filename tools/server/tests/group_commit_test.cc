// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "group_commit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace plush::server {
namespace {

// Records what it is told; optionally runs `then` from inside Committed()
// (on the leader's thread, while it leads).
class RecordingWaiter final : public GroupCommit::Waiter {
 public:
  void Committed(const Status& s) override {
    status = s;
    if (then) then();
    calls.fetch_add(1);  // last: a waiting thread may then destroy this
  }
  Status status = Status::Corruption("not committed");
  std::atomic<int> calls{0};
  std::function<void()> then;
};

// The keys and values of the concurrency test. (Appended: GCC 12 warns
// falsely about "literal" + std::string.)
std::string KeyOf(int thread, int request) {
  std::string key = std::to_string(thread);
  key += ':';
  key += std::to_string(request);
  return key;
}

std::string ValueOf(const std::string& key) {
  std::string value = "v";
  value += key;
  return value;
}

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TempDir() + "/plush_group_commit_test_" +
            std::to_string(getpid()) + ".pool";
    std::filesystem::remove(path_);
    ASSERT_TRUE(DB::Open(Options::SmallProfile(), path_, &db_).ok());
  }
  void TearDown() override {
    EXPECT_TRUE(db_->Close().ok());
    std::filesystem::remove(path_);
  }

  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    return s.ok() ? value : s.ToString();
  }

  std::string path_;
  std::unique_ptr<DB> db_;
};

TEST_F(GroupCommitTest, ALoneRequestIsCommittedBeforeSubmitReturns) {
  GroupCommit commit(db_.get());
  RecordingWaiter waiter;
  const std::vector<KeyValue> puts = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
  commit.Submit(puts, &waiter);
  EXPECT_EQ(waiter.calls.load(), 1);
  EXPECT_TRUE(waiter.status.ok()) << waiter.status.ToString();
  EXPECT_EQ(Get("a"), "3");  // the later put of a key wins
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(commit.counters().groups, 1u);
  EXPECT_EQ(commit.counters().requests, 1u);
}

// Requests submitted while a commit runs form the next group; one bad
// request in it fails alone.
TEST_F(GroupCommitTest, AFailingRequestDoesNotFailItsGroup) {
  GroupCommit commit(db_.get());
  RecordingWaiter first, good1, bad, good2;
  const std::vector<KeyValue> first_puts = {{"first", "1"}};
  const std::vector<KeyValue> good1_puts = {{"g1", "1"}};
  const std::string too_long(kMaxKeySize + 1, 'k');
  const std::vector<KeyValue> bad_puts = {{"ok", "1"}, {too_long, "1"}};
  const std::vector<KeyValue> good2_puts = {{"g2", "1"}};
  first.then = [&] {  // the leader is busy: these queue
    commit.Submit(good1_puts, &good1);
    commit.Submit(bad_puts, &bad);
    commit.Submit(good2_puts, &good2);
    EXPECT_EQ(good1.calls.load(), 0);
  };
  commit.Submit(first_puts, &first);
  for (RecordingWaiter* w : {&first, &good1, &bad, &good2}) {
    EXPECT_EQ(w->calls.load(), 1);
  }
  EXPECT_TRUE(good1.status.ok());
  EXPECT_TRUE(good2.status.ok());
  EXPECT_EQ(bad.status.ToString(),
            "InvalidArgument: batch operation 1: key of 1025 bytes exceeds "
            "the limit of 1024");
  EXPECT_EQ(Get("g1"), "1");
  EXPECT_EQ(Get("g2"), "1");
  EXPECT_EQ(Get("ok"), "NotFound: key not found");  // its request: nothing
  // first; the group of three (failed); each of the three on its own.
  EXPECT_EQ(commit.counters().groups, 5u);
  EXPECT_EQ(commit.counters().requests, 4u);
}

TEST_F(GroupCommitTest, ConcurrentClientsAreCommittedTogether) {
  GroupCommit commit(db_.get());
  constexpr int kThreads = 8;
  constexpr int kRequests = 300;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        const std::string key = KeyOf(t, i);
        const std::string value = ValueOf(key);
        const std::vector<KeyValue> puts = {{key, value}};
        RecordingWaiter waiter;
        commit.Submit(puts, &waiter);
        // A follower's Submit returns at once; wait for the leader.
        while (waiter.calls.load() == 0) std::this_thread::yield();
        if (!waiter.status.ok() || waiter.calls.load() != 1) failures++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kRequests; ++i) {
      const std::string key = KeyOf(t, i);
      ASSERT_EQ(Get(key), ValueOf(key));
    }
  }
  const GroupCommit::Counters counters = commit.counters();
  EXPECT_EQ(counters.requests, uint64_t{kThreads * kRequests});
  EXPECT_GT(counters.groups, 0u);
}

}  // namespace
}  // namespace plush::server
