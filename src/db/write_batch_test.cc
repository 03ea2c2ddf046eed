// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// WriteBatch and DB::Write, Update, Increment, PutIfAbsent: behaviour,
// limits and errors (crash atomicity: tests/crash_batch_test.cc).

#include "plush/write_batch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include <string>
#include <vector>

#include "testutil.h"

namespace plush {
namespace {

using test::FromWord;
using test::ScratchPool;
using test::Word;

// Records what a batch holds, in order.
struct Recorder final : WriteBatch::Handler {
  void Put(std::string_view k, std::string_view v) override {
    ops.push_back("put " + std::string(k) + "=" + std::string(v));
  }
  void Delete(std::string_view k) override {
    ops.push_back("delete " + std::string(k));
  }
  std::vector<std::string> ops;
};

TEST(WriteBatchTest, HoldsItsOperationsInOrder) {
  WriteBatch batch;
  EXPECT_EQ(batch.Count(), 0u);
  batch.Put("a", "1");
  batch.Delete("b");
  batch.Put("", "");  // the empty key and value are valid
  batch.Put(std::string(3, '\0'), "x");
  EXPECT_EQ(batch.Count(), 4u);
  EXPECT_GE(batch.ApproximateSize(), 1u + 1 + 1 + 3 + 1);
  Recorder r;
  batch.Iterate(&r);
  EXPECT_EQ(r.ops, (std::vector<std::string>{"put a=1", "delete b", "put =",
                                             "put " + std::string(3, '\0') +
                                                 "=x"}));
  batch.Clear();
  EXPECT_EQ(batch.Count(), 0u);
  EXPECT_EQ(batch.ApproximateSize(), 0u);
  Recorder empty;
  batch.Iterate(&empty);
  EXPECT_TRUE(empty.ops.empty());
}

class DBWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o = Options::SmallProfile();
    // BatchesCostOneBarrier counts the fences of one call: none of a
    // background thread's may fall in between.
    o.background_threads = 0;
    ASSERT_OK(DB::Open(o, file_.path(), &db_));
  }
  std::string GetOr(std::string_view key, std::string absent = "<absent>") {
    std::string v;
    const Status s = db_->Get({}, key, &v);
    if (s.IsNotFound()) return absent;
    EXPECT_OK(s);
    return v;
  }
  ScratchPool file_{"write_batch"};
  std::unique_ptr<DB> db_;
};

TEST_F(DBWriteTest, BatchAppliesEveryOperationAndTheLaterWriteOfAKeyWins) {
  ASSERT_OK(db_->Put({}, "gone", "soon"));
  WriteBatch batch;
  batch.Put(Word(1), Word(10));                 // inline 8/8
  batch.Put("a longer key", "a longer value");  // payload
  batch.Put(Word(1), Word(11));                 // later wins
  batch.Delete("gone");
  batch.Put(Word(2), "not eight bytes");  // 8-byte key, payload value
  batch.Delete(Word(3));                  // missing key: fine
  ASSERT_OK(db_->Write({}, &batch));
  EXPECT_EQ(FromWord(GetOr(Word(1))), 11u);
  EXPECT_EQ(GetOr("a longer key"), "a longer value");
  EXPECT_EQ(GetOr("gone"), "<absent>");
  EXPECT_EQ(GetOr(Word(2)), "not eight bytes");
  EXPECT_EQ(batch.Count(), 6u) << "Write leaves the batch as it was";
  WriteBatch empty;
  EXPECT_OK(db_->Write({}, &empty));
  // And everything survives a reopen (replayed from the logs).
  db_.reset();
  ASSERT_OK(DB::Open(Options::SmallProfile(), file_.path(), &db_));
  EXPECT_EQ(FromWord(GetOr(Word(1))), 11u);
  EXPECT_EQ(GetOr("a longer key"), "a longer value");
  EXPECT_EQ(GetOr("gone"), "<absent>");
}

// Single writes go to their key's own log, a batch's records all to one
// log: a key's versions end up in several logs, and recovery must replay
// them in the order they were written (by their slot in the DRAM entry).
TEST_F(DBWriteTest, RecoveryReplaysVersionsInWriteOrderAcrossLogs) {
  ScratchPool file("order_across_logs");
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 3;
  o.log_count = 4;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  std::vector<std::string> keys;
  for (uint64_t k = 0; k < 12; ++k) keys.push_back(Word(k * 977));
  for (uint64_t round = 0; round < 30; ++round) {
    for (size_t i = round % 2; i < keys.size(); i += 2)
      ASSERT_OK(db->Put({}, keys[i], Word(round * 100 + i)));
    WriteBatch batch;
    for (size_t i = round % 3; i < keys.size(); i += 3)
      batch.Put(keys[i], Word(round * 100 + 50 + i));
    ASSERT_OK(db->Write({}, &batch));
    if (round % 5 == 4) {
      ASSERT_OK(db->Delete({}, keys[round % keys.size()]));
    }
  }
  std::vector<std::string> live;
  for (const std::string& k : keys) {
    std::string v;
    const Status s = db->Get({}, k, &v);
    live.push_back(s.ok() ? v : s.ToString());
  }
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string v;
    const Status s = db->Get({}, keys[i], &v);
    EXPECT_EQ(s.ok() ? v : s.ToString(), live[i]) << "key " << i;
  }
}

// Regression: a batch holds the payload entries of all its records
// unpublished until it commits. One that filled several payload chunks of
// its log made that log compact, and the compaction waited for the
// batch's own entries: DB::Write never returned.
TEST_F(DBWriteTest, BatchLargerThanSeveralPayloadChunksCompletes) {
  WriteBatch batch;
  for (int i = 0; i < 5; ++i) {
    batch.Put("large" + std::to_string(i), std::string(kMaxValueSize, 'a' + i));
  }
  auto write = std::async(std::launch::async,
                          [&] { return db_->Write({}, &batch); });
  if (write.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "DB::Write of 5 x 64 KiB values hangs";
    std::_Exit(1);  // the writer cannot be stopped
  }
  ASSERT_OK(write.get());
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(GetOr("large" + std::to_string(i)),
              std::string(kMaxValueSize, 'a' + i));
  }
}

// Overwriting payload records in batches leaves garbage that compaction
// must free: a rotation in the middle of a batch cannot compact (the batch
// holds tickets), so the batch's next append without one does. Without
// that, 40 rounds over 2,000 keys of 224 bytes grew 140 chunks.
TEST_F(DBWriteTest, OverwritesInBatchesAreCompacted) {
  const std::string value(200, 'v');
  for (int round = 0; round < 40; ++round) {
    WriteBatch batch;
    for (int i = 0; i < 2000; ++i) {
      char key[17];
      std::snprintf(key, sizeof(key), "key:%012d", i);
      batch.Put(key, value);
      if (batch.Count() == 32) {
        ASSERT_OK(db_->Write({}, &batch));
        batch.Clear();
      }
    }
    ASSERT_OK(db_->Write({}, &batch));
  }
  Stats stats;
  ASSERT_OK(db_->GetStats(&stats));
  // 448 KB live in chunks of 128 KiB: 4 chunks, and each log keeps 4
  // sealed ones before it compacts any.
  EXPECT_LE(stats.payload_chunks, 40u);
  EXPECT_GT(stats.payload_gc_runs, 0u);
  EXPECT_EQ(GetOr("key:000000001999"), value);
}

TEST_F(DBWriteTest, BatchesCostOneBarrier) {
  Stats before;
  ASSERT_OK(db_->GetStats(&before));
  WriteBatch batch;
  for (uint64_t k = 0; k < 40; ++k) batch.Put(Word(k * 7919), Word(k));
  ASSERT_OK(db_->Write({}, &batch));
  Stats after;
  ASSERT_OK(db_->GetStats(&after));
  // One fence for the log append; a migration to make room (3 fences each)
  // or a log rotation may add a few, never one per record.
  EXPECT_LE(after.persist_calls - before.persist_calls, 12u);
}

TEST_F(DBWriteTest, InvalidBatchesApplyNothingAndSayWhy) {
  WriteBatch batch;
  batch.Put(Word(1), Word(1));
  batch.Put(std::string(kMaxKeySize + 1, 'k'), "v");
  Status s = db_->Write({}, &batch);
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: batch operation 1: key of 1025 bytes exceeds "
            "the limit of 1024 bytes");
  batch.Clear();
  batch.Put(Word(1), Word(1));
  batch.Put("k", std::string(kMaxValueSize + 1, 'v'));
  s = db_->Write({}, &batch);
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: batch operation 1: value of 65537 bytes "
            "exceeds the limit of 65536 bytes");
  EXPECT_EQ(GetOr(Word(1)), "<absent>") << "nothing of a refused batch";
  // A batch of one operation has no other to tell it from.
  batch.Clear();
  batch.Put(std::string(kMaxKeySize + 1, 'k'), "v");
  EXPECT_EQ(db_->Write({}, &batch).ToString(),
            "InvalidArgument: key of 1025 bytes exceeds the limit of 1024 "
            "bytes");
  EXPECT_TRUE(db_->Write({}, nullptr).IsInvalidArgument());
  // One operation over kMaxBatchRecords: refused before anything is
  // written, whatever the pool.
  batch.Clear();
  for (uint64_t k = 0; k <= kMaxBatchRecords; ++k) batch.Put(Word(k), Word(k));
  s = db_->Write({}, &batch);
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: batch of 65537 operations exceeds the limit of "
            "65536 operations");
  EXPECT_EQ(GetOr(Word(5)), "<absent>");
  ASSERT_OK(db_->Close());
  EXPECT_TRUE(db_->Write({}, &batch).IsInvalidArgument());
}

// The keys of one DRAM entry (here a range pool's "user:" keys, which
// share their first bytes) in one batch: 300 records into entries of 32
// fill one many times over. The batch commits whole (issue 27: it was
// refused, "batch puts more than 32 operations into one DRAM directory
// entry"), later writes of its keys win over it, and all of it survives
// a reopen. The log chunk holds the batch: this is the entry's limit
// alone.
TEST_F(DBWriteTest, BatchOverflowingOneDramEntryCommits) {
  ScratchPool file("entry_overflow");
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.log_chunk_size = 64 << 10;
  o.background_threads = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  auto user = [](int i) {
    char key[16];
    std::snprintf(key, sizeof(key), "user:%08d", i);
    return std::string(key);
  };
  auto value = [](int i) { return std::to_string(i) + "v"; };
  for (int i = 0; i < 10; ++i) ASSERT_OK(db->Put({}, user(i), "before"));
  WriteBatch batch;
  for (int i = 0; i < 300; ++i) batch.Put(user(i), value(i));
  ASSERT_OK(db->Write({}, &batch));
  ASSERT_OK(db->Put({}, user(7), "after"));
  auto expect_all = [&](const char* when) {
    std::string v;
    for (int i = 0; i < 300; ++i) {
      ASSERT_OK(db->Get({}, user(i), &v)) << when << ": " << user(i);
      EXPECT_EQ(v, i == 7 ? "after" : value(i))
          << when << ": " << user(i);
    }
  };
  expect_all("after the batch");
  db.reset();  // the logs replay what the DRAM level held
  ASSERT_OK(DB::Open(o, file.path(), &db));
  expect_all("after a reopen");
  std::string report;
  EXPECT_OK(db->Verify(&report)) << report;
}

// More operations than the small profile's recovery-log chunk holds (167),
// on entries that each have room for their share: the batch commits whole
// (issue 27: it was refused, "batch of 1000 operations exceeds the 167
// that a recovery-log chunk of this pool holds") and survives a reopen.
TEST_F(DBWriteTest, BatchLargerThanALogChunkCommits) {
  ScratchPool file("chunk_overflow");
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;  // 16 entries of 256: ~63 records each
  o.fanout_bits = 4;
  o.first_level_fanout_bits = 4;
  o.background_threads = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  WriteBatch batch;
  for (uint64_t k = 0; k < 1000; ++k) batch.Put(Word(k * 7919), Word(k));
  ASSERT_OK(db->Write({}, &batch));
  auto expect_all = [&](const char* when) {
    std::string v;
    for (uint64_t k = 0; k < 1000; ++k) {
      ASSERT_OK(db->Get({}, Word(k * 7919), &v)) << when << ": " << k;
      EXPECT_EQ(FromWord(v), k) << when;
    }
  };
  expect_all("after the batch");
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  expect_all("after a reopen");
}

TEST_F(DBWriteTest, UpdateSeesTheCurrentValueAndDecides) {
  auto append_x = [](const std::string* current, std::string* next) {
    *next = (current != nullptr ? *current : "") + "x";
    return DB::UpdateAction::kPut;
  };
  ASSERT_OK(db_->Update({}, "key", append_x));
  ASSERT_OK(db_->Update({}, "key", append_x));
  EXPECT_EQ(GetOr("key"), "xx");
  ASSERT_OK(db_->Update({}, "key", [](const std::string* current,
                                      std::string*) {
    EXPECT_NE(current, nullptr);
    return DB::UpdateAction::kDelete;
  }));
  EXPECT_EQ(GetOr("key"), "<absent>");
  ASSERT_OK(db_->Update({}, Word(5), [](const std::string*, std::string*) {
    return DB::UpdateAction::kKeep;
  }));
  EXPECT_EQ(GetOr(Word(5)), "<absent>");
  // An 8-byte key switches between inline and payload versions.
  ASSERT_OK(db_->Update({}, Word(5), [](const std::string*, std::string* n) {
    *n = Word(55);
    return DB::UpdateAction::kPut;
  }));
  ASSERT_OK(db_->Update({}, Word(5), [](const std::string* c, std::string* n) {
    *n = *c + "!";
    return DB::UpdateAction::kPut;
  }));
  EXPECT_EQ(GetOr(Word(5)), Word(55) + "!");
  const Status s = db_->Update(
      {}, "key", [](const std::string*, std::string* n) {
        n->assign(kMaxValueSize + 1, 'v');
        return DB::UpdateAction::kPut;
      });
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: new value of 65537 bytes exceeds the limit of "
            "65536 bytes");
}

TEST_F(DBWriteTest, IncrementCountsOnEightByteIntegers) {
  int64_t result = 0;
  ASSERT_OK(db_->Increment({}, "counter", 5, &result));
  EXPECT_EQ(result, 5);
  ASSERT_OK(db_->Increment({}, "counter", -7, &result));
  EXPECT_EQ(result, -2);
  EXPECT_EQ(GetOr("counter"), Word(static_cast<uint64_t>(-2)));
  ASSERT_OK(db_->Put({}, "text", "abc"));
  Status s = db_->Increment({}, "text", 1, &result);
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: the value is 3 bytes long, not an 8-byte "
            "integer");
  ASSERT_OK(db_->Put({}, "big", Word(uint64_t{INT64_MAX})));
  s = db_->Increment({}, "big", 1, &result);
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: increment or decrement would overflow");
  EXPECT_EQ(GetOr("big"), Word(uint64_t{INT64_MAX})) << "unchanged";
  db_.reset();
  ASSERT_OK(DB::Open(Options::SmallProfile(), file_.path(), &db_));
  ASSERT_OK(db_->Increment({}, "counter", 2, &result));
  EXPECT_EQ(result, 0);
}

TEST_F(DBWriteTest, PutIfAbsentInsertsOnce) {
  bool inserted = false;
  ASSERT_OK(db_->PutIfAbsent({}, "k", "first", &inserted));
  EXPECT_TRUE(inserted);
  ASSERT_OK(db_->PutIfAbsent({}, "k", "second", &inserted));
  EXPECT_FALSE(inserted);
  EXPECT_EQ(GetOr("k"), "first");
  ASSERT_OK(db_->Delete({}, "k"));
  ASSERT_OK(db_->PutIfAbsent({}, "k", "third", &inserted));
  EXPECT_TRUE(inserted);
  EXPECT_EQ(GetOr("k"), "third");
}

}  // namespace
}  // namespace plush
