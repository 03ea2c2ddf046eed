// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What INFO persistence and the start-up line say an answered write
// survives, for each back end, with and without --sync-writes.

#include "reply_guarantee.h"

#include <gtest/gtest.h>

namespace plush::server {
namespace {

Stats BackEnd(const char* backend, bool power_fail_durable,
              const char* guarantee) {
  Stats stats;
  stats.backend = backend;
  stats.power_fail_durable = power_fail_durable;
  stats.guarantee = guarantee;
  return stats;
}

// A pool file that is not power-fail safe is not power-fail durable:
// background work changes it in place after each SAVE (docs/
// reliability.md §4). --sync-writes opens it power-fail safe
// (Options::power_fail_safe), and its answered writes survive power
// failure; so do those of a pool that an earlier opening made so.
TEST(ReplyGuaranteeTest, FileBackEndIsPowerFailDurableWhenPowerFailSafe) {
  const Stats file = BackEnd("file", false, "the engine's statement");
  const ReplyGuarantee plain = GuaranteeOfReplies(file, false);
  EXPECT_FALSE(plain.power_fail_durable);
  EXPECT_EQ(plain.text,
            "answered writes survive a crash of the server process; power "
            "failure only once SAVE or SHUTDOWN synced them (--sync-writes "
            "syncs each before its reply)");
  const ReplyGuarantee synced =
      GuaranteeOfReplies(BackEnd("file", true, "the engine's statement"), true);
  EXPECT_TRUE(synced.power_fail_durable);
  EXPECT_EQ(synced.text,
            "answered writes are synced (msync) before their reply "
            "(--sync-writes); the pool orders its background work with "
            "msyncs: a power failure keeps them");
  const ReplyGuarantee kept = GuaranteeOfReplies(
      BackEnd("file", true, "the engine's statement"), false);
  EXPECT_TRUE(kept.power_fail_durable);
  EXPECT_EQ(kept.text,
            "answered writes survive power failure: the pool is power-fail "
            "safe (every persistence barrier is an msync)");
}

// On pmem a sync adds nothing, also where a test override made an
// ordinary file pass for pmem: --sync-writes promises nothing more there.
TEST(ReplyGuaranteeTest, PmemStatesTheEnginesGuarantee) {
  for (bool sync_writes : {false, true}) {
    const ReplyGuarantee pmem = GuaranteeOfReplies(
        BackEnd("pmem", true, "writes survive power failure"), sync_writes);
    EXPECT_TRUE(pmem.power_fail_durable);
    EXPECT_EQ(pmem.text, "writes survive power failure");
    const ReplyGuarantee overridden = GuaranteeOfReplies(
        BackEnd("pmem", false, "NOT power-fail durable"), sync_writes);
    EXPECT_FALSE(overridden.power_fail_durable);
    EXPECT_EQ(overridden.text, "NOT power-fail durable");
  }
}

}  // namespace
}  // namespace plush::server
