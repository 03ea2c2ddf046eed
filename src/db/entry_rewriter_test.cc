// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// EntryRewriter on the engine's layers (tests/engine_layers.h): what a
// rewrite leaves for recovery.

#include "db/entry_rewriter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "engine_layers.h"
#include "testutil.h"

namespace plush {
namespace {

using test::Word;

// A rewrite that drops only superseded versions still retires the epochs
// it logs again: their records, replayed beside the rewritten ones, could
// hold more than the entry, and a migration of the rewritten records cut
// short by a crash leaves recovery no epoch to migrate the older ones
// under (found by the re-balancing crash soak: "recovery logs hold more
// unmigrated records for DRAM entry 4 than it holds").
TEST(EntryRewriterTest, ARewriteRetiresTheEpochsItLogsAgain) {
  test::EngineLayers layers("entry_rewriter_test");
  ASSERT_OK(layers.Open(Options::SmallProfile()));
  table::LeveledTable& table = layers.table();
  for (uint64_t v = 0; v < 20; ++v) ASSERT_OK(layers.Put(Word(7), Word(v)));
  uint64_t key_word = 0;
  std::memcpy(&key_word, Word(7).data(), 8);
  const uint64_t d = table.DramIndex(table.HashOf(key_word, false));
  const uint64_t epoch = table.DramState(d).epoch;
  ASSERT_EQ(table.DramState(d).size, 20u);

  SpinLockRef lock = table.DramLock(d);
  lock.lock();
  const EntryRewriter::Outcome outcome =
      layers.rewriter().Rewrite(d, /*sample=*/false);
  lock.unlock();
  ASSERT_EQ(outcome.result, EntryRewriter::Result::kRewritten);
  EXPECT_EQ(table.DramState(d).size, 1u);
  EXPECT_EQ(table.DramState(d).epoch, epoch + 1);
  EXPECT_GE(table.ChildEpochRange(d).first, epoch)
      << "the records of the epoch logged again are retired";
  std::string value;
  ASSERT_OK(layers.Get(Word(7), &value));
  EXPECT_EQ(value, Word(19));
}

// Where every barrier is a sync (a power-fail-safe pool file), the
// rewrites of a group share two syncs: their batches are logged without
// one, and Commit() makes them durable, then the retired epochs, then
// changes the entries. One at a time, each rewrite takes two.
TEST(EntryRewriterTest, TheRewritesOfAGroupShareTwoSyncs) {
  const std::string device_name = "entry_rewriter_group_test";
  test::EngineLayers layers(device_name);
  ASSERT_OK(layers.Open(Options::SmallProfile()));
  table::LeveledTable& table = layers.table();
  // Four keys of four DRAM entries, each written 20 times.
  std::map<uint64_t, uint64_t> key_of_entry;
  for (uint64_t k = 0; key_of_entry.size() < 4; ++k) {
    uint64_t key_word = 0;
    std::memcpy(&key_word, Word(k).data(), 8);
    key_of_entry.emplace(table.DramIndex(table.HashOf(key_word, false)), k);
  }
  for (const auto& [d, k] : key_of_entry) {
    for (uint64_t v = 0; v < 20; ++v) ASSERT_OK(layers.Put(Word(k), Word(v)));
  }
  ASSERT_OK(table.EnsureFirstLevel());  // (its creation's syncs not counted)
  auto device = media::SimMedia::Find(device_name);
  device->set_model(media::SimMedia::Model::kFile);
  device->OrderBarriers();

  const uint64_t syncs = device->syncs();
  for (const auto& [d, k] : key_of_entry) table.DramLock(d).lock();
  EntryRewriter::Group group(&layers.rewriter());
  for (const auto& [d, k] : key_of_entry) {
    EXPECT_EQ(group.Add(d, /*sample=*/false).result,
              EntryRewriter::Result::kRewritten);
    EXPECT_EQ(table.DramState(d).size, 20u) << "changed before Commit()";
  }
  EXPECT_EQ(device->syncs(), syncs) << "a batch synced on its own";
  group.Commit();
  EXPECT_EQ(device->syncs(), syncs + 2);
  for (const auto& [d, k] : key_of_entry) table.DramLock(d).unlock();
  for (const auto& [d, k] : key_of_entry) {
    EXPECT_EQ(table.DramState(d).size, 1u);
    std::string value;
    ASSERT_OK(layers.Get(Word(k), &value));
    EXPECT_EQ(value, Word(19));
  }

  // One at a time: two each.
  for (const auto& [d, k] : key_of_entry) {
    for (uint64_t v = 0; v < 20; ++v) ASSERT_OK(layers.Put(Word(k), Word(v)));
  }
  const uint64_t alone = device->syncs();
  for (const auto& [d, k] : key_of_entry) {
    SpinLockRef lock = table.DramLock(d);
    lock.lock();
    EXPECT_EQ(layers.rewriter().Rewrite(d, /*sample=*/false).result,
              EntryRewriter::Result::kRewritten);
    lock.unlock();
  }
  EXPECT_EQ(device->syncs(), alone + 2 * key_of_entry.size());
}

}  // namespace
}  // namespace plush
