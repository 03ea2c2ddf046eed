// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// KeyspaceGate on its own: shared holders pass together, Lock() waits for
// the holders inside, and a waiting Lock() closes the gate to new shared
// holders (writer preference). Waits that should end are bounded, so that
// a broken gate fails a test rather than hanging it.

#include "keyspace_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace plush::server {
namespace {

using namespace std::chrono_literals;

// How long a thread that should be blocked is given to get through
// anyway, and how long one that should get through may take.
constexpr auto kBlockedFor = 200ms;
constexpr auto kPatience = 10s;

// Waits until `done` holds, for at most kPatience.
template <typename Predicate>
bool Eventually(Predicate done) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(KeyspaceGateTest, SharedHoldersPassTogether) {
  KeyspaceGate gate;
  constexpr int kHolders = 4;
  std::atomic<int> inside{0};
  std::atomic<bool> all_inside_at_once{true};
  std::vector<std::thread> holders;
  for (int i = 0; i < kHolders; ++i) {
    holders.emplace_back([&] {
      SharedGateLock lock(&gate);
      inside.fetch_add(1);
      // Each stays inside until every other one is in too.
      if (!Eventually([&] { return inside.load() == kHolders; })) {
        all_inside_at_once = false;
      }
    });
  }
  for (std::thread& t : holders) t.join();
  EXPECT_TRUE(all_inside_at_once);
}

TEST(KeyspaceGateTest, LockWaitsForTheHoldersInside) {
  KeyspaceGate gate;
  gate.LockShared();
  std::atomic<bool> locked{false};
  std::thread alone([&] {
    ExclusiveGateLock lock(&gate);
    locked = true;
  });
  std::this_thread::sleep_for(kBlockedFor);
  EXPECT_FALSE(locked) << "Lock() passed while a shared holder was inside";
  gate.UnlockShared();
  EXPECT_TRUE(Eventually([&] { return locked.load(); }));
  alone.join();
}

TEST(KeyspaceGateTest, AWaitingLockHoldsBackNewSharedHolders) {
  KeyspaceGate gate;
  gate.LockShared();  // keeps the Lock() below waiting
  std::atomic<int> order{0};
  std::atomic<int> alone_at{0};
  std::atomic<int> shared_at{0};
  std::thread alone([&] {
    ExclusiveGateLock lock(&gate);
    alone_at = ++order;
  });
  std::this_thread::sleep_for(kBlockedFor);  // Lock() is waiting by now
  std::thread late([&] {
    SharedGateLock lock(&gate);
    shared_at = ++order;
  });
  std::this_thread::sleep_for(kBlockedFor);
  EXPECT_EQ(shared_at.load(), 0)
      << "a new shared holder passed while Lock() waited";
  gate.UnlockShared();
  EXPECT_TRUE(Eventually([&] { return shared_at.load() != 0; }));
  alone.join();
  late.join();
  EXPECT_EQ(alone_at.load(), 1);
  EXPECT_EQ(shared_at.load(), 2);
}

}  // namespace
}  // namespace plush::server
