// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// WriteOptions::sync on the file back end: every kind of write returns
// only once a sync that began after it ended; concurrent sync writers
// share syncs; a failed sync is the error of every writer waiting for it,
// and of every write after it; sync needs a logged write. Syncs are held
// with FaultInjectingFileOps::HoldSyncs, which makes a slow device
// deterministic.

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "plush/db.h"
#include "plush/write_batch.h"
#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::Eventually;
using test::ScratchPool;
using test::Word;

WriteOptions Synced() {
  WriteOptions o;
  o.sync = true;
  return o;
}

bool InMemory(const std::string& dir) {
  struct statfs fs {};
  return statfs(dir.c_str(), &fs) == 0 &&
         (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

// A directory on a disk (sync writes are refused in memory): /var/tmp,
// else the test's working directory (the build tree); empty if neither is.
std::string DiskDirectory() {
  for (std::string dir : {std::string("/var/tmp"),
                          std::filesystem::current_path().string()}) {
    if (access(dir.c_str(), W_OK) == 0 && !InMemory(dir)) return dir;
  }
  return "";
}

media::Media& MediaOf(DB* db) {
  return static_cast<DBImpl*>(db)->pool().media();
}

// Each way to write, with sync; `i` makes its key.
struct SyncedWrite {
  const char* name;
  std::function<Status(DB*, uint64_t)> write;
};

std::vector<SyncedWrite> SyncedWrites() {
  return {
      {"Put", [](DB* db, uint64_t i) { return db->Put(Synced(), Word(i), "v"); }},
      {"Put inline",
       [](DB* db, uint64_t i) { return db->Put(Synced(), Word(i), Word(i)); }},
      {"Delete", [](DB* db, uint64_t i) { return db->Delete(Synced(), Word(i)); }},
      {"Write",
       [](DB* db, uint64_t i) {
         WriteBatch batch;
         batch.Put(Word(i), "a");
         batch.Put("key " + std::to_string(i), "b");
         return db->Write(Synced(), &batch);
       }},
      {"Update",
       [](DB* db, uint64_t i) {
         return db->Update(Synced(), Word(i),
                           [](const std::string*, std::string* next) {
                             *next = "updated";
                             return DB::UpdateAction::kPut;
                           });
       }},
      {"Increment",
       [](DB* db, uint64_t i) {
         int64_t result = 0;
         return db->Increment(Synced(), "counter " + std::to_string(i), 1,
                              &result);
       }},
      {"PutIfAbsent",
       [](DB* db, uint64_t i) {
         bool stored = false;
         return db->PutIfAbsent(Synced(), "new " + std::to_string(i), "v",
                                &stored);
       }},
  };
}

// Every kind of sync write fails with `expected` and writes nothing;
// writes without sync go on.
void ExpectEverySyncWriteRefused(DB* db, const std::string& expected) {
  for (const SyncedWrite& w : SyncedWrites())
    EXPECT_EQ(w.write(db, 1).ToString(), expected) << w.name;
  std::string value;
  EXPECT_TRUE(db->Get({}, Word(1), &value).IsNotFound());
  ASSERT_OK(db->Put({}, Word(1), "v")) << "writes without sync go on";
}

uint64_t Migrations(DB* db) {
  Stats stats;
  EXPECT_OK(db->GetStats(&stats));
  return stats.migrations;
}

class SyncWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = DiskDirectory();
    if (dir.empty()) GTEST_SKIP() << "no writable directory on a disk";
    path_ = dir + "/plush_sync_write_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    unlink(path_.c_str());
    ASSERT_OK(OpenDB(PoolOptions(true), {.file_ops = faults_}, path_, &db_));
    // The sync log's first append backs its chunk's first pages, with a
    // barrier (an msync) that the tests would count: it is made first.
    ASSERT_OK(db_->Put(Synced(), Word(uint64_t{1} << 40), "w"));
  }

  // A pool of the default sizes, whose DRAM level and logs hold every
  // test's writes: no migration or log rotation adds barriers (msyncs in a
  // power-fail-safe pool) to the syncs the tests count; or (`small`) one
  // that migrates after a few writes.
  // A new pool in place of SetUp's (a pool once opened power-fail safe
  // stays so).
  void Recreate(bool power_fail_safe) {
    db_.reset();
    unlink(path_.c_str());
    ASSERT_OK(OpenDB(PoolOptions(power_fail_safe), {.file_ops = faults_},
                     path_, &db_));
  }

  static Options PoolOptions(bool power_fail_safe, bool small = false) {
    Options o = small ? Options::SmallProfile() : Options();
    o.backend = Backend::kFile;
    o.power_fail_safe = power_fail_safe;
    return o;
  }
  void TearDown() override {
    faults_->HoldSyncs(false);  // closing syncs
    faults_->FailNextSyncs(0, EIO);
    db_.reset();
    if (!path_.empty()) unlink(path_.c_str());
  }

  // Runs `write` while the pool's syncs are held: a sync begins, and the
  // write does not return until it is let go; then it succeeds.
  void ExpectReturnsOnlyOnceAHeldSyncEnds(
      const std::function<Status()>& write) {
    faults_->HoldSyncs(true);
    std::atomic<bool> returned{false};
    Status status;
    std::thread writer([&] {
      status = write();
      returned = true;
    });
    EXPECT_TRUE(Eventually([&] {
      return faults_->HeldSyncs() == 1 || returned;
    })) << "neither a sync began nor the write returned";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(returned) << "acknowledged before a sync ended";
    faults_->HoldSyncs(false);
    writer.join();
    EXPECT_OK(status);
  }

  const std::shared_ptr<media::FaultInjectingFileOps> faults_ =
      std::make_shared<media::FaultInjectingFileOps>();
  std::string path_;
  std::unique_ptr<DB> db_;
};

TEST_F(SyncWriteTest, EveryWriteWaitsForASyncThatBeganAfterIt) {
  uint64_t key = 0;
  for (const SyncedWrite& w : SyncedWrites()) {
    SCOPED_TRACE(w.name);
    const uint64_t syncs_before = MediaOf(db_.get()).syncs();
    ExpectReturnsOnlyOnceAHeldSyncEnds(
        [&] { return w.write(db_.get(), ++key); });
    EXPECT_EQ(MediaOf(db_.get()).syncs(), syncs_before + 1);
  }
}

// Every barrier of a power-fail-safe pool is a sync, a write's log append
// too: a write that does not ask for sync returns once a sync that began
// after its append ended.
TEST_F(SyncWriteTest, PowerFailSafePoolSyncsWritesThatDoNotAskForIt) {
  WriteBatch batch;
  batch.Put(Word(7), "b");
  const std::vector<std::pair<const char*, std::function<Status()>>> writes = {
      {"Put", [&] { return db_->Put({}, Word(5), "v"); }},
      {"Delete", [&] { return db_->Delete({}, Word(5)); }},
      {"Write", [&] { return db_->Write({}, &batch); }},
  };
  for (const auto& [name, write] : writes) {
    SCOPED_TRACE(name);
    const uint64_t syncs_before = MediaOf(db_.get()).syncs();
    ExpectReturnsOnlyOnceAHeldSyncEnds(write);
    EXPECT_GT(MediaOf(db_.get()).syncs(), syncs_before);
  }
}

// An update that decides to change nothing appends nothing, and has
// nothing to sync, also in a power-fail-safe pool; one that asked for
// sync gets one.
TEST_F(SyncWriteTest, UpdateThatChangesNothingSyncsOnlyIfAsked) {
  const auto keep = [](const std::string*, std::string*) {
    return DB::UpdateAction::kKeep;
  };
  const uint64_t syncs_before = MediaOf(db_.get()).syncs();
  ASSERT_OK(db_->Update({}, Word(9), keep));
  EXPECT_EQ(MediaOf(db_.get()).syncs(), syncs_before);
  ASSERT_OK(db_->Update(Synced(), Word(9), keep));
  EXPECT_EQ(MediaOf(db_.get()).syncs(), syncs_before + 1);
}

// WriteOptions::caller_syncs: in a power-fail-safe pool the write leaves
// its log append's barrier to the caller's sync; without it the append
// syncs.
TEST_F(SyncWriteTest, CallerSyncsLeavesTheBarrierToTheCallersSync) {
  WriteOptions later;
  later.caller_syncs = true;
  ASSERT_OK(db_->Put(later, Word(3), "a"));  // may start the key's log
  media::Media& m = MediaOf(db_.get());
  const uint64_t syncs_before = m.syncs();
  ASSERT_OK(db_->Put(later, Word(3), "b"));
  ASSERT_OK(db_->Delete(later, Word(3)));
  EXPECT_EQ(m.syncs(), syncs_before);
  ASSERT_OK(db_->Sync());
  EXPECT_EQ(m.syncs(), syncs_before + 1);
  ASSERT_OK(db_->Put({}, Word(3), "c"));
  EXPECT_EQ(m.syncs(), syncs_before + 2);
}

TEST_F(SyncWriteTest, WritesWithoutSyncDoNotSync) {
  Recreate(/*power_fail_safe=*/false);
  const uint64_t syncs_before = MediaOf(db_.get()).syncs();
  ASSERT_OK(db_->Put({}, Word(1), "v"));
  ASSERT_OK(db_->Delete({}, Word(1)));
  EXPECT_EQ(MediaOf(db_.get()).syncs(), syncs_before);
}

// Writers that arrive while a sync runs wait for it, then share the next
// one: eight writers, two syncs.
TEST_F(SyncWriteTest, ConcurrentSyncWritersShareASync) {
  media::Media& m = MediaOf(db_.get());
  const uint64_t syncs_before = m.syncs();
  const uint64_t calls_before = m.sync_calls();
  faults_->HoldSyncs(true);
  std::vector<std::thread> writers;
  std::vector<Status> statuses(8);
  writers.emplace_back([&] { statuses[0] = db_->Put(Synced(), Word(0), "v"); });
  EXPECT_TRUE(Eventually([&] { return faults_->HeldSyncs() == 1; }));
  for (uint64_t i = 1; i < 8; ++i) {
    writers.emplace_back(
        [&, i] { statuses[i] = db_->Put(Synced(), Word(i), "v"); });
  }
  EXPECT_TRUE(Eventually([&] { return m.sync_calls() == calls_before + 8; }));
  faults_->HoldSyncs(false);
  for (std::thread& t : writers) t.join();
  for (const Status& s : statuses) EXPECT_OK(s);
  EXPECT_EQ(m.syncs(), syncs_before + 2);
  Stats stats;
  ASSERT_OK(db_->GetStats(&stats));
  ASSERT_FALSE(stats.more_counts.empty());
  EXPECT_EQ(stats.more_counts[0].first, "syncs");
  EXPECT_EQ(stats.more_counts[0].second, m.syncs());
}

// Many sync writers at once, unheld: every write is acknowledged and
// readable, and they took fewer syncs than writes (each sync covers the
// writers that queued while the one before it ran).
TEST_F(SyncWriteTest, ManySyncWritersAreAllAcknowledged) {
  constexpr int kThreads = 8;
  constexpr int kWrites = 200;
  const uint64_t syncs_before = MediaOf(db_.get()).syncs();
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        const uint64_t key = static_cast<uint64_t>(t) << 32 | i;
        if (!db_->Put(Synced(), Word(key), Word(i)).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_LE(MediaOf(db_.get()).syncs() - syncs_before,
            uint64_t{kThreads} * kWrites);
  std::string value;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kWrites; ++i) {
      ASSERT_OK(db_->Get({}, Word(static_cast<uint64_t>(t) << 32 | i), &value));
    }
  }
}

// The sync the writers wait for fails: each of them gets the error, so do
// the writes after it (sync or not), and reads go on.
TEST_F(SyncWriteTest, FailedSyncIsEveryWaitersErrorAndSticky) {
  faults_->HoldSyncs(true);
  faults_->FailNextSyncs(1, EIO);
  const std::vector<SyncedWrite> writes = SyncedWrites();
  std::vector<Status> statuses(writes.size());
  std::vector<std::thread> writers;
  const uint64_t calls_before = MediaOf(db_.get()).sync_calls();
  for (size_t i = 0; i < writes.size(); ++i) {
    writers.emplace_back(
        [&, i] { statuses[i] = writes[i].write(db_.get(), 100 + i); });
  }
  EXPECT_TRUE(Eventually([&] {
    return MediaOf(db_.get()).sync_calls() == calls_before + writes.size();
  }));
  faults_->HoldSyncs(false);
  for (std::thread& t : writers) t.join();
  const std::string expected =
      "IOError: a sync of the pool failed; writes and syncs are refused until "
      "the pool is opened again: msync of the pool file: Input/output error";
  for (size_t i = 0; i < writes.size(); ++i)
    EXPECT_EQ(statuses[i].ToString(), expected) << writes[i].name;
  EXPECT_EQ(db_->Put({}, Word(1), "later").ToString(), expected);
  EXPECT_EQ(db_->Put(Synced(), Word(1), "later").ToString(), expected);
  // The writes were made (readers see them), but are not known durable.
  std::string value;
  ASSERT_OK(db_->Get({}, Word(100), &value));
  EXPECT_EQ(value, "v");
}

// A sync write announces its sync before it writes (Media::AnnounceSync);
// one that fails withdraws it, or every later sync would wait for it.
TEST_F(SyncWriteTest, FailedSyncWriteWithdrawsItsAnnouncement) {
  media::Media& m = MediaOf(db_.get());
  const std::string too_long(kMaxKeySize + 1, 'k');
  EXPECT_TRUE(db_->Put(Synced(), too_long, "v").IsInvalidArgument());
  EXPECT_TRUE(db_->Delete(Synced(), too_long).IsInvalidArgument());
  int64_t result = 0;
  ASSERT_OK(db_->Put({}, "text", "not a number"));
  EXPECT_TRUE(db_->Increment(Synced(), "text", 1, &result).IsInvalidArgument());
  WriteBatch batch;
  batch.Put(too_long, "v");
  EXPECT_TRUE(db_->Write(Synced(), &batch).IsInvalidArgument());
  EXPECT_EQ(m.announced_syncs(), 0u);
  ASSERT_OK(db_->Put(Synced(), Word(1), "v"));
  EXPECT_EQ(m.announced_syncs(), 0u);
}

TEST_F(SyncWriteTest, SyncNeedsALoggedWrite) {
  WriteOptions o = Synced();
  o.log = false;
  const std::string expected =
      "InvalidArgument: WriteOptions::sync needs WriteOptions::log: an "
      "unlogged write is durable only from the next Checkpoint()";
  EXPECT_EQ(db_->Put(o, Word(1), "v").ToString(), expected);
  EXPECT_EQ(db_->Delete(o, Word(1)).ToString(), expected);
  WriteBatch batch;
  batch.Put(Word(1), "v");
  EXPECT_EQ(db_->Write(o, &batch).ToString(), expected);
  int64_t result = 0;
  EXPECT_EQ(db_->Increment(o, "n", 1, &result).ToString(), expected);
  EXPECT_EQ(db_->Update(o, Word(1),
                        [](const std::string*, std::string*) {
                          return DB::UpdateAction::kDelete;
                        })
                .ToString(),
            expected);
  std::string value;
  EXPECT_TRUE(db_->Get({}, Word(1), &value).IsNotFound()) << "nothing written";
}

// Without ordered barriers the kernel writes a migration's pages back in
// any order, which a power failure can catch half done after the sync:
// sync is refused, before anything is written.
TEST_F(SyncWriteTest, IsRefusedWithoutPowerFailSafe) {
  Recreate(/*power_fail_safe=*/false);
  EXPECT_FALSE(MediaOf(db_.get()).ordered_barriers());
  const std::string expected =
      "NotSupported: WriteOptions::sync on the file back end needs the pool "
      "opened with Options::power_fail_safe: without it the pages of later "
      "migrations and log recycling reach the disk unordered, and a power "
      "failure while they do can lose the write";
  ExpectEverySyncWriteRefused(db_.get(), expected);
}

// A pool once opened power-fail safe stays so: a later opening that does
// not ask orders its barriers too (its background work could otherwise
// lose at a power failure what the earlier one synced), and takes sync
// writes. A pool never opened so does neither.
TEST_F(SyncWriteTest, PowerFailSafeOutlivesTheOpeningThatAskedForIt) {
  Recreate(/*power_fail_safe=*/false);
  EXPECT_FALSE(MediaOf(db_.get()).ordered_barriers());
  db_.reset();
  ASSERT_OK(OpenDB(PoolOptions(true), {.file_ops = faults_}, path_, &db_));
  ASSERT_OK(db_->Put({}, Word(1), "v"));
  db_.reset();
  ASSERT_OK(OpenDB(PoolOptions(false), {.file_ops = faults_}, path_, &db_));
  EXPECT_TRUE(MediaOf(db_.get()).ordered_barriers());
  Stats stats;
  ASSERT_OK(db_->GetStats(&stats));
  EXPECT_TRUE(stats.power_fail_durable);
  EXPECT_OK(db_->Put(Synced(), Word(2), "w"));
  std::string value;
  ASSERT_OK(db_->Get({}, Word(1), &value));
  EXPECT_EQ(value, "v");
}

// With power_fail_safe, every barrier is an msync (shared with concurrent
// ones): a write's log append, a migration's steps; without it, none.
TEST_F(SyncWriteTest, MigrationsSyncOnlyInAPowerFailSafePool) {
  for (const bool safe : {true, false}) {
    db_.reset();
    unlink(path_.c_str());
    ASSERT_OK(OpenDB(PoolOptions(safe, /*small=*/true), {.file_ops = faults_},
                     path_, &db_));
    media::Media& m = MediaOf(db_.get());
    EXPECT_EQ(m.ordered_barriers(), safe);
    const uint64_t syncs_before = m.syncs();
    const uint64_t migrations_before = Migrations(db_.get());
    for (uint64_t i = 0; Migrations(db_.get()) == migrations_before; ++i)
      ASSERT_OK(db_->Put({}, Word(i), Word(i)));
    if (safe) {
      EXPECT_GT(m.syncs(), syncs_before);
    } else {
      EXPECT_EQ(m.syncs(), syncs_before);
    }
  }
}

// Nothing makes a pool in memory survive power loss: sync is refused
// there, before anything is written, rather than promised falsely.
TEST(SyncWriteInMemoryTest, IsNotSupported) {
  if (!InMemory("/dev/shm")) GTEST_SKIP() << "/dev/shm is not in memory here";
  ScratchPool file("sync_in_memory");
  ASSERT_EQ(file.path().rfind("/dev/shm/", 0), 0u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  const std::string expected =
      "NotSupported: WriteOptions::sync: the pool is on a file system in "
      "memory (tmpfs or ramfs), whose contents do not survive power loss; put "
      "the pool on a disk";
  ExpectEverySyncWriteRefused(db.get(), expected);
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.guarantee,
            "acknowledged writes survive process crashes; nothing survives "
            "power failure (a file system in memory)");
}

}  // namespace
}  // namespace plush
