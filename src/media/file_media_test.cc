// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The file back end on its own (media/media.h, OpenFileMedia; new_file.h
// for CopyTo), on scratch files: creating and reopening a pool file, its
// lock (Busy for a second open, in this process or another), growing it,
// backing and releasing ranges of it (the storage it holds, st_blocks,
// follows), a failed sync that stays failed (the faults of
// testing/fault_injecting_file_ops.h), and
// copies that never overwrite. Every refusal is checked by its message.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "media/media.h"
#include "media/new_file.h"
#include "testing/fault_injecting_file_ops.h"
#include "testutil.h"

namespace plush::media {
namespace {

using test::ScratchPool;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kPage = 4096;

FileMediaOptions Create(uint64_t size) {
  FileMediaOptions o;
  o.backend = Backend::kFile;
  o.create = true;
  o.create_size = size;
  o.max_size = 64 * kMiB;
  return o;
}

FileMediaOptions Existing() {
  FileMediaOptions o;
  o.backend = Backend::kFile;
  o.max_size = 64 * kMiB;
  return o;
}

// The bytes of storage a file holds (st_blocks).
uint64_t Allocated(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

bool AllBytesAre(const Media& m, uint64_t offset, uint64_t len, char c) {
  const char* p = m.At<const char>(offset);
  for (uint64_t i = 0; i < len; ++i) {
    if (p[i] != c) return false;
  }
  return true;
}

// The same, read from the file (a read of a hole through the mapping of
// a tmpfs file would allocate it).
bool FileBytesAre(const std::string& path, uint64_t offset, uint64_t len,
                  char c) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string bytes(len, '\1');
  const ssize_t n = pread(fd, bytes.data(), len, static_cast<off_t>(offset));
  close(fd);
  return n == static_cast<ssize_t>(len) &&
         bytes.find_first_not_of(c) == std::string::npos;
}

class FileMediaTest : public ::testing::Test {
 protected:
  ScratchPool file_{"file_media"};
  // The system calls of the media that tests open through it.
  const std::shared_ptr<FaultInjectingFileOps> faults_ =
      std::make_shared<FaultInjectingFileOps>();
};

TEST_F(FileMediaTest, CreatedPoolKeepsItsBytesAcrossReopens) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(4 * kMiB), &m));
  EXPECT_EQ(m->kind(), MediaKind::kFile);
  EXPECT_STREQ(m->KindName(), "file");
  EXPECT_EQ(m->granularity(), Granularity::kPage);
  EXPECT_FALSE(m->power_fail_durable());
  EXPECT_EQ(m->size(), 4 * kMiB);
  EXPECT_GE(m->BackedBytes(), 4 * kMiB) << "created backed whole";
  EXPECT_TRUE(AllBytesAre(*m, 0, 4 * kMiB, '\0'));
  std::memset(m->At<char>(kMiB), 'x', 100);
  m->At<char>(4 * kMiB - 1)[0] = 'y';
  ASSERT_OK(m->Sync());
  m.reset();

  struct stat st {};
  ASSERT_EQ(stat(file_.path().c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), 4 * kMiB);
  ASSERT_OK(OpenFileMedia(file_.path(), Existing(), &m));
  EXPECT_EQ(m->size(), 4 * kMiB);
  EXPECT_TRUE(AllBytesAre(*m, kMiB, 100, 'x'));
  EXPECT_EQ(m->At<char>(kMiB + 100)[0], '\0');
  EXPECT_EQ(m->At<char>(4 * kMiB - 1)[0], 'y');
}

TEST_F(FileMediaTest, OpenRefusesWhatIsNoPoolFile) {
  std::unique_ptr<Media> m;
  Status s = OpenFileMedia(file_.path(), Existing(), &m);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(s.message(), "cannot open pool file '" + file_.path() +
                             "' for reading and writing: No such file or "
                             "directory");
  EXPECT_EQ(m, nullptr);

  // Not a whole number of pages.
  const int fd = open(file_.path().c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 5000), 0);
  close(fd);
  s = OpenFileMedia(file_.path(), Existing(), &m);
  EXPECT_EQ(s.ToString(), "Corruption: pool file '" + file_.path() +
                              "' has size 5000, not a positive multiple of "
                              "4096");
  // Empty.
  ASSERT_EQ(truncate(file_.path().c_str(), 0), 0);
  s = OpenFileMedia(file_.path(), Existing(), &m);
  EXPECT_EQ(s.ToString(), "Corruption: pool file '" + file_.path() +
                              "' has size 0, not a positive multiple of 4096");
  // Creating over it: the file exists, and is left as it was.
  s = OpenFileMedia(file_.path(), Create(2 * kMiB), &m);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(s.message(), "cannot open pool file '" + file_.path() +
                             "' for reading and writing: File exists");
  struct stat st {};
  ASSERT_EQ(stat(file_.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);

  // Asking for PMem where there is none.
  FileMediaOptions pmem = Create(2 * kMiB);
  pmem.backend = Backend::kPmem;
  ScratchPool other("file_media_pmem");
  if (std::getenv("PMEM2_FORCE_GRANULARITY") == nullptr &&
      std::getenv("PMEM_IS_PMEM_FORCE") == nullptr) {
    s = OpenFileMedia(other.path(), pmem, &m);
    EXPECT_EQ(s.ToString(), "NotSupported: '" + other.path() +
                                "' cannot be mapped as persistent memory (no "
                                "MAP_SYNC: not on a DAX file system)");
    EXPECT_NE(access(other.path().c_str(), F_OK), 0)
        << "a refused create leaves no file behind";
  }
}

TEST_F(FileMediaTest, SecondOpenIsBusyUntilTheLockIsReleased) {
  std::unique_ptr<Media> first;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &first));
  std::unique_ptr<Media> second;
  Status s = OpenFileMedia(file_.path(), Existing(), &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_EQ(s.message(), "pool '" + file_.path() +
                             "' is already open in this process (close the "
                             "other DB first)");
  EXPECT_EQ(second, nullptr);

  // Another process sees the lock too, and is told so.
  const std::string path = file_.path();
  const int status = test::RunInChild([&] {
    std::unique_ptr<Media> m;
    const Status c = OpenFileMedia(path, Existing(), &m);
    if (!c.IsBusy()) return 1;
    if (c.message() != "pool '" + path +
                           "' is already open in another process (it holds "
                           "the pool file's lock)") {
      return 2;
    }
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: not Busy; 2: Busy with another message";

  first->At<char>(0)[0] = 'k';
  first->ReleaseLock();
  EXPECT_EQ(first->At<char>(0)[0], 'k') << "the mapping outlives the lock";
  ASSERT_OK(OpenFileMedia(file_.path(), Existing(), &second));
  EXPECT_EQ(second->At<char>(0)[0], 'k');
  first.reset();  // unmaps; the second holds the lock still
  s = OpenFileMedia(file_.path(), Existing(), &first);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
}

TEST_F(FileMediaTest, GrowBacksNewBytesUpToTheMaximum) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &m));
  char* const base = m->base();
  const uint64_t before = m->BackedBytes();
  ASSERT_OK(m->Grow(6 * kMiB));
  EXPECT_EQ(m->size(), 6 * kMiB);
  EXPECT_EQ(m->base(), base) << "the mapping never moves";
  EXPECT_GE(m->BackedBytes(), before + 4 * kMiB);
  EXPECT_EQ(m->BackedBytes(), Allocated(file_.path()));
  EXPECT_TRUE(AllBytesAre(*m, 2 * kMiB, 4 * kMiB, '\0'));
  std::memset(m->At<char>(6 * kMiB - kPage), 'g', kPage);
  ASSERT_OK(m->Grow(4 * kMiB));  // smaller: nothing to do
  EXPECT_EQ(m->size(), 6 * kMiB);

  Status s = m->Grow(66 * kMiB);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message(), "pool would exceed its maximum size (" +
                             std::to_string(64 * kMiB) + " bytes mapped)");
  EXPECT_EQ(m->size(), 6 * kMiB);
  m.reset();
  ASSERT_OK(OpenFileMedia(file_.path(), Existing(), &m));
  EXPECT_EQ(m->size(), 6 * kMiB) << "the file grew, not only the mapping";
  EXPECT_TRUE(AllBytesAre(*m, 6 * kMiB - kPage, kPage, 'g'));
}

// A file past RLIMIT_FSIZE would raise SIGXFSZ: NoSpace instead (in a
// child, whose limit this is).
TEST_F(FileMediaTest, GrowPastTheFileSizeLimitIsNoSpace) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &m));
  std::string message;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const int status = test::RunInChild([&] {
    close(pipe_fds[0]);
    rlimit limit{3 * kMiB, 3 * kMiB};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 1;
    const Status s = m->Grow(4 * kMiB);
    const std::string text = s.ToString();
    if (write(pipe_fds[1], text.data(), text.size()) < 0) return 2;
    return m->size() == 2 * kMiB ? 0 : 3;
  });
  close(pipe_fds[1]);
  char buffer[512];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0)
    message.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(message, "NoSpace: growing the pool file: a pool file of " +
                         std::to_string(4 * kMiB) +
                         " bytes exceeds the process's file size limit (" +
                         std::to_string(3 * kMiB) + " bytes, ulimit -f)");
}

// A pool created with a hole holds no storage there until Back() (the
// recovery-log region: log/recovery_log.h).
TEST_F(FileMediaTest, StorageFollowsBack) {
  FileMediaOptions o = Create(8 * kMiB);
  o.unbacked_offset = 2 * kMiB;
  o.unbacked_size = 4 * kMiB;
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), o, &m));
  EXPECT_EQ(m->size(), 8 * kMiB) << "the hole counts in the size";
  const uint64_t created = m->BackedBytes();
  EXPECT_EQ(created, Allocated(file_.path()));
  EXPECT_GE(created, 4 * kMiB);
  EXPECT_LT(created, 4 * kMiB + 64 * 1024)
      << "[2 MiB, 6 MiB) must hold no storage";
  EXPECT_TRUE(FileBytesAre(file_.path(), 2 * kMiB, 4 * kMiB, '\0'));

  // Backing a page of the hole adds that page, once.
  ASSERT_OK(m->Back(3 * kMiB, kPage));
  EXPECT_EQ(m->BackedBytes(), created + kPage);
  ASSERT_OK(m->Back(3 * kMiB, kPage));
  EXPECT_EQ(m->BackedBytes(), created + kPage) << "Back is idempotent";
  ASSERT_OK(m->Back(0, 2 * kMiB));
  EXPECT_EQ(m->BackedBytes(), created + kPage) << "backed already";
  ASSERT_OK(m->Back(4 * kMiB, kMiB));
  EXPECT_EQ(m->BackedBytes(), created + kPage + kMiB);
  std::memset(m->At<char>(4 * kMiB), 'b', kMiB);

}

// A store into a backed page of the hole takes that page's storage, not
// that of the pages around it: the page cache (Linux 6.x) reads ahead
// into large folios and writes them back whole, which took a 256 KiB log
// chunk's storage for a store into its header (regression). On a disk
// file system: tmpfs (ScratchPool's /dev/shm) has no read-ahead.
TEST_F(FileMediaTest, StoresIntoTheHoleTakeTheirPagesOnly) {
  const std::string path =
      "/tmp/plush_test_" + std::to_string(getpid()) + "_sparse_stores";
  unlink(path.c_str());
  FileMediaOptions o = Create(16 * kMiB);
  o.unbacked_offset = 2 * kMiB;
  o.unbacked_size = 12 * kMiB;
  {
    std::unique_ptr<Media> m;
    ASSERT_OK(OpenFileMedia(path, o, &m));
    const uint64_t created = m->BackedBytes();
    constexpr uint64_t kStride = 256 << 10;
    uint64_t pages = 0;
    for (uint64_t at = 2 * kMiB; at < 14 * kMiB; at += kStride, ++pages) {
      ASSERT_OK(m->Back(at, kPage));
      *m->At<char>(at) = 'x';
    }
    ASSERT_OK(m->Sync());
    // (A few pages of slack: the file system's own metadata.)
    EXPECT_LE(m->BackedBytes(), created + (pages + 16) * kPage)
        << pages << " pages stored into";
  }
  unlink(path.c_str());
}

TEST_F(FileMediaTest, FailedBackIsReportedWithItsRange) {
  FileMediaOptions o = Create(4 * kMiB);
  o.unbacked_offset = 2 * kMiB;
  o.unbacked_size = 2 * kMiB;
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), o, &m, faults_));
  const uint64_t created = m->BackedBytes();
  faults_->FailNextAllocations(1, ENOSPC);
  Status s = m->Back(2 * kMiB + kPage, 2 * kPage);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message(), "backing 8192 bytes of the pool file at offset " +
                             std::to_string(2 * kMiB + kPage) +
                             ": No space left on device");
  EXPECT_EQ(m->BackedBytes(), created);
  faults_->FailNextAllocations(1, EIO);
  s = m->Back(2 * kMiB, kPage);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(s.message(), "backing 4096 bytes of the pool file at offset " +
                             std::to_string(2 * kMiB) +
                             ": Input/output error");
  ASSERT_OK(m->Back(2 * kMiB, kPage)) << "one failure per injected one";
  EXPECT_EQ(m->BackedBytes(), created + kPage);
}

// Linux reports a writeback error once: after it, Sync() must keep failing
// (and the media says so) until the pool is opened again.
TEST_F(FileMediaTest, FailedSyncIsSticky) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &m, faults_));
  ASSERT_OK(m->Sync());
  EXPECT_FALSE(m->failed());
  EXPECT_OK(m->sticky_error());

  faults_->FailNextSyncs(1, EIO);
  const std::string expected =
      "IOError: a sync of the pool failed; writes and syncs are refused "
      "until the pool is opened again: msync of the pool file: Input/output "
      "error";
  Status s = m->Sync();
  EXPECT_EQ(s.ToString(), expected);
  EXPECT_TRUE(m->failed());
  EXPECT_EQ(m->sticky_error().ToString(), expected);
  s = m->Sync();  // no failure injected any more
  EXPECT_EQ(s.ToString(), expected) << "a later sync must not claim success";

  m.reset();
  ASSERT_OK(OpenFileMedia(file_.path(), Existing(), &m, faults_));
  EXPECT_FALSE(m->failed()) << "opened again";
  EXPECT_OK(m->Sync());

  faults_->FailNextSyncs(1, ENOSPC);
  s = m->Sync();
  EXPECT_EQ(s.ToString(),
            "NoSpace: a sync of the pool failed; writes and syncs are refused "
            "until the pool is opened again: msync of the pool file: No space "
            "left on device");
}

// Group commit of syncs: calls made while a sync runs wait for it and
// are then covered by one more sync, which began after all of them; none
// returns on the sync that was running when it was called (it may have
// begun before the caller's writes).
TEST_F(FileMediaTest, ConcurrentSyncsShareOneThatBeganAfterThem) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &m, faults_));
  faults_->HoldSyncs(true);
  std::vector<std::thread> threads;
  std::vector<uint64_t> syncs_seen(9, 0);
  std::vector<Status> results(9);
  auto sync = [&](int i) {
    results[i] = m->Sync();
    syncs_seen[i] = m->syncs();
  };
  threads.emplace_back(sync, 0);
  ASSERT_TRUE(test::Eventually([&] { return faults_->HeldSyncs() == 1; }));
  for (int i = 1; i < 9; ++i) threads.emplace_back(sync, i);
  ASSERT_TRUE(test::Eventually([&] { return m->sync_calls() == 9; }));
  EXPECT_EQ(m->syncs(), 0u);
  faults_->HoldSyncs(false);
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 9; ++i) {
    EXPECT_OK(results[i]) << i;
    EXPECT_GE(syncs_seen[i], i == 0 ? 1u : 2u)
        << "call " << i << " returned on a sync that began before it";
  }
  EXPECT_EQ(m->syncs(), 2u) << "the eight waiters share one sync";
}

// A failed sync is every waiter's answer, and nobody syncs after it.
TEST_F(FileMediaTest, FailedSharedSyncReachesEveryWaiter) {
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), Create(2 * kMiB), &m, faults_));
  faults_->HoldSyncs(true);
  faults_->FailNextSyncs(1, EIO);
  std::vector<std::thread> threads;
  std::vector<Status> results(5);
  threads.emplace_back([&] { results[0] = m->Sync(); });
  ASSERT_TRUE(test::Eventually([&] { return faults_->HeldSyncs() == 1; }));
  for (int i = 1; i < 5; ++i)
    threads.emplace_back([&, i] { results[i] = m->Sync(); });
  ASSERT_TRUE(test::Eventually([&] { return m->sync_calls() == 5; }));
  faults_->HoldSyncs(false);
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(results[i].ToString(),
              "IOError: a sync of the pool failed; writes and syncs are "
              "refused until the pool is opened again: msync of the pool "
              "file: Input/output error")
        << i;
  }
  EXPECT_EQ(m->syncs(), 1u);
  EXPECT_TRUE(m->failed());
}

TEST_F(FileMediaTest, CopyToWritesANewFileAndNeverOverwrites) {
  FileMediaOptions o = Create(4 * kMiB);
  o.unbacked_offset = 2 * kMiB;
  o.unbacked_size = 2 * kMiB;
  std::unique_ptr<Media> m;
  ASSERT_OK(OpenFileMedia(file_.path(), o, &m));
  std::memset(m->At<char>(kPage), 'c', kPage);
  ASSERT_OK(m->Back(3 * kMiB, kPage));
  std::memset(m->At<char>(3 * kMiB), 'd', kPage);

  ScratchPool copy("file_media_copy");
  ASSERT_OK(m->CopyTo(copy.path()));
  std::unique_ptr<Media> c;
  ASSERT_OK(OpenFileMedia(copy.path(), Existing(), &c));
  ASSERT_EQ(c->size(), m->size());
  EXPECT_EQ(std::memcmp(c->base(), m->base(), m->size()), 0);
  EXPECT_LE(c->BackedBytes(), m->BackedBytes()) << "holes stay holes";
  c.reset();

  // The copy exists now: a second copy to it is refused, and leaves it.
  std::memset(m->At<char>(kPage), 'e', kPage);
  Status s = m->CopyTo(copy.path());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "'" + copy.path() + "' already exists");
  ASSERT_OK(OpenFileMedia(copy.path(), Existing(), &c));
  EXPECT_TRUE(AllBytesAre(*c, kPage, kPage, 'c'));
  c.reset();

  // Nor does it leave a partial file behind (new_file.h).
  const std::string dir = copy.path().substr(0, copy.path().rfind('/'));
  const std::string partial = copy.path() + ".partial-";
  bool left = false;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      left = left || (dir + "/" + e->d_name).rfind(partial, 0) == 0;
    closedir(d);
  }
  EXPECT_FALSE(left) << "a partial copy was left in " << dir;

  m->ReleaseLock();
  ScratchPool late("file_media_late");
  s = m->CopyTo(late.path());
  EXPECT_EQ(s.ToString(), "InvalidArgument: the pool is closed");
  EXPECT_NE(access(late.path().c_str(), F_OK), 0);
}

TEST(NewFileTest, WriteNewFileIsAllOrNothing) {
  ScratchPool target("new_file");
  ASSERT_OK(WriteNewFile(target.path(), [](int fd) {
    return write(fd, "abc", 3) == 3 ? Status::OK()
                                    : Status::IOError("write failed");
  }));
  struct stat st {};
  ASSERT_EQ(stat(target.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 3);
  Status s = WriteNewFile(target.path(), [](int) { return Status::OK(); });
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: '" + target.path() + "' already exists");

  ScratchPool failed("new_file_failed");
  s = WriteNewFile(failed.path(), [](int fd) {
    (void)!write(fd, "partial", 7);
    return Status::IOError("the filler failed");
  });
  EXPECT_EQ(s.ToString(), "IOError: the filler failed");
  EXPECT_NE(access(failed.path().c_str(), F_OK), 0)
      << "a failed fill leaves nothing under the name";
}

}  // namespace
}  // namespace plush::media
