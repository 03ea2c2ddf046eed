// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RecoveryLogs on its own, on a simulated pool with a scripted LogHost:
// appends, chunk rotation and recycling, and what recovery replays from
// the entries a crash can leave: torn words, stale generations, zeroed
// slots, batches without their commit, the end of a chunk, batches spilled
// to the spill area (log_format.h, batch_spill.h, docs/format.md §5).
// Entries are damaged by writing the words a crash would have left; three
// tests crash the simulator for real.

#include "log/recovery_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "testing/replay_incomplete_batches.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::log {

void PrintTo(const LogRecord& r, std::ostream* os) {
  *os << "{key " << r.key << ", value " << r.value << ", epoch " << r.epoch
      << ", position " << unsigned{r.position} << ", type "
      << static_cast<int>(r.type) << "}";
}

namespace {

constexpr uint32_t kNoChunk = 0xFFFFFFFF;

auto Fields(const LogRecord& r) {
  return std::make_tuple(r.key, r.value, r.epoch, r.tombstone, r.indirect,
                         r.position, r.type);
}

// What the DB would answer about its DRAM entries, as the test sets it.
class ScriptedHost final : public LogHost {
 public:
  // The current epoch of a record's DRAM entry.
  std::function<uint64_t(const LogRecord&)> epoch_of =
      [](const LogRecord&) -> uint64_t { return 1; };
  uint64_t min_dram_epoch = 1;
  Status migrate_status;
  // Whether a record's entry holds a newer version of its key.
  std::function<bool(const LogRecord&)> superseded =
      [](const LogRecord&) { return false; };
  // Whether everything put into a record's entry expired.
  std::function<bool(const LogRecord&)> entry_expired =
      [](const LogRecord&) { return false; };
  // What Retire does with a record that RetireBy allows to be rewritten
  // (kMigrated: it migrates, as always without a rewrite).
  Retired rewrite_as = Retired::kMigrated;

  int epoch_queries = 0;
  std::vector<LogRecord> migrated;  // by MigrateIfUnmigrated or Retire
  std::vector<RetireBy> retired_by;  // of each Retire, and RewriteAll
  std::vector<size_t> rewrite_groups;  // the records of each RewriteAll
  std::vector<unsigned> waited_for;
  std::vector<unsigned> half_written;

  uint64_t DramIndexOf(const LogRecord& r) const override { return r.key; }
  uint64_t DramEpochOf(const LogRecord& r) override {
    ++epoch_queries;
    return epoch_of(r);
  }
  uint64_t MinDramEpoch(unsigned) override { return min_dram_epoch; }
  Status MigrateIfUnmigrated(const LogRecord& r) override {
    migrated.push_back(r);
    return migrate_status;
  }
  bool Superseded(const LogRecord& r) override { return superseded(r); }
  bool EntryExpired(const LogRecord& r) override { return entry_expired(r); }
  Status Retire(const LogRecord& r, RetireBy by, Retired* how) override {
    retired_by.push_back(by);
    *how = by == RetireBy::kMigrating ? Retired::kMigrated : rewrite_as;
    return *how == Retired::kMigrated ? MigrateIfUnmigrated(r) : migrate_status;
  }
  // As Retire(kRewritingOnly) of each (rewrite_as kMigrated: not worth
  // it), up to the first kNoRoom.
  void RewriteAll(std::span<const LogRecord> records,
                  std::span<Retired> how) override {
    rewrite_groups.push_back(records.size());
    bool no_room = false;
    for (size_t i = 0; i < records.size(); ++i) {
      if (!no_room) retired_by.push_back(RetireBy::kRewritingOnly);
      no_room |= rewrite_as == Retired::kNoRoom;
      how[i] = rewrite_as == Retired::kMigrated ? Retired::kLeft : rewrite_as;
    }
  }
  void WaitForAppends(unsigned log) override { waited_for.push_back(log); }
  void ChunkHalfWritten(unsigned log) override { half_written.push_back(log); }
};

class RecoveryLogTest : public ::testing::Test {
 protected:
  virtual Options PoolOptions() const { return Options::SmallProfile(); }
  // SmallProfile: 2 logs of 3 chunks of 4096 bytes (168 entries each).
  static constexpr unsigned kChunks = 3;
  static constexpr uint64_t kEntries = 168;

  void SetUp() override {
    bool created = false;
    ASSERT_OK(pool::Pool::Open(PoolOptions(), test::SimDevices(), path_,
                               &pool_, &created, RecoveryLogs::Format));
    ASSERT_EQ(pool_->params().log_chunks_per_log, kChunks);
    if (PoolOptions().log_chunk_size == Options::SmallProfile().log_chunk_size) {
      ASSERT_EQ(EntriesPerChunk(pool_->params().log_chunk_size), kEntries);
    }
    device_ = media::SimMedia::Find(path_);
    logs_ = std::make_unique<RecoveryLogs>(pool_.get(), &host_);
  }
  void TearDown() override {
    logs_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }

  static LogRecord Rec(uint64_t key, uint64_t epoch = 1) {
    LogRecord r;
    r.key = key;
    r.value = key * 1000 + 7;
    r.epoch = epoch;
    r.position = static_cast<uint8_t>(key);
    return r;
  }
  // Appends like the write path: rotate while the log has no room.
  void Append(unsigned log, const LogRecord& r) {
    for (int tries = 0; tries < 3; ++tries) {
      uint32_t seen = 0;
      if (logs_->TryAppend(log, r, false, &seen)) return;
      ASSERT_OK(logs_->Rotate(log, seen));
    }
    FAIL() << "no room after rotating";
  }
  // Appends like the write path: a batch too large for a chunk holds the
  // spill area, which it lets go to rotate.
  void AppendBatch(unsigned log, const std::vector<LogRecord>& records) {
    for (int tries = 0; tries < 3; ++tries) {
      BatchSpill::Lease spill;
      if (!logs_->FitsOneChunk(records.size())) {
        ASSERT_OK(logs_->spill().Acquire(records.size(), &spill));
      }
      uint32_t seen = 0;
      if (logs_->TryAppendBatch(log, records.data(), records.size(), spill,
                                /*foreign=*/false, &seen)) {
        return;
      }
      spill.Release();
      ASSERT_OK(logs_->Rotate(log, seen));
    }
    FAIL() << "no room after rotating";
  }
  static std::vector<LogRecord> Batch(uint64_t first, uint64_t count,
                                      uint64_t epoch = 1) {
    std::vector<LogRecord> batch;
    for (uint64_t k = first; k < first + count; ++k)
      batch.push_back(Rec(k, epoch));
    return batch;
  }
  void AppendKeys(unsigned log, uint64_t first, uint64_t count,
                  uint64_t epoch = 1) {
    for (uint64_t k = first; k < first + count; ++k) Append(log, Rec(k, epoch));
  }

  // A restart: fresh RecoveryLogs over the pool as it is, and Recover().
  // Returns what was replayed, per log.
  std::vector<std::vector<LogRecord>> Recover(
      bool replay_uncommitted = false, Status* status = nullptr,
      const std::function<Status(const LogRecord&)>& check = nullptr) {
    static const ReplayIncompleteBatches kReplayIncomplete;
    logs_ = std::make_unique<RecoveryLogs>(
        pool_.get(), &host_, replay_uncommitted ? &kReplayIncomplete : nullptr);
    std::vector<std::vector<LogRecord>> replayed(logs_->log_count());
    uint64_t count = 0;
    const Status s = logs_->Recover(
        2,
        [&](unsigned log, const LogRecord& r) {
          replayed[log].push_back(r);
          return check ? check(r) : Status::OK();
        },
        &count);
    if (status != nullptr) {
      *status = s;
    } else {
      EXPECT_OK(s);
    }
    uint64_t total = 0;
    for (const auto& records : replayed) total += records.size();
    if (s.ok()) {
      EXPECT_EQ(count, total);
    }
    return replayed;
  }
  static std::vector<uint64_t> Keys(const std::vector<LogRecord>& records) {
    std::vector<uint64_t> keys;
    for (const LogRecord& r : records) keys.push_back(r.key);
    return keys;
  }
  static std::vector<uint64_t> Range(uint64_t first, uint64_t count) {
    std::vector<uint64_t> keys;
    for (uint64_t k = first; k < first + count; ++k) keys.push_back(k);
    return keys;
  }

  uint64_t ChunkOffset(unsigned log, unsigned chunk) const {
    return pool::kLogRegionOffset +
           (uint64_t{log} * kChunks + chunk) * pool_->params().log_chunk_size;
  }
  uint64_t& StateWord(unsigned log, unsigned chunk) {
    return *pool_->media().At<uint64_t>(ChunkOffset(log, chunk));
  }
  LogChunkState State(unsigned log, unsigned chunk) {
    return LogChunkState::Decode(StateWord(log, chunk));
  }
  uint64_t* Entry(unsigned log, unsigned chunk, uint64_t slot) {
    return pool_->media().At<uint64_t>(ChunkOffset(log, chunk) +
                                       kLogChunkHeaderSize + slot * kEntrySize);
  }
  // Overwrites a slot with an entry of `type` valid under `check`.
  void Write(unsigned log, unsigned chunk, uint64_t slot, LogRecord r,
             EntryType type, uint32_t check = 1) {
    r.type = type;
    EncodeEntry(r, check, Entry(log, chunk, slot));
  }
  static LogRecord Commit(uint64_t members) {
    LogRecord c;
    c.key = members;
    return c;
  }
  bool SlotIsZero(unsigned log, unsigned chunk, uint64_t slot) {
    const uint64_t* w = Entry(log, chunk, slot);
    return (w[0] | w[1] | w[2]) == 0;
  }

  const std::string path_ = "sim:recovery_log_test";
  std::unique_ptr<pool::Pool> pool_;
  std::shared_ptr<media::SimMedia> device_;
  ScriptedHost host_;
  std::unique_ptr<RecoveryLogs> logs_;
};

TEST_F(RecoveryLogTest, NewLogsAreFreeChunksOfCheckOne) {
  for (unsigned l = 0; l < 2; ++l) {
    for (unsigned c = 0; c < kChunks; ++c) {
      EXPECT_EQ(StateWord(l, c), 1u) << "log " << l << " chunk " << c;
    }
  }
  const auto replayed = Recover();
  EXPECT_TRUE(replayed[0].empty());
  EXPECT_TRUE(replayed[1].empty());
  EXPECT_EQ(logs_->Verify(nullptr), 0u);
}

TEST_F(RecoveryLogTest, FirstAppendAsksForARotationThatActivatesAChunk) {
  uint32_t seen = 0;
  EXPECT_FALSE(logs_->TryAppend(1, Rec(1), false, &seen));
  EXPECT_EQ(seen, kNoChunk);
  ASSERT_OK(logs_->Rotate(1, seen));
  const LogChunkState s = State(1, 0);
  EXPECT_TRUE(s.in_use);
  EXPECT_EQ(s.log_seq, 1u);
  EXPECT_EQ(s.check, 1u);
  EXPECT_EQ(device_->DurableImage()[ChunkOffset(1, 0) / 8], s.Encode())
      << "the activation is persisted";
  EXPECT_EQ(State(0, 0).Encode(), 1u) << "the other log is untouched";
}

// One persistence barrier per append, and the entry is durable after it.
TEST_F(RecoveryLogTest, AppendIsOneBarrierAndLeavesTheEncodedEntry) {
  Append(0, Rec(1));
  const LogRecord r = Rec(2, 5);
  const uint64_t points = device_->persist_points();
  uint32_t seen = 0;
  ASSERT_TRUE(logs_->TryAppend(0, r, false, &seen));
  EXPECT_EQ(device_->persist_points(), points + 1);
  uint64_t expected[3];
  EncodeEntry(r, 1, expected);
  const std::vector<uint64_t> durable = device_->DurableImage();
  const uint64_t at =
      (ChunkOffset(0, 0) + kLogChunkHeaderSize + kEntrySize) / 8;
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(Entry(0, 0, 1)[w], expected[w]) << "word " << w;
    EXPECT_EQ(durable[at + w], expected[w]) << "word " << w;
  }
}

TEST_F(RecoveryLogTest, RecordsAreReplayedInAppendOrderPerLog) {
  std::vector<LogRecord> appended[2];
  for (uint64_t k = 1; k <= 40; ++k) {
    LogRecord r = Rec(k, k / 3 + 1);
    r.key |= (k % 5 == 0 ? uint64_t{3} << 62 : 0);  // the words' top bits
    r.value = ~k;
    r.tombstone = k % 4 == 0;
    r.indirect = k % 7 == 0;
    Append(k % 2, r);
    appended[k % 2].push_back(r);
  }
  const auto replayed = Recover();
  for (unsigned l = 0; l < 2; ++l) {
    ASSERT_EQ(replayed[l].size(), appended[l].size()) << "log " << l;
    for (size_t i = 0; i < replayed[l].size(); ++i) {
      EXPECT_EQ(Fields(replayed[l][i]), Fields(appended[l][i]))
          << "log " << l << " entry " << i;
    }
  }
}

TEST_F(RecoveryLogTest, RecordsGoOnInTheNextChunkAtTheEndOfAChunk) {
  AppendKeys(0, 0, kEntries);
  uint32_t seen = 0;
  EXPECT_FALSE(logs_->TryAppend(0, Rec(kEntries), false, &seen));
  EXPECT_EQ(seen, 0u) << "chunk 0 is current and full";
  ASSERT_OK(logs_->Rotate(0, seen));
  EXPECT_EQ(State(0, 1).log_seq, 2u);
  AppendKeys(0, kEntries, 10);
  EXPECT_EQ(Keys(Recover()[0]), Range(0, kEntries + 10));
}

// Two threads found the chunk full; the second rotation must not skip the
// chunk the first one activated.
TEST_F(RecoveryLogTest, RotationBySomeoneElseMakesMineANoOp) {
  AppendKeys(0, 0, kEntries);
  uint32_t seen = 0;
  ASSERT_FALSE(logs_->TryAppend(0, Rec(kEntries), false, &seen));
  ASSERT_OK(logs_->Rotate(0, seen));
  ASSERT_OK(logs_->Rotate(0, seen));
  EXPECT_FALSE(State(0, 2).in_use) << "a second chunk was activated";
  ASSERT_TRUE(logs_->TryAppend(0, Rec(kEntries), false, &seen));
  EXPECT_EQ(seen, 1u);
  // Nor does a rotation of a current chunk that is not full.
  ASSERT_OK(logs_->Rotate(0, 1));
  EXPECT_FALSE(State(0, 2).in_use);
  EXPECT_EQ(Keys(Recover()[0]), Range(0, kEntries + 1));
}

TEST_F(RecoveryLogTest, RotationAfterCloseIsInvalidArgument) {
  AppendKeys(0, 0, kEntries);
  logs_->Close();
  const Status s = logs_->Rotate(0, 0);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "the DB is closed");
  EXPECT_FALSE(State(0, 1).in_use);
}

// ---- Torn and stale entries -----------------------------------------------

TEST_F(RecoveryLogTest, TornWordIsSkippedAndLaterSlotsAreStillReplayed) {
  for (int word = 0; word < 3; ++word) {
    for (const uint64_t left : {uint64_t{0}, uint64_t{2}, uint64_t{3}}) {
      TearDown();
      SetUp();
      AppendKeys(0, 1, 5);
      // The word a crash left: never written (0), or another generation's.
      uint64_t& w = Entry(0, 0, 2)[word];
      w = (w & ((uint64_t{1} << 62) - 1)) | left << 62;
      EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 2, 4, 5}))
          << "word " << word << " with check " << left;
    }
  }
}

TEST_F(RecoveryLogTest, EntryOfThePreviousGenerationIsSkipped) {
  AppendKeys(0, 1, 5);
  Write(0, 0, 2, Rec(99), EntryType::kRecord, /*check=*/3);
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 2, 4, 5}));
}

TEST_F(RecoveryLogTest, ZeroedSlotIsSkipped) {
  AppendKeys(0, 1, 5);
  std::fill_n(Entry(0, 0, 2), 3, 0);
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 2, 4, 5}));
}

TEST_F(RecoveryLogTest, EntryOfTypeThreeIsSkipped) {
  AppendKeys(0, 1, 5);
  Entry(0, 0, 2)[2] |= uint64_t{3} << 46;
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 2, 4, 5}));
}

// A crash at the append's fence may persist any subset of its three words:
// recovery finds the record whole or not at all, never a mix.
TEST_F(RecoveryLogTest, CrashDuringAnAppendLeavesTheRecordWholeOrAbsent) {
  AppendKeys(0, 1, 3);
  device_->ArmCrash(1);
  Append(0, Rec(4, 9));
  ASSERT_TRUE(device_->crashed());
  const std::vector<uint64_t> base = device_->CrashImage(0);
  std::vector<std::vector<uint64_t>> entries;  // slot 3 in each crash image
  for (uint64_t seed = 0; seed < 64; ++seed) {
    const std::vector<uint64_t> image = device_->CrashImage(seed);
    const uint64_t at = (ChunkOffset(0, 0) + kLogChunkHeaderSize) / 8 + 9;
    entries.emplace_back(image.begin() + at, image.begin() + at + 3);
  }
  int whole = 0;
  int absent = 0;
  for (const auto& words : entries) {
    device_->Restore(base);
    std::copy(words.begin(), words.end(), Entry(0, 0, 3));
    const std::vector<LogRecord> replayed = Recover()[0];
    ASSERT_GE(replayed.size(), 3u);
    EXPECT_EQ(Keys({replayed.begin(), replayed.begin() + 3}),
              (std::vector<uint64_t>{1, 2, 3}));
    if (replayed.size() == 4) {
      EXPECT_EQ(Fields(replayed[3]), Fields(Rec(4, 9)));
      ++whole;
    } else {
      ASSERT_EQ(replayed.size(), 3u);
      ++absent;
    }
  }
  EXPECT_GT(whole, 0) << "no crash image kept the whole entry";
  EXPECT_GT(absent, 0) << "no crash image tore the entry";
}

// Recovery reads only: a pool whose recovery fails must stay as it was.
TEST_F(RecoveryLogTest, RecoveryWritesNothingUntilInvalidSlotsAreZeroed) {
  AppendKeys(0, 1, 6);
  Entry(0, 0, 1)[1] = 0;                           // torn
  Write(0, 0, 3, Rec(98), EntryType::kRecord, 2);  // stale
  Write(0, 0, 6, Rec(99), EntryType::kMember);     // uncommitted
  const std::vector<uint64_t> before = device_->LiveImage();
  const uint64_t points = device_->persist_points();
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 3, 5, 6}));
  EXPECT_EQ(device_->LiveImage(), before);
  EXPECT_EQ(device_->persist_points(), points);
  logs_->ZeroInvalidSlots();
  for (const uint64_t slot : {1, 3, 6}) {
    EXPECT_TRUE(SlotIsZero(0, 0, slot)) << "slot " << slot;
  }
  for (const uint64_t slot : {0, 2, 4, 5}) {
    EXPECT_FALSE(SlotIsZero(0, 0, slot)) << "slot " << slot;
  }
  // Durably so: the next generation of the chunk must not meet them.
  const std::vector<uint64_t> durable = device_->DurableImage();
  const uint64_t at = (ChunkOffset(0, 0) + kLogChunkHeaderSize) / 8;
  for (const uint64_t slot : {1, 3, 6}) {
    for (int w = 0; w < 3; ++w) EXPECT_EQ(durable[at + slot * 3 + w], 0u);
  }
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 3, 5, 6}))
      << "zeroing removed a record";
}

// ---- Write batches ---------------------------------------------------------

TEST_F(RecoveryLogTest, CompleteBatchReplaysItsMembersInOrder) {
  Append(0, Rec(1));
  AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
  Append(0, Rec(5));
  const std::vector<LogRecord> replayed = Recover()[0];
  EXPECT_EQ(Keys(replayed), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  ASSERT_EQ(replayed.size(), 5u);
  EXPECT_EQ(replayed[0].type, EntryType::kRecord);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(replayed[i].type, EntryType::kMember) << i;
    EXPECT_EQ(replayed[i].value, Rec(i + 1).value);
  }
  LogRecord commit;
  ASSERT_TRUE(DecodeEntry(Entry(0, 0, 4), 1, &commit));
  EXPECT_EQ(commit.type, EntryType::kCommit);
  EXPECT_EQ(commit.key, 3u);
}

TEST_F(RecoveryLogTest, BatchWithoutItsCommitIsDropped) {
  Append(0, Rec(1));
  AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
  Append(0, Rec(5));
  std::fill_n(Entry(0, 0, 4), 3, 0);  // the commit never reached the media
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 5}));
  logs_->ZeroInvalidSlots();
  for (uint64_t slot = 1; slot <= 3; ++slot)
    EXPECT_TRUE(SlotIsZero(0, 0, slot)) << "member in slot " << slot;
}

TEST_F(RecoveryLogTest, BatchWithATornMemberIsDropped) {
  AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
  Append(0, Rec(5));
  Entry(0, 0, 1)[2] = 0;  // the middle member's last word
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{5}));
}

TEST_F(RecoveryLogTest, BatchWithATornCommitIsDropped) {
  AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
  Append(0, Rec(5));
  Entry(0, 0, 3)[0] = 0;
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{5}));
}

TEST_F(RecoveryLogTest, CommitThatCountsOtherMembersIsDropped) {
  for (const uint64_t count : {2, 4, 0}) {
    TearDown();
    SetUp();
    AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
    Append(0, Rec(5));
    Write(0, 0, 3, Commit(count), EntryType::kCommit);
    EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{5}))
        << "a commit of " << count << " after 3 members";
  }
}

// Members, then a record on its own, then a commit: the run was broken, so
// neither the members nor the commit count; the record does.
TEST_F(RecoveryLogTest, BatchInterruptedByARecordIsDropped) {
  Append(0, Rec(1));
  Write(0, 0, 1, Rec(2), EntryType::kMember);
  Write(0, 0, 2, Rec(3), EntryType::kMember);
  Write(0, 0, 3, Rec(4), EntryType::kRecord);
  Write(0, 0, 4, Commit(2), EntryType::kCommit);
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 4}));
}

// A batch's run never spans chunks: members at the end of one chunk and a
// commit at the start of the next are not a batch.
TEST_F(RecoveryLogTest, BatchRunNeverSpansTwoChunks) {
  AppendKeys(0, 0, kEntries + 1);  // chunk 1 holds the last one
  Write(0, 0, kEntries - 2, Rec(500), EntryType::kMember);
  Write(0, 0, kEntries - 1, Rec(501), EntryType::kMember);
  Write(0, 1, 0, Commit(2), EntryType::kCommit);
  EXPECT_EQ(Keys(Recover()[0]), Range(0, kEntries - 2));
}

// A batch whose run does not fit the rest of the chunk leaves that rest
// unwritten and goes whole to the next chunk.
TEST_F(RecoveryLogTest, BatchThatDoesNotFitGoesWholeToTheNextChunk) {
  EXPECT_TRUE(logs_->FitsOneChunk(kEntries - 1));
  EXPECT_FALSE(logs_->FitsOneChunk(kEntries));
  AppendKeys(0, 0, kEntries - 2);
  uint32_t seen = 0;
  const std::vector<LogRecord> batch = {Rec(600), Rec(601)};
  EXPECT_FALSE(logs_->TryAppendBatch(0, batch.data(), 2, {}, false, &seen))
      << "two members and a commit need three slots; two are left";
  EXPECT_EQ(seen, 0u);
  AppendBatch(0, batch);
  EXPECT_TRUE(SlotIsZero(0, 0, kEntries - 2));
  EXPECT_TRUE(SlotIsZero(0, 0, kEntries - 1));
  std::vector<uint64_t> expected = Range(0, kEntries - 2);
  expected.insert(expected.end(), {600, 601});
  EXPECT_EQ(Keys(Recover()[0]), expected);
}

// A chunk's slots that no run of a generation wrote would keep the words of
// an older one; three generations back, their check bits are the current
// ones, and a later torn entry there could mix them with its own into an
// entry that reads as valid (found by the batch crash soak: a key came back
// with another key's old value). So a run that does not fit zeroes the
// chunk's remaining slots, durably, before the log rotates.
TEST_F(RecoveryLogTest, ARunThatDoesNotFitZeroesTheRestOfAReusedChunk) {
  host_.min_dram_epoch = 2;  // every record (epoch 1) is on PMem
  AppendKeys(0, 0, kChunks * kEntries);   // three chunks of generation 1
  AppendKeys(0, 1000, kEntries - 2);      // chunk 0 again, generation 2
  ASSERT_TRUE(State(0, 0).in_use);
  ASSERT_EQ(State(0, 0).check, 2u);
  ASSERT_FALSE(SlotIsZero(0, 0, kEntries - 1)) << "a generation-1 entry";
  AppendBatch(0, Batch(600, 2));  // needs three slots: two are left
  const std::vector<uint64_t> durable = device_->DurableImage();
  for (uint64_t slot : {kEntries - 2, kEntries - 1}) {
    EXPECT_TRUE(SlotIsZero(0, 0, slot)) << "slot " << slot;
    const uint64_t word = (ChunkOffset(0, 0) + kLogChunkHeaderSize +
                           slot * kEntrySize) / 8;
    for (uint64_t w = 0; w < kEntryWords; ++w)
      EXPECT_EQ(durable[word + w], 0u) << "slot " << slot << " word " << w;
  }
}

TEST_F(RecoveryLogTest, LargestBatchInAChunkFillsItWhole) {
  AppendBatch(0, Batch(0, kEntries - 1));
  EXPECT_EQ(Keys(Recover()[0]), Range(0, kEntries - 1));
  EXPECT_EQ(pool_->root()->batch_spill, 0u) << "nothing spilled";
}

// The crash tests' control: with the deliberately broken recovery the
// members of a batch without its commit are replayed.
TEST_F(RecoveryLogTest, BrokenControlReplaysTheUncommittedBatch) {
  AppendBatch(0, {Rec(2), Rec(3)});
  Append(0, Rec(5));
  std::fill_n(Entry(0, 0, 2), 3, 0);
  EXPECT_EQ(Keys(Recover(/*replay_uncommitted=*/true)[0]),
            (std::vector<uint64_t>{2, 3, 5}));
  EXPECT_EQ(Keys(Recover(/*replay_uncommitted=*/false)[0]),
            (std::vector<uint64_t>{5}));
}

TEST_F(RecoveryLogTest, CrashDuringABatchLeavesAllOrNothing) {
  Append(0, Rec(1));
  device_->ArmCrash(1);
  AppendBatch(0, {Rec(2), Rec(3), Rec(4)});
  ASSERT_TRUE(device_->crashed());
  // Every word landed (the live image): the whole batch.
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{1, 2, 3, 4}));
  // Some words landed: none of it.
  const std::vector<uint64_t> base = device_->CrashImage(0);
  const uint64_t at = (ChunkOffset(0, 0) + kLogChunkHeaderSize) / 8 + 3;
  std::vector<std::vector<uint64_t>> runs;  // 3 members and the commit
  int absent = 0;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    const std::vector<uint64_t> image = device_->CrashImage(seed);
    runs.emplace_back(image.begin() + at, image.begin() + at + 12);
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    device_->Restore(base);
    std::copy(runs[i].begin(), runs[i].end(), Entry(0, 0, 1));
    const std::vector<uint64_t> keys = Keys(Recover()[0]);
    EXPECT_TRUE(keys == (std::vector<uint64_t>{1}) ||
                keys == (std::vector<uint64_t>{1, 2, 3, 4}))
        << "crash image " << i << ": " << ::testing::PrintToString(keys);
    absent += keys.size() == 1;
  }
  EXPECT_GT(absent, 0) << "no crash image tore the batch";
}

// ---- Spilled batches ---------------------------------------------------------

// A batch larger than a chunk: its members go to the spill area, its
// commit to the log, and recovery replays the members where the commit
// stands.
TEST_F(RecoveryLogTest, SpilledBatchReplaysItsMembersWhereItsCommitStands) {
  Append(0, Rec(1));
  AppendBatch(0, Batch(100, 3 * kEntries));
  Append(0, Rec(2));
  std::vector<uint64_t> expected = {1};
  const std::vector<uint64_t> members = Range(100, 3 * kEntries);
  expected.insert(expected.end(), members.begin(), members.end());
  expected.push_back(2);
  const std::vector<LogRecord> replayed = Recover()[0];
  EXPECT_EQ(Keys(replayed), expected);
  ASSERT_EQ(replayed.size(), expected.size());
  EXPECT_EQ(replayed[1].type, EntryType::kMember);
  EXPECT_EQ(Fields(replayed[5]), Fields([] {
              LogRecord r = Rec(104);
              r.type = EntryType::kMember;
              return r;
            }()));
  LogRecord commit;
  ASSERT_TRUE(DecodeEntry(Entry(0, 0, 1), 1, &commit));
  EXPECT_EQ(commit.type, EntryType::kCommit);
  EXPECT_EQ(commit.position, kSpilledCommit);
  EXPECT_EQ(commit.key, 3 * kEntries);
  EXPECT_TRUE(SlotIsZero(0, 0, 3)) << "one slot for the commit, no more";
  const uint64_t word = pool_->root()->batch_spill;
  EXPECT_EQ(word & 0x3F, 10u) << "1024 entries hold 504 members";
  EXPECT_GE(word & ~uint64_t{4095}, pool_->heap_offset());
}

TEST_F(RecoveryLogTest, SpilledBatchIsOneBarrier) {
  AppendBatch(0, Batch(0, 2));  // activates a chunk
  {
    BatchSpill::Lease spill;
    ASSERT_OK(logs_->spill().Acquire(kEntries, &spill));  // grows the area
  }
  const uint64_t before = pool_->media().persist_calls();
  AppendBatch(0, Batch(100, kEntries));
  EXPECT_EQ(pool_->media().persist_calls() - before, 1u);
}

TEST_F(RecoveryLogTest, SpilledBatchWithATornMemberIsDropped) {
  AppendBatch(0, Batch(100, kEntries));
  Append(0, Rec(2));
  // Member 7's middle word never reached the media: its check is wrong.
  uint64_t* area = pool_->media().At<uint64_t>(pool_->root()->batch_spill &
                                               ~uint64_t{4095});
  area[7 * kEntryWords + 1] = 0;
  EXPECT_EQ(Keys(Recover()[0]), (std::vector<uint64_t>{2}));
  logs_->ZeroInvalidSlots();
  EXPECT_TRUE(SlotIsZero(0, 0, 0)) << "the commit of a torn batch";
  // So does a member that decodes but is not what was written (a word of
  // an older batch, which the checksum catches).
  TearDown();
  SetUp();
  AppendBatch(0, Batch(100, kEntries));
  area = pool_->media().At<uint64_t>(pool_->root()->batch_spill &
                                     ~uint64_t{4095});
  area[7 * kEntryWords] ^= 1;
  EXPECT_TRUE(Recover()[0].empty());
}

// The broken recovery of the crash tests' control replays the members of
// a torn spilled batch that decode.
TEST_F(RecoveryLogTest, BrokenControlReplaysATornSpilledBatch) {
  AppendBatch(0, Batch(100, kEntries));
  uint64_t* area = pool_->media().At<uint64_t>(pool_->root()->batch_spill &
                                               ~uint64_t{4095});
  std::fill_n(area + 5 * kEntryWords, kEntryWords, 0);
  EXPECT_EQ(Recover(/*replay_uncommitted=*/true)[0].size(), kEntries - 1);
  EXPECT_TRUE(Recover(/*replay_uncommitted=*/false)[0].empty());
}

// Before the area takes the next batch, the records of the one it holds
// reach PMem: their DRAM entries migrate (those still in DRAM only). The
// old commit then names members the area no longer holds: skipped.
TEST_F(RecoveryLogTest, SpillAreaIsFreedOfItsBatchBeforeItIsReused) {
  // The first batch's even keys are still in DRAM (epoch 2 = their
  // entries'), the odd ones on PMem.
  std::vector<LogRecord> first = Batch(100, kEntries);
  for (LogRecord& r : first) r.epoch = r.key % 2 ? 1 : 2;
  AppendBatch(0, first);
  host_.epoch_of = [](const LogRecord&) -> uint64_t { return 2; };
  EXPECT_TRUE(host_.migrated.empty());
  AppendBatch(1, Batch(1000, kEntries, 3));
  std::vector<uint64_t> expected;
  for (uint64_t k = 100; k < 100 + kEntries; k += 2) expected.push_back(k);
  EXPECT_EQ(Keys(host_.migrated), expected);
  EXPECT_EQ(logs_->forced_migrations(), expected.size());
  host_.migrated.clear();
  AppendBatch(1, Batch(2000, 2 * kEntries, 3));  // grows the area
  EXPECT_EQ(host_.migrated.size(), kEntries) << "every record of the second";
  EXPECT_EQ(pool_->root()->batch_spill & 0x3F, 10u);
  const std::vector<std::vector<LogRecord>> replayed = Recover();
  EXPECT_TRUE(replayed[0].empty()) << "the first batch's area was reused";
  EXPECT_EQ(Keys(replayed[1]), Range(2000, 2 * kEntries));
  logs_->ZeroInvalidSlots();
  EXPECT_TRUE(SlotIsZero(0, 0, 0)) << "the first batch's commit";
}

// Recovery remembers the batch the area holds: the next batch frees the
// area of it first.
TEST_F(RecoveryLogTest, RecoveredSpilledBatchIsFreedBeforeTheAreaIsReused) {
  AppendBatch(0, Batch(100, kEntries));
  Recover();
  AppendBatch(0, Batch(1000, kEntries));
  EXPECT_EQ(Keys(host_.migrated), Range(100, kEntries));
}

// Recycling the chunk of a spilled commit frees the area of its batch (if
// it still holds it): the chunk must not go while the batch needs the area.
TEST_F(RecoveryLogTest, RecyclingASpilledCommitMigratesItsBatch) {
  AppendBatch(0, Batch(100000, kEntries));
  AppendKeys(0, 10, 3 * kEntries - 1);  // fills chunks 0, 1 and 2
  // Only the batch's records (keys 100000..) are still in DRAM.
  host_.epoch_of = [](const LogRecord& r) -> uint64_t {
    return r.key >= 100000 ? 1 : 2;
  };
  ASSERT_EQ(logs_->compactions(), 0u);
  AppendKeys(0, 10 + 3 * kEntries, 1);
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_EQ(Keys(host_.migrated), Range(100000, kEntries));
  host_.migrated.clear();
  AppendBatch(0, Batch(200000, kEntries));
  EXPECT_TRUE(host_.migrated.empty()) << "the area held nothing any more";
}

TEST_F(RecoveryLogTest, CrashDuringASpilledBatchLeavesAllOrNothing) {
  AppendBatch(0, Batch(0, 2));
  {
    BatchSpill::Lease spill;
    ASSERT_OK(logs_->spill().Acquire(kEntries, &spill));
  }
  device_->ArmCrash(1);
  AppendBatch(0, Batch(100, kEntries));
  ASSERT_TRUE(device_->crashed());
  int whole = 0;
  int absent = 0;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    device_->RestoreCrashImage(seed);
    const std::vector<uint64_t> keys = Keys(Recover()[0]);
    std::vector<uint64_t> all = {0, 1};
    const std::vector<uint64_t> members = Range(100, kEntries);
    all.insert(all.end(), members.begin(), members.end());
    EXPECT_TRUE(keys == (std::vector<uint64_t>{0, 1}) || keys == all)
        << "crash image " << seed << ": " << keys.size() << " records";
    whole += keys == all;
    absent += keys.size() == 2;
  }
  EXPECT_GT(absent, 0) << "no crash image tore the batch";
}

TEST_F(RecoveryLogTest, SpillAreaAfterCloseIsInvalidArgument) {
  logs_->Close();
  BatchSpill::Lease spill;
  const Status s = logs_->spill().Acquire(kEntries, &spill);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_FALSE(spill.held());
}

TEST_F(RecoveryLogTest, DamagedSpillAreaWordIsCorruption) {
  AppendBatch(0, Batch(100, kEntries));
  const uint64_t good = pool_->root()->batch_spill;
  for (const uint64_t word : {good + 4096 * 1024, good | 0x40, good + 20,
                              uint64_t{4096} | 10}) {
    pool_->root()->batch_spill = word;
    Status s;
    Recover(false, &s);
    ASSERT_TRUE(s.IsCorruption()) << word << ": " << s.ToString();
    EXPECT_EQ(s.message(), "batch spill area word " + std::to_string(word) +
                               " does not describe an area inside the heap");
    std::string report;
    EXPECT_EQ(logs_->Verify(&report), 1u);
    EXPECT_EQ(report, std::string(s.message()) + "\n");
  }
}

// ---- Chunks: order, recycling, damage --------------------------------------

// Recycling reuses chunk 0 as the log's newest: recovery must order chunks
// by their sequence numbers, not their places, and must not take the
// previous generation's entries behind the new ones.
TEST_F(RecoveryLogTest, ChunksReplayOldestFirstAndRecycledOnesOnlyNewEntries) {
  host_.min_dram_epoch = 2;  // every record (epoch 1) is on PMem
  AppendKeys(0, 0, kChunks * kEntries + 5);
  EXPECT_EQ(logs_->compactions(), 1u);
  const LogChunkState reused = State(0, 0);
  EXPECT_TRUE(reused.in_use);
  EXPECT_EQ(reused.log_seq, 4u);
  EXPECT_EQ(reused.check, 2u) << "a freed chunk's check advances";
  EXPECT_EQ(Keys(Recover()[0]), Range(kEntries, 2 * kEntries + 5));
  // Slots 5.. of chunk 0 still hold check-1 entries: stale, zeroed now.
  EXPECT_FALSE(SlotIsZero(0, 0, 5));
  logs_->ZeroInvalidSlots();
  for (uint64_t slot = 5; slot < kEntries; ++slot)
    ASSERT_TRUE(SlotIsZero(0, 0, slot)) << "slot " << slot;
  for (uint64_t slot = 0; slot < 5; ++slot)
    ASSERT_FALSE(SlotIsZero(0, 0, slot)) << "slot " << slot;
}

TEST_F(RecoveryLogTest, ChunkOfMigratedRecordsIsRecycledWithoutReadingIt) {
  host_.min_dram_epoch = 2;
  AppendKeys(0, 0, kChunks * kEntries + 1);
  EXPECT_EQ(host_.epoch_queries, 0);
  EXPECT_TRUE(host_.migrated.empty());
  EXPECT_EQ(host_.waited_for, std::vector<unsigned>{0})
      << "appends in progress are waited for first";
  EXPECT_EQ(logs_->forced_migrations(), 0u);
}

TEST_F(RecoveryLogTest, RecyclingMigratesTheEntriesOfRecordsStillInDram) {
  // Chunk 0: keys 0..167, even keys written at epoch 2, odd at epoch 1.
  // Their DRAM entries are at epoch 2: the odd ones are on PMem.
  for (uint64_t k = 0; k < kEntries; ++k) Append(0, Rec(k, k % 2 ? 1 : 2));
  AppendKeys(0, kEntries, 2 * kEntries, 3);  // chunks 1 and 2, full
  host_.epoch_of = [](const LogRecord&) -> uint64_t { return 2; };
  host_.min_dram_epoch = 2;
  ASSERT_EQ(logs_->compactions(), 0u);
  AppendKeys(0, 3 * kEntries, 1);
  EXPECT_EQ(logs_->compactions(), 1u);
  std::vector<uint64_t> expected;
  for (uint64_t k = 0; k < kEntries; k += 2) expected.push_back(k);
  EXPECT_EQ(Keys(host_.migrated), expected);
  EXPECT_EQ(logs_->forced_migrations(), expected.size());
}

// A batch's members may belong to other logs' DRAM entries: their epochs
// say nothing about this log's, so such a chunk is always read.
TEST_F(RecoveryLogTest, ChunkWithABatchIsReadWhenRecycled) {
  host_.min_dram_epoch = 100;
  host_.epoch_of = [](const LogRecord&) -> uint64_t { return 100; };
  AppendBatch(0, {Rec(1), Rec(2)});
  AppendKeys(0, 10, 3 * kEntries);  // wraps around to chunk 0
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_GT(host_.epoch_queries, 0);
  EXPECT_TRUE(host_.migrated.empty()) << "all were on PMem (epoch < 100)";
}

// So may a sync write's record (RecoveryLogs::kSyncLog): its chunk is read
// when recycled, whatever the log's own entries' epochs say.
TEST_F(RecoveryLogTest, ChunkWithAForeignRecordIsReadWhenRecycled) {
  host_.min_dram_epoch = 100;
  host_.epoch_of = [](const LogRecord&) -> uint64_t { return 100; };
  uint32_t seen = 0;
  ASSERT_FALSE(logs_->TryAppend(0, Rec(1, 7), /*foreign=*/true, &seen));
  ASSERT_OK(logs_->Rotate(0, seen));
  ASSERT_TRUE(logs_->TryAppend(0, Rec(1, 7), /*foreign=*/true, &seen));
  // The log's own records are older than its entries: alone, they would
  // let the chunk go unread.
  AppendKeys(0, 10, 3 * kEntries, 1);  // wraps around to chunk 0
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_GT(host_.epoch_queries, 0) << "the chunk was read";
}

// After a restart the sync log's chunks may hold foreign records, which
// nothing marks: recovery takes each of its chunks for one that does.
TEST_F(RecoveryLogTest, SyncLogChunksAreReadWhenRecycledAfterARestart) {
  static_assert(RecoveryLogs::kSyncLog == 0);
  uint32_t seen = 0;
  ASSERT_FALSE(logs_->TryAppend(0, Rec(1, 7), /*foreign=*/true, &seen));
  ASSERT_OK(logs_->Rotate(0, seen));
  ASSERT_TRUE(logs_->TryAppend(0, Rec(1, 7), /*foreign=*/true, &seen));
  AppendKeys(1, 10, 5, 7);
  Recover();
  host_.min_dram_epoch = 100;
  host_.epoch_of = [](const LogRecord& r) -> uint64_t {
    return r.key == 1 ? 7 : 100;  // key 1 is still in DRAM only
  };
  AppendKeys(0, 10, 3 * kEntries - 1, 100);  // wraps around to chunk 0
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_EQ(Keys(host_.migrated), std::vector<uint64_t>{1})
      << "the foreign record's entry is migrated before its chunk is reused";
  // Another log's chunks are decided by their epochs alone.
  host_.epoch_queries = 0;
  AppendKeys(1, 1000, 3 * kEntries, 100);
  EXPECT_EQ(logs_->compactions(), 2u);
  EXPECT_EQ(host_.epoch_queries, 0);
}

TEST_F(RecoveryLogTest, FailedRecyclingIsReportedAndKeepsTheChunk) {
  AppendKeys(0, 0, kChunks * kEntries);
  host_.epoch_of = [](const LogRecord&) -> uint64_t { return 1; };
  host_.migrate_status = Status::NoSpace("pool is full");
  uint32_t seen = 0;
  ASSERT_FALSE(logs_->TryAppend(0, Rec(9999), false, &seen));
  const Status s = logs_->Rotate(0, seen);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message(), "recycling a recovery-log chunk: pool is full");
  EXPECT_EQ(State(0, 0).log_seq, 1u);
  EXPECT_TRUE(State(0, 0).in_use);
  EXPECT_EQ(State(0, 0).check, 1u);
  EXPECT_EQ(logs_->compactions(), 0u);
  EXPECT_EQ(Keys(Recover()[0]), Range(0, kChunks * kEntries));
}

// The background work learns when a chunk is half written: once per chunk,
// by the append (or batch) whose slots reach the middle.
TEST_F(RecoveryLogTest, HalfWrittenChunkIsReportedOncePerChunk) {
  AppendKeys(0, 0, kEntries / 2);
  EXPECT_TRUE(host_.half_written.empty());
  AppendKeys(0, kEntries / 2, 1);
  EXPECT_EQ(host_.half_written, std::vector<unsigned>{0});
  AppendKeys(0, kEntries / 2 + 1, kEntries / 2 - 1);  // the chunk is full
  EXPECT_EQ(host_.half_written.size(), 1u);
  AppendKeys(1, 0, kEntries / 2 - 2);
  std::vector<LogRecord> batch;
  for (uint64_t k = 0; k < 4; ++k) batch.push_back(Rec(1000 + k));
  AppendBatch(1, batch);  // its run covers the middle slot
  EXPECT_EQ(host_.half_written, (std::vector<unsigned>{0, 1}));
  // While a chunk is free, every fourth chunk is reported; once none is,
  // every chunk.
  AppendKeys(0, kEntries, kEntries + kEntries / 2 + 1);
  EXPECT_EQ(host_.half_written, (std::vector<unsigned>{0, 1, 0}))
      << "chunk 1 (a chunk free), chunk 2 (none free)";
}

TEST_F(RecoveryLogTest, RecycleAheadFreesTheOldestChunkOnlyWhenNoneIsFree) {
  host_.min_dram_epoch = 2;  // every record is on PMem
  AppendKeys(0, 0, 2 * kEntries + 1);  // chunks 0, 1 full; 2 current
  ASSERT_OK(logs_->RecycleAhead(1));   // log 1 has free chunks: nothing
  EXPECT_EQ(logs_->compactions(), 0u);
  ASSERT_OK(logs_->RecycleAhead(0));
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_FALSE(State(0, 0).in_use) << "the oldest chunk is free again";
  EXPECT_TRUE(State(0, 2).in_use) << "the current chunk is untouched";
  ASSERT_OK(logs_->RecycleAhead(0));  // a free chunk waits: nothing
  EXPECT_EQ(logs_->compactions(), 1u);
  // The next rotation takes the free chunk without recycling.
  AppendKeys(0, 2 * kEntries + 1, kEntries);
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_TRUE(State(0, 0).in_use);
  // Records of the recycled chunk are gone; the others replay in order.
  EXPECT_EQ(Keys(Recover()[0]), Range(kEntries, 2 * kEntries + 1));
}

// Chunks of two pages: one not used yet has no storage (a chunk of one page
// has its header's).
class RecoveryLogTwoPageChunksTest : public RecoveryLogTest {
 protected:
  Options PoolOptions() const override {
    Options o = Options::SmallProfile();
    o.log_chunk_size = 8192;
    return o;
  }
  const uint64_t entries_ = EntriesPerChunk(8192);
};

// A log with a free chunk that has no storage yet frees its oldest chunk
// ahead of need only when most of that chunk's records are superseded,
// and then only by rewriting: an entry left as it is keeps the chunk. A
// "no" holds for the next ask; a "yes" that freed nothing whole (its
// rewrites' survivors did not fit) is asked again, before the log takes
// storage for another chunk.
TEST_F(RecoveryLogTwoPageChunksTest,
       RecycleAheadRewritesOnlyWhenMostRecordsAreSuperseded) {
  AppendKeys(0, 0, entries_ + 1);  // chunk 0 full, 1 current, 2 never used
  ASSERT_OK(logs_->RecycleAhead(0));
  EXPECT_EQ(logs_->compactions(), 0u) << "live records: taking chunk 2 pays";
  EXPECT_TRUE(host_.retired_by.empty());

  int sampled = 0;
  host_.superseded = [&](const LogRecord& r) {
    ++sampled;
    return r.key % 2 == 0;  // half of them
  };
  host_.rewrite_as = LogHost::Retired::kLeft;
  // (The rotation into chunk 1 judged chunk 0 already: the judgement holds
  // for the next ask.)
  for (int ask = 0; sampled == 0 && ask < 2; ++ask)
    ASSERT_OK(logs_->RecycleAhead(0));
  EXPECT_EQ(sampled, static_cast<int>((entries_ + 31) / 32))
      << "every 32nd slot is sampled";
  EXPECT_EQ(logs_->compactions(), 0u) << "an entry left keeps the chunk";
  EXPECT_TRUE(State(0, 0).in_use);
  ASSERT_FALSE(host_.retired_by.empty());
  for (const LogHost::RetireBy by : host_.retired_by)
    EXPECT_EQ(by, LogHost::RetireBy::kRewritingOnly);

  const int after_judgement = sampled;
  ASSERT_OK(logs_->RecycleAhead(0));
  EXPECT_GT(sampled, after_judgement)
      << "a chunk found worth freeing and not freed was not judged again";

  host_.rewrite_as = LogHost::Retired::kRewritten;
  ASSERT_OK(logs_->RecycleAhead(0));
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_FALSE(State(0, 0).in_use);
  EXPECT_TRUE(host_.migrated.empty()) << "nothing migrated";
}

// A rotation that would take storage for a chunk takes the oldest chunk
// instead if a sample of its records finds their entries expired whole:
// a cache whose keys moved on, written after a quiet spell in which they
// expired, whose last look at that chunk (RecyclingPays) had judged its
// records still needed, grew the logs by a chunk in most such spells.
// The entries' rewrites drop those records and log nothing. Entries that
// hold records still to expire keep the chunk, and the rotation takes the
// storage.
TEST_F(RecoveryLogTwoPageChunksTest,
       RotationTakesTheOldestChunkRatherThanStorageOnceItsEntriesExpired) {
  host_.rewrite_as = LogHost::Retired::kRewritten;
  // Keys below 1000: entries whose records all expired.
  host_.entry_expired = [](const LogRecord& r) { return r.key < 1000; };
  AppendKeys(0, 0, 2 * entries_);      // chunks 0 and 1 full
  AppendKeys(1, 1000, 2 * entries_);
  const uint64_t backed = logs_->backed_bytes();
  Append(0, Rec(2 * entries_));
  EXPECT_FALSE(State(0, 2).in_use) << "a chunk without storage was taken";
  EXPECT_TRUE(State(0, 0).in_use) << "the oldest chunk was not taken";
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_EQ(logs_->backed_bytes(), backed);
  ASSERT_FALSE(host_.retired_by.empty());
  for (const LogHost::RetireBy by : host_.retired_by)
    EXPECT_EQ(by, LogHost::RetireBy::kRewritingOnly);
  EXPECT_TRUE(host_.migrated.empty()) << "nothing migrated";

  host_.retired_by.clear();
  Append(1, Rec(1000 + 2 * entries_));
  EXPECT_TRUE(State(1, 2).in_use) << "a chunk still needed was taken";
  EXPECT_EQ(logs_->compactions(), 1u);
  EXPECT_GT(logs_->backed_bytes(), backed);
}

// The rewrites that free that oldest chunk go on in a free chunk when
// they find the current one full (RetireAll), which is then current: the
// rotation must not take yet another one, leaving that one in use and
// unwritten (the kill test lost acknowledged writes; with every chunk in
// use, the rotation took one past the last).
TEST_F(RecoveryLogTwoPageChunksTest,
       RotationKeepsTheChunkItsRecyclingsRewritesWentOnIn) {
  host_.entry_expired = [](const LogRecord&) { return true; };
  host_.rewrite_as = LogHost::Retired::kNoRoom;
  AppendKeys(0, 0, 2 * entries_);  // chunks 0 and 1 full
  Append(0, Rec(2 * entries_));
  EXPECT_TRUE(State(0, 0).in_use) << "a chunk still needed was freed";
  EXPECT_TRUE(State(0, 2).in_use);
  EXPECT_EQ(logs_->compactions(), 0u);
  EXPECT_EQ(Keys(Recover()[0]), Range(0, 2 * entries_ + 1));
}

// Where a barrier is an msync (a power-fail-safe pool file), freeing a
// chunk rewrites its entries in groups of 64, which share their barriers;
// elsewhere one at a time, so that writers wait for no group's locks.
TEST_F(RecoveryLogTwoPageChunksTest, RewritesGoInGroupsWhereBarriersAreSyncs) {
  for (const bool file : {false, true}) {
    SCOPED_TRACE(file ? "file" : "pmem");
    if (file) {
      device_->set_model(media::SimMedia::Model::kFile);
      device_->OrderBarriers();
    }
    host_.rewrite_groups.clear();
    const uint64_t compactions = logs_->compactions();
    host_.superseded = [](const LogRecord&) { return true; };
    host_.rewrite_as = LogHost::Retired::kRewritten;
    const uint64_t first = file ? 10000 : 0;  // keys: entries of their own
    AppendKeys(0, first, 2 * entries_ + 1);
    for (int ask = 0; logs_->compactions() == compactions && ask < 3; ++ask)
      ASSERT_OK(logs_->RecycleAhead(0));
    ASSERT_GT(logs_->compactions(), compactions);
    ASSERT_FALSE(host_.rewrite_groups.empty());
    // (A chunk's last group holds what is left.)
    const size_t most = *std::max_element(host_.rewrite_groups.begin(),
                                          host_.rewrite_groups.end());
    EXPECT_EQ(most, file ? 64u : 1u);
  }
}

TEST_F(RecoveryLogTest, RecycleAheadAfterCloseIsInvalidArgument) {
  AppendKeys(0, 0, 2 * kEntries + 1);
  logs_->Close();
  const Status s = logs_->RecycleAhead(0);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "the DB is closed");
  EXPECT_EQ(logs_->compactions(), 0u);
}

TEST_F(RecoveryLogTest, RotationAfterRecoveryTakesTheNextSequenceNumber) {
  AppendKeys(1, 0, kEntries + 3);  // chunks 0 (seq 1) and 1 (seq 2)
  Recover();
  uint32_t seen = 0;
  EXPECT_FALSE(logs_->TryAppend(1, Rec(500), false, &seen))
      << "after recovery no chunk is current: the newest counts as full";
  EXPECT_EQ(seen, kNoChunk);
  ASSERT_OK(logs_->Rotate(1, seen));
  EXPECT_TRUE(State(1, 2).in_use);
  EXPECT_EQ(State(1, 2).log_seq, 3u);
  ASSERT_TRUE(logs_->TryAppend(1, Rec(500), false, &seen));
  std::vector<uint64_t> expected = Range(0, kEntries + 3);
  expected.push_back(500);
  EXPECT_EQ(Keys(Recover()[1]), expected);
  EXPECT_EQ(logs_->Verify(nullptr), 0u);
}

TEST_F(RecoveryLogTest, ReplayErrorEndsRecoveryWithThatError) {
  AppendKeys(0, 1, 5);
  Status s;
  Recover(false, &s, [](const LogRecord& r) {
    return r.key == 3 ? Status::Corruption("record 3 is bad") : Status::OK();
  });
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.message(), "record 3 is bad");
}

TEST_F(RecoveryLogTest, DamagedChunkStateWordIsCorruption) {
  AppendKeys(1, 0, 3);
  const uint64_t damaged[] = {
      uint64_t{5} << 8 | 4 | 0,  // check 0
      uint64_t{0} << 8 | 4 | 1,  // in use with sequence number 0
  };
  for (const uint64_t word : damaged) {
    StateWord(1, 2) = word;
    Status s;
    Recover(false, &s);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), "recovery log 1 chunk 2: damaged state word");
  }
}

TEST_F(RecoveryLogTest, VerifyReportsZeroChecksAndDuplicateSequenceNumbers) {
  AppendKeys(0, 0, kEntries + 1);  // chunks 0 and 1 in use
  StateWord(0, 1) = LogChunkState{1, true, 1}.Encode();
  StateWord(1, 2) = 0;
  std::string report;
  EXPECT_EQ(logs_->Verify(&report), 2u);
  EXPECT_EQ(report,
            "recovery log 0 chunk 1: sequence number 1 is zero or used twice\n"
            "recovery log 1 chunk 2: check bits are 0\n");
}

// A chunk is backed as it fills: a log of 1 MiB chunks starts with 64 KiB
// backed and backs twice as much each time an append finds no backed slot.
// Appends that found none leave zero slots behind, which recovery skips:
// every record replays once, in order, from one thread or from two racing
// over the step boundaries; a batch larger than a step is backed at once.
class ChunkProvisioningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o = Options::SmallProfile();
    o.log_count = 1;
    o.log_chunk_size = 1 << 20;
    o.log_chunks_per_log = 2;
    o.initial_pool_size = 8 << 20;
    bool created = false;
    ASSERT_OK(pool::Pool::Open(o, test::SimDevices(), path_, &pool_, &created,
                               RecoveryLogs::Format));
    logs_ = std::make_unique<RecoveryLogs>(pool_.get(), &host_);
  }
  void TearDown() override {
    logs_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }
  // Appends like the write path: rotate (or back more) while there is no
  // room (racing appenders may take what one backed).
  void Append(const LogRecord& r) {
    for (int tries = 0; tries < 100; ++tries) {
      uint32_t seen = 0;
      if (logs_->TryAppend(0, r, false, &seen)) return;
      ASSERT_OK(logs_->Rotate(0, seen));
    }
    FAIL() << "no room after backing more";
  }
  std::vector<uint64_t> RecoveredKeys() {
    logs_ = std::make_unique<RecoveryLogs>(pool_.get(), &host_);
    std::vector<uint64_t> keys;
    uint64_t count = 0;
    EXPECT_OK(logs_->Recover(1, [&](unsigned, const LogRecord& r) {
      keys.push_back(r.key);
      return Status::OK();
    }, &count));
    return keys;
  }

  const std::string path_ = "chunk_provisioning";
  ScriptedHost host_;
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<RecoveryLogs> logs_;
};

TEST_F(ChunkProvisioningTest, AppendsPastEachStepReplayInOrder) {
  const uint64_t n = EntriesPerChunk(1 << 20) - 100;  // ~5 steps
  for (uint64_t k = 1; k <= n; ++k) {
    LogRecord r;
    r.key = k;
    r.epoch = 1;
    Append(r);
  }
  const std::vector<uint64_t> keys = RecoveredKeys();
  ASSERT_EQ(keys.size(), n);
  for (uint64_t k = 1; k <= n; ++k) ASSERT_EQ(keys[k - 1], k);
}

// After a reopen a chunk's storage is backed again step by step, over
// slots that hold older generations: each step is zeroed before use, like
// every slot no run writes (RecoveryLogs::ZeroSlots).
TEST_F(ChunkProvisioningTest, SlotsBackedAgainAfterAReopenAreZeroed) {
  const uint64_t entries = EntriesPerChunk(1 << 20);
  host_.min_dram_epoch = 2;  // every record (epoch 1) is on PMem
  LogRecord r;
  r.epoch = 1;
  for (r.key = 1; r.key <= entries; ++r.key) Append(r);  // chunk 0, whole
  ASSERT_EQ(RecoveredKeys().size(), entries);  // reopened: nothing backed
  r.key = 1u << 30;
  Append(r);
  // The chunk in use now is chunk 0 again (its records are on PMem, so it
  // was freed) in its second generation: slot 0 holds the new record, the
  // rest of what was backed for it is zero, not the first generation's.
  const std::vector<uint64_t> durable =
      media::SimMedia::Find(path_)->DurableImage();
  const uint64_t state = durable[pool::kLogRegionOffset / 8];
  ASSERT_EQ(state & 3, 2u) << "chunk 0 in its second generation";
  const uint64_t slot0 = (pool::kLogRegionOffset + kLogChunkHeaderSize) / 8;
  ASSERT_NE(durable[slot0], 0u);
  for (uint64_t slot : {uint64_t{1}, uint64_t{2}, uint64_t{100}}) {
    for (uint64_t w = 0; w < kEntryWords; ++w)
      ASSERT_EQ(durable[slot0 + slot * kEntryWords + w], 0u) << "slot " << slot;
  }
}

TEST_F(ChunkProvisioningTest, RacingAppendsLeaveOnlyZeroSlotsBehind) {
  std::vector<std::thread> threads;
  constexpr uint64_t kPerThread = 20000;
  for (uint64_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kPerThread; ++i) {
        LogRecord r;
        r.key = t << 32 | i;
        r.epoch = 1;
        Append(r);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<uint64_t> keys = RecoveredKeys();
  ASSERT_EQ(keys.size(), 2 * kPerThread);
  uint64_t next[2] = {0, 0};
  for (uint64_t key : keys) {
    const uint64_t t = key >> 32;
    ASSERT_EQ(key & 0xFFFFFFFF, next[t]++) << "thread " << t << " out of order";
  }
}

TEST_F(ChunkProvisioningTest, ABatchLargerThanAStepIsBackedAtOnce) {
  std::vector<LogRecord> batch(10000);  // 240 KB: past the first 64 KiB
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i].key = i + 1;
    batch[i].epoch = 1;
  }
  bool appended = false;
  for (int tries = 0; tries < 3 && !appended; ++tries) {
    uint32_t seen = 0;
    appended = logs_->TryAppendBatch(0, batch.data(), batch.size(), {},
                                      /*foreign=*/false, &seen);
    if (!appended) {
      ASSERT_OK(logs_->Rotate(0, seen));
    }
  }
  ASSERT_TRUE(appended);
  EXPECT_EQ(RecoveredKeys().size(), batch.size());
}

}  // namespace
}  // namespace plush::log
