// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "group_commit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"

namespace plush::server {
namespace {

// A pool that takes sync writes, as plush-server --sync-writes opens it;
// of the default sizes, so that no migration adds syncs to those counted.
Options SyncedPool() {
  Options o;
  o.power_fail_safe = true;
  return o;
}

// Records what it is told; optionally runs `then` from inside Committed()
// (on the leader's thread, while it leads).
class RecordingWaiter final : public GroupCommit::Waiter {
 public:
  void Committed(std::vector<Status> s) override {
    statuses = std::move(s);
    if (then) then();
    calls.fetch_add(1);  // last: a waiting thread may then destroy this
  }
  std::vector<Status> statuses;
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
    ASSERT_TRUE(
        OpenDB(SyncedPool(), {.file_ops = faults_}, path_, &db_)
            .ok());
  }
  void TearDown() override {
    EXPECT_EQ(db_->Close().ok(), !sync_failed_);  // a failed sync is sticky
    std::filesystem::remove(path_);
  }

  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    return s.ok() ? value : s.ToString();
  }

  std::string path_;
  // The pool's system calls: a test fails a sync.
  const std::shared_ptr<media::FaultInjectingFileOps> faults_ =
      std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db_;
  bool sync_failed_ = false;
  KeyspaceGate gate_;
  WatchedKeys watched_;
};

TEST_F(GroupCommitTest, ALoneSubmissionIsCommittedBeforeSubmitReturns) {
  GroupCommit commit(db_.get(), WriteBatchLimit(db_.get()), &gate_, &watched_);
  RecordingWaiter waiter;
  // Two commands: an MSET of two keys, then a SET.
  const std::vector<KeyValue> puts = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
  const std::vector<size_t> ends = {2, 3};
  commit.Submit(puts, ends, &waiter);
  ASSERT_EQ(waiter.calls.load(), 1);
  ASSERT_EQ(waiter.statuses.size(), 2u);
  EXPECT_TRUE(waiter.statuses[0].ok());
  EXPECT_TRUE(waiter.statuses[1].ok());
  EXPECT_EQ(Get("a"), "3");  // the later put of a key wins
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(commit.counters().groups, 1u);
  EXPECT_EQ(commit.counters().commands, 2u);
}

// Submissions made while a commit runs form the next group; a failing
// command in it fails alone, all of its puts and none of the others'.
TEST_F(GroupCommitTest, AFailingCommandDoesNotFailItsGroup) {
  GroupCommit commit(db_.get(), WriteBatchLimit(db_.get()), &gate_, &watched_);
  RecordingWaiter first, other, mixed;
  const std::vector<KeyValue> first_puts = {{"first", "1"}};
  const std::vector<size_t> first_ends = {1};
  const std::vector<KeyValue> other_puts = {{"other", "1"}};
  const std::vector<size_t> other_ends = {1};
  const std::string too_long(kMaxKeySize + 1, 'k');
  // A SET, an MSET whose second key is too long, a SET.
  const std::vector<KeyValue> mixed_puts = {
      {"before", "1"}, {"ok", "1"}, {too_long, "1"}, {"after", "1"}};
  const std::vector<size_t> mixed_ends = {1, 3, 4};
  first.then = [&] {  // the leader is busy: these queue
    commit.Submit(other_puts, other_ends, &other);
    commit.Submit(mixed_puts, mixed_ends, &mixed);
    EXPECT_EQ(other.calls.load(), 0);
  };
  commit.Submit(first_puts, first_ends, &first);
  for (RecordingWaiter* w : {&first, &other, &mixed}) {
    EXPECT_EQ(w->calls.load(), 1);
  }
  ASSERT_EQ(other.statuses.size(), 1u);
  EXPECT_TRUE(other.statuses[0].ok());
  ASSERT_EQ(mixed.statuses.size(), 3u);
  EXPECT_TRUE(mixed.statuses[0].ok());
  EXPECT_EQ(mixed.statuses[1].ToString(),
            "InvalidArgument: batch operation 1: key of 1025 bytes exceeds "
            "the limit of 1024 bytes");
  EXPECT_TRUE(mixed.statuses[2].ok());
  EXPECT_EQ(Get("other"), "1");
  EXPECT_EQ(Get("before"), "1");
  EXPECT_EQ(Get("after"), "1");
  EXPECT_EQ(Get("ok"), "NotFound: key not found");  // its command: nothing
  // first; the group of four commands (failed); each of the four alone.
  EXPECT_EQ(commit.counters().groups, 6u);
  EXPECT_EQ(commit.counters().commands, 5u);
}

TEST_F(GroupCommitTest, TheBatchLimitIsAPayloadChunk) {
  EXPECT_EQ(WriteBatchLimit(db_.get()), SyncedPool().payload_chunk_size);
}

TEST_F(GroupCommitTest, GroupsStopAtTheByteLimit) {
  GroupCommit commit(db_.get(), 10, &gate_, &watched_);
  RecordingWaiter first, second, third;
  const std::vector<KeyValue> first_puts = {{"a", "123456789012"}};  // alone
  const std::vector<KeyValue> puts = {{"b", "12345"}};               // 6 bytes
  const std::vector<size_t> ends = {1};
  first.then = [&] {
    commit.Submit(puts, ends, &second);
    commit.Submit(puts, ends, &third);
  };
  commit.Submit(first_puts, ends, &first);
  EXPECT_EQ(third.calls.load(), 1);
  EXPECT_EQ(commit.counters().groups, 3u);  // 6 + 6 bytes > 10
}

// With sync, a group is written with WriteOptions::sync by the writer
// thread, and its sync decides every command of it: when it fails, none is
// answered OK (their writes are in the pool, but not known to survive power
// loss), and every write after it is refused with the same error, a command
// that would have failed on its own too. (The writer tells `first` on its
// thread; the two submissions made from there are the next group.)
TEST_F(GroupCommitTest, AFailedSyncFailsEveryCommandOfItsGroup) {
  GroupCommit commit(db_.get(), WriteBatchLimit(db_.get()), &gate_, &watched_,
                     /*sync=*/true);
  RecordingWaiter first, second, third;
  const std::vector<KeyValue> first_puts = {{"first", "1"}};
  const std::vector<KeyValue> second_puts = {{"second", "1"}};
  const std::string too_long(kMaxKeySize + 1, 'k');
  const std::vector<KeyValue> third_puts = {{"third", "1"}, {too_long, "1"}};
  const std::vector<size_t> one = {1};
  const std::vector<size_t> two = {1, 2};
  first.then = [&] {  // after the first group's sync: these form the next
    faults_->FailNextSyncs(1, EIO);
    sync_failed_ = true;
    commit.Submit(second_puts, one, &second);
    commit.Submit(third_puts, two, &third);
  };
  commit.Submit(first_puts, one, &first);
  for (RecordingWaiter* w : {&first, &second, &third}) {
    while (w->calls.load() == 0) std::this_thread::yield();  // the writer's
  }
  ASSERT_EQ(first.statuses.size(), 1u);
  EXPECT_TRUE(first.statuses[0].ok());
  ASSERT_EQ(second.statuses.size(), 1u);
  ASSERT_EQ(third.statuses.size(), 2u);
  const std::string failed =
      "IOError: a sync of the pool failed; writes and syncs are refused until "
      "the pool is opened again: msync of the pool file: Input/output error";
  // The group of second and third is refused (a key too long), so each
  // command is written alone: second's sync fails, and refuses the rest.
  EXPECT_EQ(second.statuses[0].ToString(), failed);
  EXPECT_EQ(third.statuses[0].ToString(), failed);
  EXPECT_EQ(third.statuses[1].ToString(), failed);
  EXPECT_EQ(Get("second"), "1") << "made, but not known to be durable";
  // first; the refused group; each of its three commands alone.
  EXPECT_EQ(commit.counters().groups, 5u);
  EXPECT_EQ(commit.counters().syncs, 5u);
}

// INCR and DEL write outside the group commit and wait for a sync that
// began after their write (AwaitSync): the next group's, or one of their
// own when no group comes.
TEST_F(GroupCommitTest, AwaitSyncIsCoveredByTheNextGroupsSync) {
  GroupCommit commit(db_.get(), WriteBatchLimit(db_.get()), &gate_, &watched_,
                     /*sync=*/true);
  RecordingWaiter alone;
  commit.AwaitSync(&alone);
  while (alone.calls.load() == 0) std::this_thread::yield();
  ASSERT_EQ(alone.statuses.size(), 1u);
  EXPECT_TRUE(alone.statuses[0].ok());
  EXPECT_EQ(commit.counters().syncs, 1u) << "a sync of its own";
  EXPECT_EQ(commit.counters().groups, 0u);

  RecordingWaiter first, awaiting, put;
  const std::vector<KeyValue> puts = {{"k", "v"}};
  const std::vector<size_t> one = {1};
  first.then = [&] {  // the writer is busy: these form the next group
    commit.AwaitSync(&awaiting);
    commit.Submit(puts, one, &put);
  };
  commit.AwaitSync(&first);
  for (RecordingWaiter* w : {&first, &awaiting, &put}) {
    while (w->calls.load() == 0) std::this_thread::yield();
  }
  EXPECT_TRUE(awaiting.statuses.at(0).ok());
  EXPECT_TRUE(put.statuses.at(0).ok());
  EXPECT_EQ(commit.counters().syncs, 3u)
      << "first's; then one synced write for the put and the waiter";
  EXPECT_EQ(commit.counters().groups, 1u);
  EXPECT_EQ(Get("k"), "v");
}

TEST_F(GroupCommitTest, ConcurrentClientsAreCommittedTogether) {
  GroupCommit commit(db_.get(), WriteBatchLimit(db_.get()), &gate_, &watched_);
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
        const size_t ends[] = {1};
        RecordingWaiter waiter;
        commit.Submit(puts, ends, &waiter);
        // A follower's Submit returns at once; wait for the leader.
        while (waiter.calls.load() == 0) std::this_thread::yield();
        if (waiter.statuses.size() != 1 || !waiter.statuses[0].ok()) {
          failures++;
        }
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
  EXPECT_EQ(counters.commands, uint64_t{kThreads * kRequests});
  EXPECT_GT(counters.groups, 0u);
}

}  // namespace
}  // namespace plush::server
