// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// File-system faults on the file back end, injected through the seam of
// its system calls (testing/fault_injecting_file_ops.h): a workload runs
// once to count its allocations and syncs, then once per step with that
// step failing — ENOSPC and EIO from ftruncate/posix_fallocate (creating,
// growing, backing), EIO from fsync/msync. Each time the call that met the
// fault fails with a Status saying what failed; a failed sync stays the
// error of every later write and sync until the pool is opened again (what
// it was to make durable may be lost), a refused allocation is the error
// of the write that needed it only; nothing acknowledged before the fault
// is lost, in the open pool nor after reopening it once the fault is gone.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <string>

#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"
#include "testutil.h"

namespace plush::test {
namespace {

using media::FaultInjectingFileOps;

Options OnFile() {
  Options o = Options::SmallProfile();
  o.backend = Backend::kFile;
  return o;
}

// The value of record `i`: 8-byte records (recovery logs, tables) and
// payload records of up to 300 bytes (payload logs).
std::string ValueOf(uint64_t i) {
  if (i % 3 != 0) return Word(7 * i);
  return std::string(100 + i % 200, static_cast<char>('a' + i % 26));
}

// "" if records [0, n) hold their values.
std::string CheckRecords(DB* db, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    std::string v;
    const Status s = db->Get({}, Word(i), &v);
    if (!s.ok() || v != ValueOf(i))
      return "record " + std::to_string(i) + ": " + s.ToString();
  }
  return "";
}

// Enough records to back several recovery-log chunks and grow the small
// profile's pool of 4 MiB.
constexpr uint64_t kRecords = 30'000;

// Writes records 0, 1, 2... until one fails or `limit` are written;
// returns how many were acknowledged and the failure in *s.
uint64_t Write(DB* db, uint64_t limit, Status* s) {
  uint64_t n = 0;
  for (; n < limit; ++n) {
    *s = db->Put({}, Word(n), ValueOf(n));
    if (!s->ok()) break;
  }
  return n;
}

// The pool's file is sized and backed by calls the file system may refuse
// (`err`): the workload meets the refusal at each of them in turn, and
// the file system stays full until the test makes room.
void ExpectRefusedAllocations(int err, const std::string& error_text) {
  const auto faults = std::make_shared<FaultInjectingFileOps>();
  int steps = 0;
  {
    ScratchPool file("count_allocations");
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDB(OnFile(), {.file_ops = faults}, file.path(), &db));
    const int at_open = faults->allocations();
    Status s;
    ASSERT_EQ(Write(db.get(), kRecords, &s), kRecords) << s.ToString();
    steps = faults->allocations() - at_open;
  }
  ASSERT_GE(steps, 3) << "the workload grows and backs the pool";
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("allocation " + std::to_string(step));
    ScratchPool file("refused_allocation");
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDB(OnFile(), {.file_ops = faults}, file.path(), &db));
    faults->FailNextAllocations(INT_MAX, err, /*pass=*/step);
    // (The background threads allocate too, ahead of need: a refusal they
    // meet is met again by the write that needs the space, maybe later.)
    Status s;
    const uint64_t acked = Write(db.get(), 4 * kRecords, &s);
    ASSERT_LT(acked, 4 * kRecords) << "the refusal was not met";
    EXPECT_TRUE(err == ENOSPC ? s.IsNoSpace() : s.IsIOError())
        << s.ToString();
    const bool growing = s.message().find("growing the pool file: ") !=
                         std::string::npos;
    const bool backing =
        s.message().find(" bytes of the pool file at offset ") !=
        std::string::npos;
    EXPECT_TRUE(growing || backing) << s.ToString();
    EXPECT_NE(s.message().find(error_text), std::string::npos)
        << s.ToString();
    ASSERT_EQ(CheckRecords(db.get(), acked), "");
    // Room again: the refused write was the only one to fail, and writes
    // go on.
    faults->FailNextAllocations(0, err);
    ASSERT_OK(db->Put({}, Word(acked), ValueOf(acked)));
    ASSERT_OK(db->Close());
    ASSERT_OK(DB::Open(OnFile(), file.path(), &db));
    ASSERT_EQ(CheckRecords(db.get(), acked + 1), "");
    std::string report;
    EXPECT_OK(db->Verify(&report)) << report;
  }
}

TEST(FileFaultTest, EveryAllocationRefusedForSpaceIsNoSpace) {
  ExpectRefusedAllocations(ENOSPC, "No space left on device");
}

TEST(FileFaultTest, EveryAllocationThatFailsWithEioIsIOError) {
  ExpectRefusedAllocations(EIO, "Input/output error");
}

// The workload of the sync tests: records, a Sync() after every 1000, a
// Checkpoint() after every 10,000, then Close(). Returns the first
// failure; *acked counts the records acknowledged before it, *synced
// those a successful Sync() or Checkpoint() covered.
Status SyncedWorkload(DB* db, uint64_t* acked, uint64_t* synced) {
  *acked = 0;
  *synced = 0;
  for (uint64_t i = 0; i < kRecords; ++i) {
    Status s = db->Put({}, Word(i), ValueOf(i));
    if (!s.ok()) return s;
    *acked = i + 1;
    if (*acked % 1000 == 0) {
      s = *acked % 10'000 == 0 ? db->Checkpoint() : db->Sync();
      if (!s.ok()) return s;
      *synced = *acked;
    }
  }
  return db->Close();
}

// An msync fails (a writeback error: EIO) at each sync of the workload in
// turn: the call that made it fails saying so, and so does every write,
// sync, checkpoint and close after it, while reads go on; the records
// acknowledged before it are all there when the pool is opened again.
TEST(FileFaultTest, EveryFailedSyncIsStickyAndLosesNothingAcknowledged) {
  const auto faults = std::make_shared<FaultInjectingFileOps>();
  int steps = 0;
  {
    ScratchPool file("count_syncs");
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDB(OnFile(), {.file_ops = faults}, file.path(), &db));
    const int at_open = faults->syncs();
    uint64_t acked = 0, synced = 0;
    ASSERT_OK(SyncedWorkload(db.get(), &acked, &synced));
    steps = faults->syncs() - at_open;
  }
  ASSERT_GE(steps, 30) << "a sync per 1000 records, and more";
  const std::string sticky =
      "IOError: a sync of the pool failed; writes and syncs are refused "
      "until the pool is opened again: msync of the pool file: "
      "Input/output error";
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("sync " + std::to_string(step));
    ScratchPool file("failed_sync");
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDB(OnFile(), {.file_ops = faults}, file.path(), &db));
    faults->FailNextSyncs(1, EIO, /*pass=*/step);
    uint64_t acked = 0, synced = 0;
    const Status s = SyncedWorkload(db.get(), &acked, &synced);
    EXPECT_EQ(s.ToString(), sticky);
    if (s.ToString() != sticky) return;  // one report is enough
    if (acked < kRecords) {  // the pool is still open: it refuses writes
      EXPECT_EQ(db->Put({}, Word(acked), ValueOf(acked)).ToString(), sticky);
      EXPECT_EQ(db->Sync().ToString(), sticky);
      EXPECT_EQ(db->Checkpoint().ToString(), sticky);
      ASSERT_EQ(CheckRecords(db.get(), acked), "") << "reads go on";
      EXPECT_EQ(db->Close().ToString(), sticky);
    }
    db.reset();
    ASSERT_OK(DB::Open(OnFile(), file.path(), &db));
    ASSERT_EQ(CheckRecords(db.get(), acked), "");
    std::string v;
    EXPECT_TRUE(db->Get({}, Word(acked), &v).IsNotFound());
    ASSERT_OK(db->Put({}, Word(acked), ValueOf(acked))) << "opened again";
    ASSERT_OK(db->Sync());
  }
}

// A creation syncs the new file and its directory before anything in the
// pool: a failed fsync (or msync) fails the creation saying which, and
// leaves no file.
TEST(FileFaultTest, CreationWhoseSyncFailsIsIOErrorAndLeavesNoFile) {
  ScratchPool file("create_sync");
  const auto faults = std::make_shared<FaultInjectingFileOps>();
  std::unique_ptr<DB> db;
  int step = 0;
  for (;; ++step) {
    ASSERT_LT(step, 100) << "a creation with so many syncs?";
    faults->FailNextSyncs(1, EIO, /*pass=*/step);
    const Status s = OpenDB(OnFile(), {.file_ops = faults}, file.path(), &db);
    if (s.ok()) break;  // no sync left to fail
    ASSERT_TRUE(s.IsIOError()) << step << ": " << s.ToString();
    EXPECT_TRUE(s.message().find("fsync of new pool '" + file.path() +
                                 "': Input/output error") !=
                    std::string::npos ||
                s.message().find("fsync of directory '") !=
                    std::string::npos ||
                s.message().find("msync of the pool file: Input/output "
                                 "error") != std::string::npos)
        << step << ": " << s.message();
    ASSERT_NE(access(file.path().c_str(), F_OK), 0)
        << step << ": a failed creation leaves no file";
  }
  faults->FailNextSyncs(0, EIO);  // the fault was never reached
  EXPECT_GE(step, 2) << "the file and its directory";
  ASSERT_OK(db->Put({}, Word(1), Word(1)));
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(OnFile(), file.path(), &db));
  std::string v;
  ASSERT_OK(db->Get({}, Word(1), &v));
}

}  // namespace
}  // namespace plush::test
