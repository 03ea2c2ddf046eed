// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Writers with expiries, readers, scanners and the expiry sweep at once,
// on a clock that moves while they run: readers only ever see a value
// written for their key, and once everyone stops, each key holds what its
// last write left given the clock (the sweep dropped nothing that had not
// expired, and kept nothing visible that had).

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plush/db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::ManualClock;
using test::ScratchPool;

constexpr uint64_t kStart = 1'700'000'000'000;
constexpr int kWriters = 2;
constexpr int kRewrittenKeys = 50;  // keys 0..49 are written again and again
constexpr int kWritesPerWriter = 6000;

std::string KeyOf(int writer, int k) {
  std::string key = std::to_string(writer);
  key += ':';
  key += std::to_string(k);
  return key;
}

bool IsValueOf(const std::string& key, const std::string& value) {
  return value.size() > key.size() && value.compare(0, key.size(), key) == 0 &&
         value[key.size()] == '=';
}

class ExpiryConcurrencyTest : public ::testing::TestWithParam<Partitioning> {
 protected:
  // Runs the writers, a reader, a scanner and the clock with `fanout_bits`,
  // 2^`dram_bits` units and one write in `never_one_in` without an expiry,
  // and checks what is left; `sweeps` names the count of
  // Stats::more_counts that must have moved.
  void Run(unsigned fanout_bits, unsigned never_one_in,
           const std::string& sweeps, unsigned dram_bits = 2);
};

// DRAM entries of 128 slots: the sweep rewrites them, records rarely
// migrate.
TEST_P(ExpiryConcurrencyTest, WritersReadersAndTheSweepAgree) {
  Run(3, 4, "expiry_sweeps");
}

// DRAM entries of 32 slots: records migrate before they expire, and the
// sweep empties PMem entries (those without a record that never expires)
// under the readers, scanners and migrations.
TEST_P(ExpiryConcurrencyTest, WritersReadersAndTheSubtreeSweepAgree) {
  Run(1, 64, "expiry_subtree_sweeps");
}

// Range pools: 32 units, whose splits take units whose records all
// expired, cleared under the writers, readers and scanners of their
// neighbours.
TEST_P(ExpiryConcurrencyTest, WritersReadersAndUnitsClearedWhenExpiredAgree) {
  if (GetParam() != Partitioning::kRange) {
    GTEST_SKIP() << "hash pools do not re-balance";
  }
  Run(1, 1000, "expired_units_cleared", 5);
}

void ExpiryConcurrencyTest::Run(unsigned fanout_bits, unsigned never_one_in,
                                const std::string& sweeps,
                                unsigned dram_bits) {
  ScratchPool file("expiry_concurrency");
  auto clock = std::make_shared<ManualClock>(kStart);
  Options o = Options::SmallProfile();
  o.partitioning = GetParam();
  o.clock = clock;
  o.fanout_bits = fanout_bits;
  o.dram_directory_bits = dram_bits;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));

  struct Last {
    std::string value;
    uint64_t expires_at_ms = 0;
  };
  std::vector<std::map<std::string, Last>> last(kWriters);
  std::atomic<bool> stop{false};
  std::atomic<int> bad_reads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(w + 1);
      for (int i = 0; i < kWritesPerWriter; ++i) {
        // Mostly new keys, as a cache's (the sweep drops their expired
        // records), and some written again (which it may not drop while
        // older versions lie below).
        const int k = rng() % 4 == 0 ? static_cast<int>(rng() % kRewrittenKeys)
                                     : kRewrittenKeys + i;
        const std::string key = KeyOf(w, k);
        WriteOptions write;
        // Mostly short lives, so that entries expire while written.
        write.expires_at_ms =
            rng() % never_one_in == 0 ? 0 : clock->NowMs() + 1 + rng() % 30;
        std::string value = key;
        value += '=';
        value += std::to_string(i);
        ASSERT_OK(db->Put(write, key, value));
        last[w][key] = {value, write.expires_at_ms};
        // Writes spread over several sweeps (ExpirySweeper::kInterval).
        if (i % 16 == 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  threads.emplace_back([&] {  // a reader
    std::mt19937_64 rng(99);
    while (!stop.load()) {
      const int w = static_cast<int>(rng() % kWriters);
      const std::string key =
          KeyOf(w, static_cast<int>(rng() % (kRewrittenKeys +
                                             kWritesPerWriter)));
      std::string value;
      const Status s = db->Get({}, key, &value);
      if (s.ok() ? !IsValueOf(key, value) : !s.IsNotFound()) ++bad_reads;
    }
  });
  if (GetParam() == Partitioning::kRange) {
    threads.emplace_back([&] {  // a scanner
      std::unique_ptr<Iterator> it = db->NewIterator({});
      while (!stop.load()) {
        std::string previous;
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
          const std::string key(it->key());
          if (!IsValueOf(key, std::string(it->value())) ||
              (!previous.empty() && key <= previous)) {
            ++bad_reads;
          }
          previous = key;
        }
        if (!it->status().ok()) ++bad_reads;
      }
    });
  }
  threads.emplace_back([&] {  // time passes
    while (!stop.load()) {
      clock->Advance(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  // Let the sweep catch up with what expired, then stop the clock.
  std::this_thread::sleep_for(3 * std::chrono::milliseconds(100));
  stop = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(bad_reads.load(), 0);

  auto check = [&] {
    const uint64_t now = clock->NowMs();
    for (int w = 0; w < kWriters; ++w) {
      for (const auto& [key, want] : last[w]) {
        std::string value;
        const Status s = db->Get({}, key, &value);
        if (want.expires_at_ms == 0 || now <= want.expires_at_ms) {
          ASSERT_OK(s) << key;
          EXPECT_EQ(value, want.value) << key;
        } else {
          ASSERT_TRUE(s.IsNotFound()) << key << ": " << value;
        }
      }
    }
  };
  check();
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  uint64_t swept = 0;
  for (const auto& [name, value] : stats.more_counts) {
    if (name == sweeps) swept = value;
  }
  EXPECT_GT(swept, 0u) << sweeps;
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  check();
}

INSTANTIATE_TEST_SUITE_P(Partitionings, ExpiryConcurrencyTest,
                         ::testing::Values(Partitioning::kHash,
                                           Partitioning::kRange),
                         test::PartitioningName);

}  // namespace
}  // namespace plush
