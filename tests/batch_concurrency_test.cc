// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Write batches and read-modify-writes under concurrency (also run under
// ThreadSanitizer): batches over the same keys serialize, Increment from
// many threads loses no update, recovery reproduces what the threads
// left, in order, although a key's versions sit in several logs, and
// batches that fill DRAM entries many times over or spill past a log
// chunk race log rotations, chunk recycling, migrations, checkpoints and
// backups without a deadlock or a lost record.

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
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

// Two threads write batches of 300-600 records of their own keys (more
// than a log chunk holds: they take turns in the spill area; ~100 per DRAM
// entry of 32: each entry fills and migrates while the batch is inserted)
// and single Puts between them; a third writes single Puts too (the logs
// rotate and recycle chunks of spilled commits), a fourth checkpoints and
// backs the pool up, a fifth reads; a background thread migrates and
// recycles. At
// the end, and after a reopen, every key holds its last value; the backups
// open and verify.
TEST(BatchConcurrencyTest, LargeBatchesRaceRotationsCheckpointsAndBackups) {
  ScratchPool file("large_batches");
  ScratchPool backup("large_batches_backup");
  Options o = Options::SmallProfile();
  o.background_threads = 1;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  constexpr uint64_t kKeys = 1000;  // per batch writer
#ifdef PLUSH_TEST_UNDER_TSAN
  constexpr int kRounds = 8;
#else
  constexpr int kRounds = 30;
#endif
  auto key = [](uint64_t thread, uint64_t i) { return Word(thread << 40 | i); };
  std::atomic<bool> failed{false};
  std::atomic<int> writers_done{0};
  std::vector<std::vector<uint64_t>> last(3, std::vector<uint64_t>(kKeys, 0));
  auto batches = [&](uint64_t thread) {
    std::mt19937_64 rng(thread);
    for (int round = 1; round <= kRounds && !failed; ++round) {
      WriteBatch batch;
      const uint64_t n = 300 + rng() % 301;
      const uint64_t first = rng() % kKeys;
      for (uint64_t j = 0; j < n; ++j) {
        const uint64_t i = (first + j) % kKeys;
        batch.Put(key(thread, i), Word(round));
        last[thread][i] = static_cast<uint64_t>(round);
      }
      if (const Status st = db->Write({}, &batch); !st.ok()) {
        ADD_FAILURE() << "batch: " << st.ToString();
        failed = true;
      }
      // Single writes between batches fill the logs (1,200 appends per
      // thread: both logs wrap around): their chunks, with the spilled
      // commits, are recycled.
      for (uint64_t i = 0; i < 1200 / kRounds && !failed; ++i) {
        if (!db->Put({}, key(thread + 10, rng() % 100), Word(i)).ok())
          failed = true;
      }
    }
    ++writers_done;
  };
  std::thread a(batches, 1), b(batches, 2);
  std::thread singles([&] {
    for (uint64_t i = 0; writers_done < 2 && !failed; ++i) {
      if (const Status st = db->Put({}, key(3, i % 4000), Word(i)); !st.ok()) {
        ADD_FAILURE() << "put: " << st.ToString();
        failed = true;
      }
    }
  });
  std::thread maintenance([&] {
    for (int i = 0; writers_done < 2 && !failed; ++i) {
      // Four backups at most (each a copy of the pool), then checkpoints.
      const Status s = i % 2 == 0 || i >= 8
                           ? db->Checkpoint(1)
                           : db->Backup(backup.path() + std::to_string(i));
      if (!s.ok()) {
        ADD_FAILURE() << (i % 2 == 0 ? "checkpoint: " : "backup: ") << s.ToString();
        failed = true;
      }
    }
  });
  std::thread reader([&] {
    std::string v;
    for (uint64_t i = 0; writers_done < 2; ++i) (void)db->Get({}, key(1, i % kKeys), &v);
  });
  a.join();
  b.join();
  singles.join();
  maintenance.join();
  reader.join();
  ASSERT_FALSE(failed);
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_GT(stats.log_compactions, 0u) << "log chunks were recycled";
  auto expect_last = [&](const char* when) {
    for (uint64_t t = 1; t <= 2; ++t) {
      for (uint64_t i = 0; i < kKeys; ++i) {
        std::string v;
        const Status s = db->Get({}, key(t, i), &v);
        if (last[t][i] == 0) {
          ASSERT_TRUE(s.IsNotFound()) << when << ": " << s.ToString();
        } else {
          ASSERT_OK(s) << when;
          ASSERT_EQ(FromWord(v), last[t][i]) << when << ": thread " << t
                                             << " key " << i;
        }
      }
    }
  };
  expect_last("live");
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  expect_last("reopened");
  ExpectVerified(db.get());
  db.reset();
  for (int i = 1; i < 8; i += 2) {
    const std::string path = backup.path() + std::to_string(i);
    if (access(path.c_str(), F_OK) != 0) continue;
    ASSERT_OK(DB::Open(o, path, &db)) << path;
    ExpectVerified(db.get());
    db.reset();
    unlink(path.c_str());
  }
}

}  // namespace
}  // namespace plush::test
