// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DB::Verify online: writers of 8-byte and longer records (migrating,
// compacting payload chunks, re-balancing a range pool) run while another
// thread verifies the pool again and again. Every check passes on the
// healthy pool whatever they are doing, and the writers go on while a
// check runs (a check that stopped them would let at most the writes in
// flight complete). Also run under TSan.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plush/db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::ScratchPool;
using test::Word;

constexpr int kWriters = 2;
constexpr uint64_t kKeys = 20000;

std::string KeyOf(uint64_t k) {
  return k % 2 == 0 ? Word(k) : "key:" + std::to_string(k);
}

class VerifyConcurrencyTest : public ::testing::TestWithParam<Partitioning> {
};

TEST_P(VerifyConcurrencyTest, VerifiesWhileWritersGoOn) {
  ScratchPool file("verify_concurrency");
  Options o = Options::SmallProfile();
  o.partitioning = GetParam();
  o.dram_directory_bits = 8;  // entries fill: records migrate to PMem
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (uint64_t k = 0; k < kKeys; ++k) {
    ASSERT_OK(db->Put({}, KeyOf(k), std::string(k % 3 == 0 ? 100 : 8, 'v')));
  }

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0};
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937_64 rng(w + 1);
      while (!stop.load(std::memory_order_relaxed)) {
        const uint64_t k = rng() % kKeys;
        const Status s =
            rng() % 8 == 0
                ? db->Delete({}, KeyOf(k))
                : db->Put({}, KeyOf(k), std::string(1 + rng() % 120, 'w'));
        if (!s.ok()) {
          errors[w] = s.ToString();
          return;
        }
        writes.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  uint64_t most_during_one = 0;
  for (int round = 0; round < 20; ++round) {
    const uint64_t before = writes.load();
    std::string report;
    const Status s = db->Verify(&report);
    const uint64_t after = writes.load();
    EXPECT_OK(s) << "round " << round << ":\n" << report;
    EXPECT_EQ(report, "") << "round " << round;
    most_during_one = std::max(most_during_one, after - before);
  }
  stop.store(true);
  for (std::thread& t : writers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  std::printf("[verify] most writes during one check: %llu\n",
              static_cast<unsigned long long>(most_during_one));
  EXPECT_GT(most_during_one, uint64_t{10 * kWriters})
      << "the writers waited for the checks";
  ASSERT_OK(db->Verify());
}

INSTANTIATE_TEST_SUITE_P(Partitionings, VerifyConcurrencyTest,
                         ::testing::Values(Partitioning::kHash,
                                           Partitioning::kRange),
                         test::PartitioningName);

}  // namespace
}  // namespace plush
