// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A pool file's name must be durable before anything in it is: creating a
// pool fsyncs its directory, and so does removing the file of a refused
// create (regression: a new pool could vanish after a power failure
// although every byte in it had been synced).
//
// Power failures cannot be provoked here, so the test watches the system
// call itself: this binary defines fsync(), which the library (linked
// statically) calls instead of libc's; it records which file each call
// synced and then calls the real one.

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "testutil.h"

namespace {

std::mutex synced_mu;
std::vector<std::string> synced;  // paths, in call order

std::string PathOf(int fd) {
  char buf[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  return n < 0 ? "?" : std::string(buf, static_cast<size_t>(n));
}

}  // namespace

extern "C" int fsync(int fd) {
  using Fn = int (*)(int);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "fsync"));
  {
    std::lock_guard<std::mutex> lock(synced_mu);
    synced.push_back(PathOf(fd));
  }
  return real(fd);
}

namespace plush::test {
namespace {

// A directory of its own, so that its path names nothing else.
class DirectorySyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/plush_dirsync_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::lock_guard<std::mutex> lock(synced_mu);
    synced.clear();
  }
  void TearDown() override {
    unlink((dir_ + "/kv.pool").c_str());
    rmdir(dir_.c_str());
  }
  std::vector<std::string> Synced() {
    std::lock_guard<std::mutex> lock(synced_mu);
    return synced;
  }
  std::string dir_;
};

TEST_F(DirectorySyncTest, CreatingAPoolSyncsTheFileAndItsDirectory) {
  const std::string pool = dir_ + "/kv.pool";
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), pool, &db));
  const std::vector<std::string> calls = Synced();
  const auto file_at = std::find(calls.begin(), calls.end(), pool);
  const auto dir_at = std::find(calls.begin(), calls.end(), dir_);
  ASSERT_NE(file_at, calls.end()) << "the new pool file was not fsynced";
  ASSERT_NE(dir_at, calls.end()) << "the pool's directory was not fsynced";
  EXPECT_LT(file_at, dir_at);
  ASSERT_OK(db->Close());
  // Opening an existing pool creates no name: nothing to sync.
  {
    std::lock_guard<std::mutex> lock(synced_mu);
    synced.clear();
  }
  ASSERT_OK(DB::Open(Options::SmallProfile(), pool, &db));
  const std::vector<std::string> reopen_calls = Synced();
  EXPECT_EQ(std::count(reopen_calls.begin(), reopen_calls.end(), dir_), 0);
}

TEST_F(DirectorySyncTest, ARefusedCreateSyncsTheDirectoryAfterRemovingIt) {
  const std::string pool = dir_ + "/kv.pool";
  Options o = Options::SmallProfile();
  o.backend = Backend::kPmem;  // /tmp is not a DAX file system
  std::unique_ptr<DB> db;
  const Status s = DB::Open(o, pool, &db);
  ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(access(pool.c_str(), F_OK), 0);
  const std::vector<std::string> calls = Synced();
  // Created (synced with its directory), then removed: the last call
  // syncs the directory again.
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), dir_);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), dir_), 2);
}

}  // namespace
}  // namespace plush::test
