// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DB::Backup: a consistent, openable copy of an open pool, taken while
// writers keep writing; never over an existing file; nothing left behind
// when it fails.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "testutil.h"

namespace plush::test {
namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// No file in the directory of `path` whose name starts with its name.
bool NoLeftovers(const std::string& path) {
  return !Exists(path) && system(("ls " + path + ".partial-* >/dev/null 2>&1")
                                     .c_str()) != 0;
}

// Writers race the backup; what they acknowledged before it began must be
// in the copy, which must open and verify.
TEST(BackupTest, CopyWhileWritersWriteHoldsEveryEarlierWrite) {
  ScratchPool file("backup_src");
  ScratchPool copy("backup_dst");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  WriteOptions unlogged;
  unlogged.log = false;
  for (uint64_t k = 0; k < 2000; ++k) {
    ASSERT_OK(db->Put(k % 4 == 0 ? unlogged : WriteOptions(),
                      "key" + std::to_string(k), std::to_string(k)));
  }
  // Two writers keep going; each records the last value it was told was
  // written, per key, before the backup starts.
  std::mutex mu;
  std::map<std::string, std::string> acked;  // guarded by mu
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (uint64_t i = 0; !stop && !failed; ++i) {
        std::string key = "w";
        key += std::to_string(w);
        key += '/';
        key += std::to_string(i % 500);
        const std::string value = std::to_string(i);
        if (!db->Put({}, key, value).ok()) failed = true;
        std::lock_guard<std::mutex> lock(mu);
        acked[key] = value;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  std::map<std::string, std::string> before;
  {
    std::lock_guard<std::mutex> lock(mu);
    before = acked;
  }
  ASSERT_OK(db->Backup(copy.path()));
  stop = true;
  for (std::thread& t : writers) t.join();
  ASSERT_FALSE(failed);
  ASSERT_FALSE(before.empty());

  std::unique_ptr<DB> restored;
  ASSERT_OK(DB::Open(Options::SmallProfile(), copy.path(), &restored));
  EXPECT_OK(restored->Verify());
  for (uint64_t k = 0; k < 2000; ++k) {
    std::string v;
    ASSERT_OK(restored->Get({}, "key" + std::to_string(k), &v)) << k;
    EXPECT_EQ(v, std::to_string(k));
  }
  // Each writer's values only grow: the copy holds the acknowledged one or
  // a later one.
  for (const auto& [key, value] : before) {
    std::string v;
    ASSERT_OK(restored->Get({}, key, &v)) << key;
    EXPECT_GE(std::stoull(v), std::stoull(value)) << key;
  }
  // The original is untouched by it, and still writable.
  ASSERT_OK(db->Put({}, "after", "backup"));
  std::string v;
  EXPECT_TRUE(restored->Get({}, "after", &v).IsNotFound());
}

TEST(BackupTest, AnExistingFileIsNeverOverwritten) {
  ScratchPool file("backup_src2");
  ScratchPool copy("backup_existing");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  ASSERT_OK(db->Put({}, "k", "v"));
  ASSERT_EQ(system(("echo precious > " + copy.path()).c_str()), 0);
  const Status s = db->Backup(copy.path());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("already exists"), std::string::npos)
      << s.ToString();
  std::ifstream in(copy.path());
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "precious");
  EXPECT_TRUE(NoLeftovers(copy.path() + "x"));
}

TEST(BackupTest, AFailedBackupLeavesNoFile) {
  ScratchPool file("backup_src3");
  Options no_threads = Options::SmallProfile();  // the test forks below
  no_threads.background_threads = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(no_threads, file.path(), &db));
  ASSERT_OK(db->Put({}, "k", "v"));
  // A directory that does not exist.
  Status s = db->Backup("/nonexistent-dir/backup.pool");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("backup to '/nonexistent-dir/backup.pool'"),
            std::string::npos)
      << s.ToString();
  // A file size limit that the copy exceeds half way (in a child, which
  // the limit would otherwise outlive).
  ScratchPool copy("backup_too_big");
  const int status = RunInChild([&] {
    const rlimit limit{1 << 20, 1 << 20};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
    signal(SIGXFSZ, SIG_IGN);  // the copy is a plain file write here
    const Status r = db->Backup(copy.path());
    if (!r.IsNoSpace()) return 3;
    return NoLeftovers(copy.path()) ? 0 : 4;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "2 setrlimit, 3 not NoSpace, 4 a file was left behind";
  ASSERT_OK(db->Close());
  EXPECT_TRUE(db->Backup(copy.path()).IsInvalidArgument());
}

// A simulated pool's copy is an ordinary pool file.
TEST(BackupTest, ASimulatedPoolCopiesToAFile) {
  Pool sim("backup_sim", Medium::kSim);
  ScratchPool copy("backup_of_sim");
  std::unique_ptr<DB> db;
  ASSERT_OK(sim.Open(Options::SmallProfile(), &db));
  for (uint64_t k = 0; k < 500; ++k) ASSERT_OK(db->Put({}, Word(k), Word(k)));
  ASSERT_OK(db->Backup(copy.path()));
  std::unique_ptr<DB> restored;
  ASSERT_OK(DB::Open(Options::SmallProfile(), copy.path(), &restored));
  std::string v;
  ASSERT_OK(restored->Get({}, Word(499), &v));
  EXPECT_EQ(FromWord(v), 499u);
  EXPECT_OK(restored->Verify());
}

}  // namespace
}  // namespace plush::test
