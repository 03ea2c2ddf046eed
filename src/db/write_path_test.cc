// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// WritePath on its own (db/write_path.h), on the engine's layers opened by
// hand (tests/engine_layers.h): a write runs its preparation under the
// key's DRAM entry lock, migrates a full entry first, logs the record
// unless told not to, inserts it; it writes nothing when the DB is closed,
// when its placement is stale (and says so), or when its preparation skips
// or fails. A batch applies its records in order, however many land in
// one entry.

#include "db/write_path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine_layers.h"
#include "testutil.h"

namespace plush {
namespace {

std::string KeyOf(uint64_t word) {
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

class WritePathTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(layers_.Open(Options::SmallProfile())); }

  WritePath& path() { return layers_.write_path(); }
  table::LeveledTable& table() { return layers_.table(); }

  // An inline record of key `word` and its placement now.
  Placement PlaceInline(uint64_t word) {
    keys_.push_back(KeyOf(word));
    return {table().hasher().InlineHash(word), table().hasher().version(),
            keys_.back()};
  }
  static table::Slot Inline(uint64_t key, uint64_t value) {
    return {key, value, false, false};
  }
  // Keys (8-byte words) whose records go to DRAM entry `d`.
  std::vector<uint64_t> KeysOfEntry(uint64_t d, size_t n) {
    std::vector<uint64_t> keys;
    for (uint64_t w = 1; keys.size() < n; ++w) {
      if (table().DramIndex(table().hasher().InlineHash(w)) == d)
        keys.push_back(w);
    }
    return keys;
  }
  Status Write(uint64_t key, uint64_t value, bool log = true) {
    WriteOptions options;
    options.log = log;
    bool moved = false;
    Status s =
        path().WriteSlot(options, PlaceInline(key), Inline(key, value), &moved);
    EXPECT_FALSE(moved);
    return s;
  }
  // The value the table holds for `key`, or "NotFound".
  std::string Read(uint64_t key) {
    std::string value;
    const Status s = layers_.Get(KeyOf(key), &value);
    if (s.IsNotFound()) return "NotFound";
    if (!s.ok()) return s.ToString();
    uint64_t word = 0;
    std::memcpy(&word, value.data(), 8);
    return std::to_string(word);
  }

  test::EngineLayers layers_{"write_path_test"};
  std::vector<std::string> keys_;  // the keys placements point into
};

TEST_F(WritePathTest, AWriteIsInsertedIntoItsEntryLoggedOrNot) {
  ASSERT_OK(Write(1, 10));
  const uint64_t d = table().DramIndex(table().hasher().InlineHash(1));
  EXPECT_EQ(table().DramState(d).size, 1u);
  EXPECT_FALSE(table().DramHasUnlogged(d)) << "a logged write";
  EXPECT_EQ(Read(1), "10");
  const uint64_t unlogged = KeysOfEntry(d, 2)[1];
  ASSERT_OK(Write(unlogged, 20, /*log=*/false));
  EXPECT_TRUE(table().DramHasUnlogged(d)) << "an unlogged write";
  EXPECT_EQ(table().DramState(d).size, 2u);
  EXPECT_EQ(Read(unlogged), "20");
}

TEST_F(WritePathTest, PreparationRunsUnderTheEntryLockAndMaySkipOrFail) {
  const Placement at = PlaceInline(7);
  const uint64_t d = table().DramIndex(at.hash);
  bool moved = false;
  bool locked = false;
  ASSERT_OK(path().Write(
      {}, at,
      [&](uint64_t entry, table::Slot* slot, bool*) {
        EXPECT_EQ(entry, d);
        locked = table().DramLocked(entry);
        *slot = Inline(7, 70);
        return Status::OK();
      },
      &moved));
  EXPECT_TRUE(locked);
  EXPECT_FALSE(table().DramLocked(d)) << "unlocked after the write";
  EXPECT_EQ(Read(7), "70");

  ASSERT_OK(path().Write(
      {}, at,
      [&](uint64_t, table::Slot* slot, bool* skip) {
        *slot = Inline(7, 71);
        *skip = true;
        return Status::OK();
      },
      &moved));
  EXPECT_EQ(Read(7), "70") << "a skipped write writes nothing";

  const Status s = path().Write(
      {}, at,
      [&](uint64_t, table::Slot* slot, bool*) {
        *slot = Inline(7, 72);
        return Status::Busy("not now");
      },
      &moved);
  EXPECT_EQ(s.ToString(), "Busy: not now");
  EXPECT_EQ(Read(7), "70") << "a failed preparation writes nothing";
  EXPECT_EQ(table().DramState(d).size, 1u);
  EXPECT_FALSE(table().DramLocked(d));
}

TEST_F(WritePathTest, AFullEntryMigratesBeforeTheWrite) {
  const uint64_t d = 2;
  const std::vector<uint64_t> keys = KeysOfEntry(d, table().capacity() + 1);
  for (unsigned i = 0; i < table().capacity(); ++i)
    ASSERT_OK(Write(keys[i], i));
  const table::EntryState full = table().DramState(d);
  ASSERT_EQ(full.size, table().capacity());
  EXPECT_EQ(path().inline_migrations(), 0u);

  ASSERT_OK(Write(keys.back(), 99));
  EXPECT_EQ(path().inline_migrations(), 1u);
  const table::EntryState after = table().DramState(d);
  EXPECT_EQ(after.size, 1u) << "the entry migrated, then took the write";
  EXPECT_EQ(after.epoch, full.epoch + 1);
  for (unsigned i = 0; i < table().capacity(); ++i)
    EXPECT_EQ(Read(keys[i]), std::to_string(i)) << "migrated record " << i;
  EXPECT_EQ(Read(keys.back()), "99");
}

TEST_F(WritePathTest, AClosedDbWritesNothing) {
  layers_.MarkClosed();
  bool prepared = false;
  bool moved = false;
  const Status s = path().Write(
      {}, PlaceInline(5),
      [&](uint64_t, table::Slot* slot, bool*) {
        prepared = true;
        *slot = Inline(5, 50);
        return Status::OK();
      },
      &moved);
  EXPECT_EQ(s.ToString(), "InvalidArgument: the DB is closed");
  EXPECT_FALSE(prepared);
  std::vector<WritePath::Record> batch{{PlaceInline(6).hash, Inline(6, 60), {}}};
  EXPECT_EQ(path()
                .WriteRecords({}, batch, table().hasher().version(), &moved)
                .ToString(),
            "InvalidArgument: the DB is closed");
  for (uint64_t d = 0; d < table().dram_entries(); ++d)
    EXPECT_EQ(table().DramState(d).size, 0u);
}

// A placement made on another version of the range map: the key may
// belong to another unit now. Nothing is written, and the caller is told
// to place the key again.
TEST_F(WritePathTest, AStalePlacementWritesNothingAndSaysTheKeyMoved) {
  Placement stale = PlaceInline(9);
  stale.version += 1;
  bool prepared = false;
  bool moved = false;
  ASSERT_OK(path().Write(
      {}, stale,
      [&](uint64_t, table::Slot* slot, bool*) {
        prepared = true;
        *slot = Inline(9, 90);
        return Status::OK();
      },
      &moved));
  EXPECT_TRUE(moved);
  EXPECT_FALSE(prepared);
  EXPECT_EQ(Read(9), "NotFound");
  std::vector<WritePath::Record> batch{{stale.hash, Inline(9, 91), {}}};
  moved = false;
  ASSERT_OK(path().WriteRecords({}, batch, stale.version, &moved));
  EXPECT_TRUE(moved);
  EXPECT_EQ(Read(9), "NotFound");
}

// Records of a batch apply in order: the later record of a key wins, in
// the same entry or across its migrations; a batch may give one entry
// several times what it holds.
TEST_F(WritePathTest, ABatchAppliesItsRecordsInOrderWhateverTheirNumber) {
  for (const bool log : {true, false}) {
    SCOPED_TRACE(log ? "logged" : "unlogged");
    const uint64_t d = log ? 1 : 3;
    const std::vector<uint64_t> keys = KeysOfEntry(d, 20);
    std::vector<WritePath::Record> batch;
    const unsigned n = 3 * table().capacity() + 5;
    for (unsigned i = 0; i < n; ++i) {
      const uint64_t key = keys[i % keys.size()];
      batch.push_back({table().hasher().InlineHash(key), Inline(key, i), {}});
    }
    const uint64_t migrations = path().inline_migrations();
    WriteOptions options;
    options.log = log;
    bool moved = false;
    ASSERT_OK(path().WriteRecords(options, batch, table().hasher().version(),
                                  &moved));
    EXPECT_FALSE(moved);
    EXPECT_GE(path().inline_migrations() - migrations, 3u);
    for (size_t k = 0; k < keys.size(); ++k) {
      // The last i < n with i % 20 == k.
      const unsigned last = (n - 1 - k) / 20 * 20 + static_cast<unsigned>(k);
      EXPECT_EQ(Read(keys[k]), std::to_string(last)) << "key " << k;
    }
    ASSERT_OK(path().Halted());
  }
}

}  // namespace
}  // namespace plush
