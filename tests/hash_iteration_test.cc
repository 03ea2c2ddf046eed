// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Iteration over hash-partitioned pools: every live key exactly once, its
// newest version, tombstones hidden, across every level, across a reopen;
// partition by partition (SeekToPartition resumes a cursor); keys that
// exist throughout are returned while writers run.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "testutil.h"

namespace plush::test {
namespace {

std::string Key(uint64_t id) {
  return id % 3 == 0 ? Word(id) : "key/" + std::to_string(id);
}

// Every record an iterator yields from SeekToFirst, as a map; fails the
// test if a key comes twice.
std::map<std::string, std::string> Everything(DB* db) {
  std::map<std::string, std::string> seen;
  std::unique_ptr<Iterator> it = db->NewIterator({});
  uint64_t last_partition = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    EXPECT_GE(it->partition(), last_partition) << "partitions in order";
    last_partition = it->partition();
    const bool fresh =
        seen.emplace(std::string(it->key()), std::string(it->value())).second;
    EXPECT_TRUE(fresh) << "key returned twice: " << DescribeKey(it->key());
  }
  EXPECT_OK(it->status());
  return seen;
}

TEST(HashIterationTest, EveryLiveKeyOnceWithItsNewestValue) {
  ScratchPool file("hash_iter");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  EXPECT_TRUE(Everything(db.get()).empty());
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(3);
  for (int round = 0; round < 5; ++round) {
    for (uint64_t id = 0; id < 2000; ++id) {
      if (rng() % 2 == 0) continue;
      if (rng() % 5 == 0) {
        ASSERT_OK(db->Delete({}, Key(id)));
        model.erase(Key(id));
      } else {
        const std::string value =
            id % 2 == 0 ? Word(rng()) : std::string(rng() % 300, 'v');
        ASSERT_OK(db->Put({}, Key(id), value));
        model[Key(id)] = value;
      }
    }
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  ASSERT_GE(stats.levels, 4u) << "versions on several levels";
  EXPECT_EQ(Everything(db.get()), model);
  db.reset();
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  EXPECT_EQ(Everything(db.get()), model) << "after a reopen";
}

TEST(HashIterationTest, SeekToPartitionResumesACursor) {
  ScratchPool file("hash_cursor");
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 4;  // 16 partitions
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  std::set<std::string> keys;
  for (uint64_t id = 0; id < 500; ++id) {
    ASSERT_OK(db->Put({}, Key(id), "v"));
    keys.insert(Key(id));
  }
  // A SCAN-style walk: each call resumes at the partition after the one it
  // stopped in, reading whole partitions.
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    std::unique_ptr<Iterator> it = db->NewIterator({});
    it->SeekToPartition(cursor);
    if (!it->Valid()) break;
    const uint64_t p = it->partition();
    EXPECT_GE(p, cursor);
    for (; it->Valid() && it->partition() == p; it->Next())
      EXPECT_TRUE(seen.insert(std::string(it->key())).second);
    ASSERT_OK(it->status());
    cursor = p + 1;
    ++calls;
  } while (cursor < 16);
  EXPECT_EQ(seen, keys);
  EXPECT_GT(calls, 1);
  std::unique_ptr<Iterator> it = db->NewIterator({});
  it->SeekToPartition(16);
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

// Writers keep changing other keys; keys that exist throughout, with a
// fixed value, must be returned by every full iteration, once each.
TEST(HashIterationTest, StableKeysAreReturnedWhileWritersRun) {
  ScratchPool file("hash_iter_writers");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  for (uint64_t id = 0; id < 300; ++id)
    ASSERT_OK(db->Put({}, "stable/" + std::to_string(id), std::to_string(id)));
  std::atomic<bool> done{false};
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    std::mt19937_64 rng(9);
    while (!done && !failed) {
      const std::string key = Key(rng() % 500);
      const Status s = rng() % 4 == 0 ? db->Delete({}, key)
                                      : db->Put({}, key, std::to_string(rng()));
      if (!s.ok()) failed = true;
    }
  });
  for (int pass = 0; pass < 20 && !failed; ++pass) {
    const std::map<std::string, std::string> seen = Everything(db.get());
    for (uint64_t id = 0; id < 300; ++id) {
      auto it = seen.find("stable/" + std::to_string(id));
      ASSERT_NE(it, seen.end()) << "pass " << pass << ": stable key " << id;
      EXPECT_EQ(it->second, std::to_string(id));
    }
  }
  done = true;
  writer.join();
  EXPECT_FALSE(failed);
}

}  // namespace
}  // namespace plush::test
