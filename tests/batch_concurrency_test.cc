// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches and read-modify-writes under concurrency (also run under
// ThreadSanitizer): batches over the same keys serialize, Increment from
// many threads loses no update, and recovery reproduces what the threads
// left, in order, although a key's versions sit in several logs.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "testutil.h"

namespace plush::test {
namespace {

Options ManyLogs() {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;
  o.log_count = 4;
  o.log_chunk_size = 16 << 10;
  return o;
}

// Two threads write batches that set the same 24 keys (spread over many
// DRAM entries and logs) to their own tag, a third writes single Puts to
// other keys of the same entries. A batch holds the locks of all its
// entries while it inserts, so the keys end up all holding one batch's
// tag — before and after recovery.
TEST(BatchConcurrencyTest, BatchesOverTheSameKeysSerialize) {
  ScratchPool file("batch_serialize");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  constexpr uint64_t kKeys = 24;
  constexpr int kRounds = 400;
  std::atomic<bool> failed{false};
  auto batches = [&](uint64_t thread) {
    for (int round = 0; round < kRounds && !failed; ++round) {
      WriteBatch batch;
      const uint64_t tag = thread << 32 | static_cast<uint64_t>(round);
      for (uint64_t k = 0; k < kKeys; ++k) batch.Put(Word(k * 101), Word(tag));
      if (!db->Write({}, &batch).ok()) failed = true;
    }
  };
  auto singles = [&] {
    for (int round = 0; round < kRounds * 4 && !failed; ++round) {
      if (!db->Put({}, Word(100000 + round % 50), Word(round)).ok())
        failed = true;
    }
  };
  std::thread a(batches, 1), b(batches, 2), c(singles);
  a.join();
  b.join();
  c.join();
  ASSERT_FALSE(failed);
  auto tags = [&](DB* d) {
    std::vector<uint64_t> out;
    for (uint64_t k = 0; k < kKeys; ++k) {
      std::string v;
      EXPECT_OK(d->Get({}, Word(k * 101), &v));
      out.push_back(FromWord(v));
    }
    return out;
  };
  const std::vector<uint64_t> live = tags(db.get());
  for (uint64_t t : live) EXPECT_EQ(t, live[0]) << "two batches interleaved";
  EXPECT_EQ(live[0] & 0xFFFFFFFF, static_cast<uint64_t>(kRounds - 1));
  // A crash-free close keeps it; so does recovery from the logs alone.
  db.reset();
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  EXPECT_EQ(tags(db.get()), live);
}

// Batches and single writes to the same keys: a key's versions end up in
// its own log (single writes) and in the batches' log. Recovery must order
// them as the threads did: the reopened pool holds exactly what the live
// one held.
TEST(BatchConcurrencyTest, RecoveryOrdersVersionsAcrossLogs) {
  ScratchPool file("batch_order");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  constexpr uint64_t kKeys = 24;
  std::atomic<bool> failed{false};
  std::thread batches([&] {
    for (uint64_t round = 0; round < 300 && !failed; ++round) {
      WriteBatch batch;
      for (uint64_t k = round % 3; k < kKeys; k += 2)
        batch.Put(Word(k * 101), Word(1000000 + round));
      if (!db->Write({}, &batch).ok()) failed = true;
    }
  });
  std::thread singles([&] {
    for (uint64_t round = 0; round < 3000 && !failed; ++round) {
      const Status s = round % 7 == 0
                           ? db->Delete({}, Word(round % kKeys * 101))
                           : db->Put({}, Word(round % kKeys * 101), Word(round));
      if (!s.ok()) failed = true;
    }
  });
  batches.join();
  singles.join();
  ASSERT_FALSE(failed);
  auto state = [&](DB* d) {
    std::vector<std::string> out;
    for (uint64_t k = 0; k < kKeys; ++k) {
      std::string v;
      const Status s = d->Get({}, Word(k * 101), &v);
      out.push_back(s.ok() ? v : s.ToString());
    }
    return out;
  };
  const std::vector<std::string> live = state(db.get());
  db.reset();
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  EXPECT_EQ(state(db.get()), live);
}

TEST(BatchConcurrencyTest, IncrementFromManyThreadsLosesNothing) {
  ScratchPool file("increment_threads");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  constexpr int kThreads = 4;
  constexpr int kIncrements = 3000;
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIncrements && !failed; ++i) {
        int64_t result = 0;
        // Two counters: one 8-byte key (inline), one longer (payload).
        if (!db->Increment({}, "counter-long", 1, &result).ok() ||
            !db->Increment({}, Word(7), t + 1, &result).ok()) {
          failed = true;
        }
      }
    });
  }
  // A batch writer and a reader race the counters' entries meanwhile.
  std::thread other([&] {
    for (int i = 0; i < 500 && !failed; ++i) {
      WriteBatch batch;
      batch.Put(Word(8), Word(i));
      batch.Put("counter-neighbour", std::to_string(i));
      if (!db->Write({}, &batch).ok()) failed = true;
      std::string v;
      (void)db->Get({}, "counter-long", &v);
    }
  });
  for (std::thread& t : threads) t.join();
  other.join();
  ASSERT_FALSE(failed);
  int64_t result = 0;
  ASSERT_OK(db->Increment({}, "counter-long", 0, &result));
  EXPECT_EQ(result, kThreads * kIncrements);
  ASSERT_OK(db->Increment({}, Word(7), 0, &result));
  EXPECT_EQ(result, kIncrements * (1 + 2 + 3 + 4));
  db.reset();
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  ASSERT_OK(db->Increment({}, "counter-long", 0, &result));
  EXPECT_EQ(result, kThreads * kIncrements);
}

// Update racing single writers and batches on the same keys: every
// Update's decision is applied to the value it saw (an append counter
// never skips or repeats a number).
TEST(BatchConcurrencyTest, UpdatesRacingWritersStayAtomic) {
  ScratchPool file("update_race");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyLogs(), file.path(), &db));
  constexpr int kThreads = 3;
  constexpr int kUpdates = 800;
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUpdates && !failed; ++i) {
        // A value that grows by one character per update: its length is
        // the number of updates applied.
        if (!db->Update({}, "log", [](const std::string* c, std::string* n) {
                 *n = (c != nullptr ? *c : "") + "+";
                 return DB::UpdateAction::kPut;
               }).ok()) {
          failed = true;
        }
      }
    });
  }
  std::thread writer([&] {
    for (int i = 0; i < 2000 && !failed; ++i) {
      WriteBatch batch;
      batch.Put("log-neighbour", std::string(static_cast<size_t>(i % 300), 'n'));
      if (!db->Write({}, &batch).ok()) failed = true;
    }
  });
  for (std::thread& t : threads) t.join();
  writer.join();
  ASSERT_FALSE(failed);
  std::string v;
  ASSERT_OK(db->Get({}, "log", &v));
  EXPECT_EQ(v.size(), static_cast<size_t>(kThreads * kUpdates));
}

}  // namespace
}  // namespace plush::test
