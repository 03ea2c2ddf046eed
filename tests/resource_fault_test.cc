// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The operating system says no: the pool cannot grow, the file cannot be
// written, another process holds the pool, the caller misuses the API.
// Each must come back as the documented Status (NoSpace, IOError, Busy,
// InvalidArgument) with the pool intact afterwards — never as a crash, a
// signal or lost data.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"
#include "testutil.h"

namespace plush::test {
namespace {

Options Small() { return Options::SmallProfile(); }

// Puts keys 0, 1, 2... (value 7 * key) until a Put fails; returns how many
// succeeded and the first failure in *s.
uint64_t FillUntilError(DB* db, uint64_t limit, Status* s) {
  uint64_t n = 0;
  for (; n < limit; ++n) {
    *s = db->Put({}, Word(n), Word(7 * n));
    if (!s->ok()) break;
  }
  return n;
}

// "" if keys [0, n) hold 7 * key and Verify() is clean.
std::string CheckFilled(DB* db, uint64_t n) {
  for (uint64_t k = 0; k < n; ++k) {
    std::string v;
    const Status s = db->Get({}, Word(k), &v);
    if (!s.ok() || FromWord(v) != 7 * k)
      return "key " + std::to_string(k) + ": " + s.ToString();
  }
  std::string report;
  const Status v = db->Verify(&report);
  return v.ok() ? "" : "Verify: " + v.ToString() + "\n" + report;
}

// ---- Space ------------------------------------------------------------------

TEST(ResourceFaultTest, FullPoolIsNoSpaceAndStaysReadable) {
  ScratchPool file("full");
  Options o = Small();
  o.max_pool_size = 4 << 20;  // the smallest pool the small profile creates
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  Status s;
  const uint64_t n = FillUntilError(db.get(), 10'000'000, &s);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_FALSE(s.message().empty());
  EXPECT_GT(n, 10'000u);
  // A failed write changes nothing; further writes fail or succeed cleanly
  // (a key whose DRAM entry has room needs no space yet).
  std::string v;
  EXPECT_TRUE(db->Get({}, Word(n), &v).IsNotFound());
  std::vector<uint64_t> extra;
  for (uint64_t k = n + 1; k < n + 200; ++k) {
    const Status again = db->Put({}, Word(k), Word(7 * k));
    ASSERT_TRUE(again.ok() || again.IsNoSpace()) << again.ToString();
    if (again.ok()) extra.push_back(k);
  }
  EXPECT_LT(extra.size(), 199u) << "the pool is full: most writes must fail";
  const Status checkpoint = db->Checkpoint();
  EXPECT_TRUE(checkpoint.ok() || checkpoint.IsNoSpace())
      << checkpoint.ToString();
  auto check_all = [&] {
    for (uint64_t k : extra) {
      ASSERT_OK(db->Get({}, Word(k), &v));
      ASSERT_EQ(FromWord(v), 7 * k);
    }
    EXPECT_EQ(CheckFilled(db.get(), n), "");
  };
  check_all();
  ASSERT_OK(db->Close());

  // Recovery of a full pool, then room to grow again.
  ASSERT_OK(DB::Open(o, file.path(), &db));
  check_all();
  db.reset();
  o.max_pool_size = 64 << 20;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  ASSERT_OK(db->Put({}, Word(n), Word(7 * n)));
  ASSERT_OK(db->Checkpoint());
  EXPECT_EQ(CheckFilled(db.get(), n + 1), "");
}

// A batch that gives one DRAM entry more records than it holds migrates
// the entry while it inserts them, after its commit: a pool that cannot
// grow then leaves the batch committed but inserted in part. Every write
// is refused from then on (a later write of one of its keys would lose to
// it on recovery), until the pool is opened again — with room to grow,
// recovery inserts the whole batch. (A batch whose share of each entry fits
// the entry migrates before its commit: NoSpace leaves nothing of it.)
TEST(ResourceFaultTest, FullPoolInTheMiddleOfABatchHaltsWritesUntilReopened) {
  ScratchPool file("full_batch");
  Options o = Small();
  o.partitioning = Partitioning::kRange;  // "user:" keys: one entry
  o.range_rebalance = false;
  o.max_pool_size = 6 << 20;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  auto key = [](uint64_t i) {
    char k[32];
    std::snprintf(k, sizeof(k), "user:%08llu", static_cast<unsigned long long>(i));
    return std::string(k);
  };
  Status s;
  uint64_t next = 0;
  uint64_t failed_first = 0;  // the failed batch's first key
  for (int batches = 0; s.ok() && batches < 1000; ++batches) {
    failed_first = next;
    WriteBatch batch;
    for (int i = 0; i < 1000; ++i, ++next) batch.Put(key(next), Word(next));
    s = db->Write({}, &batch);
  }
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  const std::string halted =
      "a write batch in the recovery log could not be applied whole (writes "
      "are refused until the pool is opened again, which applies it)";
  EXPECT_NE(s.ToString().find(halted), std::string::npos) << s.ToString();
  const Status put = db->Put({}, key(0), "later");
  EXPECT_EQ(put.ToString(), s.ToString()) << "every write is refused alike";
  WriteBatch one;
  one.Put("other", "x");
  EXPECT_EQ(db->Write({}, &one).ToString(), s.ToString());
  EXPECT_EQ(db->Checkpoint().ToString(), s.ToString());
  std::string v;
  ASSERT_OK(db->Get({}, key(failed_first - 1), &v));
  EXPECT_EQ(FromWord(v), failed_first - 1) << "earlier batches are readable";
  ASSERT_OK(db->Close());

  // Recovery must insert the batch too: without room it fails, and leaves
  // the pool as it was; with room, every key of it is there.
  const Status again = DB::Open(o, file.path(), &db);
  EXPECT_TRUE(again.IsNoSpace()) << again.ToString();
  o.max_pool_size = 64 << 20;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (uint64_t k = 0; k < next; ++k) {
    ASSERT_OK(db->Get({}, key(k), &v)) << key(k);
    ASSERT_EQ(FromWord(v), k);
  }
  ASSERT_OK(db->Put({}, key(0), "later"));
  ASSERT_OK(db->Get({}, key(0), &v));
  EXPECT_EQ(v, "later");
  std::string report;
  EXPECT_OK(db->Verify(&report)) << report;
}

// RLIMIT_FSIZE makes the kernel refuse to grow the file with EFBIG and a
// SIGXFSZ that kills the process by default; the library checks the limit
// first, so that it never depends on the process ignoring the signal
// (regression: `ulimit -f` killed `plush load`). Runs in a child, which
// reports through a pipe how many writes it got acknowledged.
// Storage taken as the pool fills — a recovery-log chunk's next step — may
// be refused by a full file system: the write that needed it fails with
// NoSpace and says what it needed, nothing acknowledged is lost, and
// writes go on once there is space again.
void ExpectRefusedStorageIsNoSpace(const Options& o,
                                   const std::string& needed) {
  ScratchPool file("refused_storage");
  const auto faults = std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDB(o, {.file_ops = faults}, file.path(), &db));
  ASSERT_OK(db->Put({}, Word(0), Word(0)));  // backs the log's first step
  faults->FailNextAllocations(1000000, ENOSPC);
  Status s;
  const uint64_t written = FillUntilError(db.get(), 1000000, &s);
  faults->FailNextAllocations(0, ENOSPC);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.message().find(needed + ": backing "), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos);
  EXPECT_GT(written, 100u);
  ASSERT_OK(db->Put({}, Word(written), Word(7 * written)));
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  EXPECT_EQ(CheckFilled(db.get(), written + 1), "");
}

TEST(ResourceFaultTest, LogChunkThatCannotBeBackedIsNoSpace) {
  Options o = Small();
  o.log_count = 1;
  o.log_chunk_size = 1 << 20;   // backed 64 KiB at a time
  o.dram_directory_bits = 10;   // no migration before the first step
  ExpectRefusedStorageIsNoSpace(o, "growing a recovery-log chunk");
}

TEST(ResourceFaultTest, FileThatCannotGrowIsNoSpace) {
  ScratchPool file("fsize");
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(Small(), file.path(), &db));  // 4 MiB
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const int status = RunInChild([&] {
    const rlimit limit{6 << 20, 6 << 20};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
    std::unique_ptr<DB> db;
    if (!DB::Open(Small(), file.path(), &db).ok()) return 3;
    Status s;
    const uint64_t n = FillUntilError(db.get(), 10'000'000, &s);
    if (!s.IsNoSpace() ||
        s.ToString().find("file size limit (6291456 bytes, ulimit -f)") ==
            std::string::npos) {
      return 4;
    }
    if (!CheckFilled(db.get(), n).empty()) return 5;
    if (write(fds[1], &n, sizeof(n)) != sizeof(n)) return 6;
    return db->Close().ok() ? 0 : 7;
  });
  close(fds[1]);
  ASSERT_TRUE(WIFEXITED(status)) << "died of signal " << WTERMSIG(status);
  ASSERT_EQ(WEXITSTATUS(status), 0)
      << "2 setrlimit, 3 open, 4 not NoSpace, 5 contents, 7 close";
  uint64_t acked = 0;  // the child's report waits in the pipe
  ASSERT_EQ(read(fds[0], &acked, sizeof(acked)),
            static_cast<ssize_t>(sizeof(acked)));
  close(fds[0]);
  struct stat st {};
  ASSERT_EQ(stat(file.path().c_str(), &st), 0);
  EXPECT_LE(st.st_size, 6 << 20);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
  EXPECT_EQ(CheckFilled(db.get(), acked), "");
}

TEST(ResourceFaultTest, CreatingAPoolPastTheFileSizeLimitIsNoSpace) {
  ScratchPool file("fsize_create");
  const int status = RunInChild([&] {
    const rlimit limit{1 << 20, 1 << 20};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
    std::unique_ptr<DB> db;
    return DB::Open(Small(), file.path(), &db).IsNoSpace() ? 0 : 3;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(access(file.path().c_str(), F_OK), 0)
      << "a failed creation leaves no file";
}

// A creation sizes the file and backs it (but for the recovery logs'
// region, a hole), then backs the page of each recovery-log chunk's state
// word: a file system that refuses any of these steps fails the creation
// with NoSpace saying which, and leaves no file, so that it can be
// retried.
TEST(ResourceFaultTest, CreationThatCannotAllocateIsNoSpace) {
  ScratchPool file("format_logs");
  const auto faults = std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db;
  int refused = 0;  // the steps before the one that fails
  bool refused_a_log = false;
  for (;; ++refused) {
    ASSERT_LT(refused, 1000) << "a creation of 4 MiB in so many steps?";
    faults->FailNextAllocations(1, ENOSPC, /*pass=*/refused);
    const Status s = OpenDB(Small(), {.file_ops = faults}, file.path(), &db);
    if (s.ok()) break;  // no step left to refuse
    ASSERT_TRUE(s.IsNoSpace()) << refused << ": " << s.ToString();
    const bool log = s.message().find(
        "formatting the recovery logs: backing 4096 bytes of the pool file "
        "at offset ") != std::string::npos;
    EXPECT_TRUE(log || s.message().find("cannot allocate 4194304 bytes "
                                        "for pool '" + file.path() + "'") !=
                           std::string::npos)
        << refused << ": " << s.message();
    refused_a_log |= log;
    EXPECT_NE(s.message().find("No space left on device"), std::string::npos)
        << refused << ": " << s.message();
    ASSERT_NE(access(file.path().c_str(), F_OK), 0)
        << refused << ": a failed creation leaves no file";
  }
  faults->FailNextAllocations(0, ENOSPC);  // the fault was never reached
  EXPECT_GE(refused, 4) << "size, storage around the hole, a log";
  EXPECT_TRUE(refused_a_log);
  ASSERT_OK(db->Put({}, Word(1), Word(1)));
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
}

// ---- Access -----------------------------------------------------------------

// Tests run as root in CI, where permission bits do not stop writes: the
// check then runs in a child that gives up root first.
TEST(ResourceFaultTest, PoolFileWithoutWritePermissionIsIOError) {
  ScratchPool file("readonly");
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(Small(), file.path(), &db));
    ASSERT_OK(db->Put({}, Word(1), Word(2)));
  }
  ASSERT_EQ(chmod(file.path().c_str(), 0444), 0);
  const int status = RunInChild([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 2;
    std::unique_ptr<DB> db;
    const Status s = DB::Open(Small(), file.path(), &db);
    return s.IsIOError() && !s.message().empty() ? 0 : 3;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: cannot drop root, 3: not IOError";
  ASSERT_EQ(chmod(file.path().c_str(), 0644), 0);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
  std::string v;
  ASSERT_OK(db->Get({}, Word(1), &v));
}

TEST(ResourceFaultTest, PathsThatCannotHoldAPoolAreIOError) {
  ScratchPool dir("dir");
  ASSERT_EQ(mkdir(dir.path().c_str(), 0755), 0);
  std::unique_ptr<DB> db;
  Status s = DB::Open(Small(), dir.path(), &db);
  EXPECT_TRUE(s.IsIOError()) << "a directory: " << s.ToString();
  s = DB::Open(Small(), dir.path() + "/missing/pool", &db);
  EXPECT_TRUE(s.IsIOError()) << "a missing directory: " << s.ToString();
  rmdir(dir.path().c_str());
}

// ---- Other processes --------------------------------------------------------

TEST(ResourceFaultTest, PoolOpenInAnotherProcessIsBusy) {
  ScratchPool file("busy");
  Options no_threads = Small();  // fork copies only the calling thread
  no_threads.background_threads = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(no_threads, file.path(), &db));
  const int status = RunInChild([&] {
    std::unique_ptr<DB> second;
    const Status s = DB::Open(Small(), file.path(), &second);
    if (!s.IsBusy()) return 1;
    return s.ToString().find("already open in another process") ==
                   std::string::npos
               ? 2
               : 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the second process was not told Busy (1), or not that another "
         "process holds the pool (2): "
      << status;
}

// The lock dies with its owner: a pool whose process was killed opens
// again at once (recovering what the dead process acknowledged).
TEST(ResourceFaultTest, LockIsReleasedWhenTheOwnerIsKilled) {
  ScratchPool file("killed_owner");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = ForkTestChild();
  if (pid == 0) {
    std::unique_ptr<DB> db;
    const bool ok = DB::Open(Small(), file.path(), &db).ok() &&
                    db->Put({}, Word(5), Word(55)).ok();
    const char c = ok ? 'y' : 'n';
    if (write(fds[1], &c, 1) != 1) _exit(1);
    pause();  // hold the pool until killed
    _exit(0);
  }
  close(fds[1]);  // so that a child that dies early reads as EOF
  char c = 0;
  const ssize_t n = read(fds[0], &c, 1);
  close(fds[0]);
  std::unique_ptr<DB> db;
  const Status while_held = DB::Open(Small(), file.path(), &db);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_EQ(n, 1) << "the owner died before it held the pool";
  ASSERT_EQ(c, 'y') << "the owner could not open the pool";
  EXPECT_TRUE(while_held.IsBusy()) << while_held.ToString();
  db.reset();
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
  std::string v;
  ASSERT_OK(db->Get({}, Word(5), &v));
  EXPECT_EQ(FromWord(v), 55u);
}

// ---- API misuse (db_test covers sizes and most calls after Close) ----------

TEST(ResourceFaultTest, RemainingCallsOnAClosedDbAreInvalidArgument) {
  ScratchPool file("closed");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
  ASSERT_OK(db->Close());
  EXPECT_TRUE(db->Verify().IsInvalidArgument());
  EXPECT_TRUE(db->Sync().IsInvalidArgument());
  const std::unique_ptr<Iterator> it = db->NewIterator({});
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
}

// The limits are inclusive: a key of kMaxKeySize bytes is not a misuse
// (today it is NotSupported, as are all sizes but 8/8).
TEST(ResourceFaultTest, SizesAtTheLimitsAreNotInvalidArgument) {
  ScratchPool file("limits");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Small(), file.path(), &db));
  const std::string key(kMaxKeySize, 'k');
  const std::string value(kMaxValueSize, 'v');
  EXPECT_FALSE(db->Put({}, key, value).IsInvalidArgument());
  EXPECT_FALSE(db->Delete({}, key).IsInvalidArgument());
  std::string got;
  EXPECT_FALSE(db->Get({}, key, &got).IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, std::string(kMaxKeySize + 1, 'k'), value)
                  .IsInvalidArgument());
  EXPECT_OK(db->Verify());
}

TEST(ResourceFaultTest, ImpossibleOptionsAreInvalidArgumentAndCreateNothing) {
  ScratchPool file("options");
  struct Case {
    const char* what;
    void (*edit)(Options*);
  };
  const Case cases[] = {
      {"max_pool_size below the initial size",
       [](Options* o) { o->max_pool_size = 1 << 20; }},
      {"one chunk per log", [](Options* o) { o->log_chunks_per_log = 1; }},
      {"chunk size not a multiple of 4096",
       [](Options* o) { o->log_chunk_size = 5000; }},
      {"more logs than DRAM entries", [](Options* o) { o->log_count = 8; }},
      {"DRAM directory beyond 2^24 entries",
       [](Options* o) { o->dram_directory_bits = 25; }},
      {"first-level fanout beyond 16",
       [](Options* o) { o->first_level_fanout_bits = 5; }},
  };
  for (const Case& c : cases) {
    Options o = Small();
    c.edit(&o);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(o, file.path(), &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.what << ": " << s.ToString();
    EXPECT_NE(access(file.path().c_str(), F_OK), 0)
        << c.what << ": a file was created";
  }
}

}  // namespace
}  // namespace plush::test
