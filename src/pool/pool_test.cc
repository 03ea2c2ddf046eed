// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The pool lifecycle: creation, validation of what is on the media, the
// lock, the allocator's recoverable state, and the back ends.

#include "pool/pool.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "testing/sim_media.h"
#include "testutil.h"
#include "util/hash.h"

namespace plush::pool {
namespace {

using test::ScratchPool;

Options Small() {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 3;
  o.log_count = 4;
  return o;
}

Status OpenPool(const Options& o, const std::string& path,
                std::unique_ptr<Pool>* pool,
                media::MediaFactory& media = *media::DefaultMediaFactory()) {
  bool created = false;
  return Pool::Open(o, media, path, pool, &created);
}

// Rewrites part of a pool file in place.
void Patch(const std::string& path, uint64_t offset, const void* bytes,
           size_t n) {
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes, n, static_cast<off_t>(offset)),
            static_cast<ssize_t>(n));
  close(fd);
}

Superblock ReadSuperblock(const std::string& path) {
  Superblock sb{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&sb), sizeof(sb));
  return sb;
}

TEST(PoolTest, CreateThenReopenKeepsCreationParameters) {
  ScratchPool file("params");
  Options o = Small();
  o.first_level_fanout_bits = 2;
  {
    std::unique_ptr<Pool> pool;
    bool created = false;
    ASSERT_OK(Pool::Open(o, *media::DefaultMediaFactory(), file.path(), &pool,
                         &created));
    EXPECT_TRUE(created);
  }
  Options other;  // defaults differ: the superblock must win
  std::unique_ptr<Pool> pool;
  bool created = true;
  ASSERT_OK(Pool::Open(other, *media::DefaultMediaFactory(), file.path(), &pool,
                       &created));
  EXPECT_FALSE(created);
  EXPECT_EQ(pool->params().dram_directory_bits, 3u);
  EXPECT_EQ(pool->params().first_level_fanout_bits, 2u);
  EXPECT_EQ(pool->params().log_count, 4u);
  EXPECT_EQ(pool->level_count(), 0u);
}

TEST(PoolTest, MissingPoolWithoutCreateIsInvalidArgument) {
  ScratchPool file("missing");
  Options o = Small();
  o.create_if_missing = false;
  std::unique_ptr<Pool> pool;
  EXPECT_TRUE(OpenPool(o, file.path(), &pool).IsInvalidArgument());
}

TEST(PoolTest, ExistingPoolWithErrorIfExistsIsInvalidArgument) {
  ScratchPool file("exists");
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  }
  Options o = Small();
  o.error_if_exists = true;
  std::unique_ptr<Pool> pool;
  EXPECT_TRUE(OpenPool(o, file.path(), &pool).IsInvalidArgument());
}

TEST(PoolTest, BadCreationParametersAreInvalidArgument) {
  ScratchPool file("badopts");
  std::unique_ptr<Pool> pool;
  Options o = Small();
  o.log_count = 3;
  Status s = OpenPool(o, file.path(), &pool);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("log_count"), std::string::npos);
  o = Small();
  o.fanout_bits = 5;
  EXPECT_TRUE(OpenPool(o, file.path(), &pool).IsInvalidArgument());
  EXPECT_NE(access(file.path().c_str(), F_OK), 0)
      << "nothing is created on bad options";
}

TEST(PoolTest, SecondOpenIsBusyUntilTheFirstCloses) {
  ScratchPool file("busy");
  std::unique_ptr<Pool> first;
  ASSERT_OK(OpenPool(Small(), file.path(), &first));
  std::unique_ptr<Pool> second;
  Status s = OpenPool(Small(), file.path(), &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  first.reset();
  EXPECT_OK(OpenPool(Small(), file.path(), &second));
}

TEST(PoolTest, DamagedSuperblockIsCorruption) {
  ScratchPool file("damaged");
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  }
  const uint8_t junk = 0x5A;
  Patch(file.path(), offsetof(Superblock, log_chunk_size) + 1, &junk, 1);
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(Small(), file.path(), &pool);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("checksum"), std::string::npos) << s.ToString();
}

TEST(PoolTest, WrongMagicIsCorruption) {
  ScratchPool file("magic");
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  }
  Patch(file.path(), 0, "SQLite f", 8);
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(Small(), file.path(), &pool);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("magic"), std::string::npos);
}

// Another format version is refused, saying which; an older one also how
// to copy the pool over (earlier formats are retired, not read).
TEST(PoolTest, OtherFormatVersionsAreNotSupported) {
  ScratchPool file("version");
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  }
  const Superblock original = ReadSuperblock(file.path());
  for (const uint32_t version : {kFormatVersion + 1, kFormatVersion - 1, 1u}) {
    Superblock sb = original;
    sb.format_version = version;
    sb.checksum = Checksum(&sb, offsetof(Superblock, checksum));
    Patch(file.path(), 0, &sb, sizeof(sb));
    std::unique_ptr<Pool> pool;
    Status s = OpenPool(Small(), file.path(), &pool);
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    const std::string expected =
        "pool has format version " + std::to_string(version) +
        "; this library reads version " + std::to_string(kFormatVersion) +
        (version < kFormatVersion
             ? " only: copy the pool with plush dump of the version that "
               "wrote it, then plush load of this one"
             : "");
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
  }
}

TEST(PoolTest, ZeroedOrTruncatedFilesAreCorruption) {
  ScratchPool file("zero");
  {
    std::ofstream out(file.path(), std::ios::binary);
    std::vector<char> zeros(1 << 16, 0);
    out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  std::unique_ptr<Pool> pool;
  EXPECT_TRUE(OpenPool(Small(), file.path(), &pool).IsCorruption());
  ASSERT_EQ(truncate(file.path().c_str(), 0), 0);
  EXPECT_TRUE(OpenPool(Small(), file.path(), &pool).IsCorruption());
  ASSERT_EQ(truncate(file.path().c_str(), 1000), 0);
  EXPECT_TRUE(OpenPool(Small(), file.path(), &pool).IsCorruption());
}

TEST(PoolTest, TruncatedAfterTheLogsIsCorruption) {
  ScratchPool file("short");
  uint64_t heap = 0;
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
    heap = pool->heap_offset();
  }
  ASSERT_EQ(truncate(file.path().c_str(), static_cast<off_t>(heap - 4096)), 0);
  std::unique_ptr<Pool> pool;
  EXPECT_TRUE(OpenPool(Small(), file.path(), &pool).IsCorruption());
}

TEST(PoolTest, AllocatorNeverReusesSpaceAfterReopen) {
  ScratchPool file("alloc");
  uint64_t first_end = 0;
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
    uint64_t a = 0;
    ASSERT_OK(pool->allocator().Allocate(1000, 256, &a));
    EXPECT_GE(a, pool->heap_offset());
    EXPECT_EQ(a % 256, 0u);
    first_end = a + 1000;
  }
  std::unique_ptr<Pool> pool;
  ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  uint64_t b = 0;
  ASSERT_OK(pool->allocator().Allocate(256, 256, &b));
  EXPECT_GE(b, first_end);
}

TEST(PoolTest, AllocatorStateSurvivesASimulatedCrash) {
  const std::string name = "pool_test_alloc_crash";
  const Options o = Small();
  uint64_t end = 0;
  std::shared_ptr<media::SimMedia> device;
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(o, name, &pool, test::SimDevices()));
    device = media::SimMedia::Find(name);
    uint64_t a = 0;
    for (int i = 0; i < 3000; ++i) {  // crosses several slabs
      ASSERT_OK(pool->allocator().Allocate(256, 256, &a));
      pool->media().At<uint64_t>(a)[0] = 0xABCDull;  // "use" the block
      pool->media().Persist(pool->media().At<uint64_t>(a), 8);
    }
    end = a + 256;
    device->CrashNow();
  }
  device->RestoreCrashImage(3);
  std::unique_ptr<Pool> pool;
  ASSERT_OK(OpenPool(o, name, &pool, test::SimDevices()));
  uint64_t b = 0;
  ASSERT_OK(pool->allocator().Allocate(256, 256, &b));
  EXPECT_GE(b, end)
      << "space handed out before the crash must not be handed out again";
  EXPECT_LT(b, end + Allocator::kSlab + 256)
      << "a crash leaks at most one slab";
  pool.reset();
  media::SimMedia::Remove(name);
}

TEST(PoolTest, FullPoolIsNoSpaceAndStaysUsable) {
  ScratchPool file("full");
  Options o = Small();
  o.max_pool_size = 8 << 20;
  std::unique_ptr<Pool> pool;
  ASSERT_OK(OpenPool(o, file.path(), &pool));
  uint64_t a = 0;
  Status s = pool->allocator().Allocate(16 << 20, 256, &a);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_OK(pool->allocator().Allocate(4096, 256, &a));
}

TEST(PoolTest, LevelsArePersistedAndValidated) {
  ScratchPool file("levels");
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
    LevelDescriptor d{};
    d.entry_count = 16;
    d.block_bytes = 4096;
    ASSERT_OK(pool->allocator().Allocate(4 * 8, 64, &d.block_table_offset));
    ASSERT_OK(pool->AddLevel(d));
  }
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool));
    ASSERT_EQ(pool->level_count(), 1u);
    EXPECT_EQ(pool->level(0).entry_count, 16u);
  }
  const uint8_t junk = 0xFF;
  Patch(file.path(), kRootOffset + offsetof(RootPage, levels) + 3, &junk, 1);
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(Small(), file.path(), &pool);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(PoolTest, ForcingPmemOnAnOrdinaryFileIsNotSupported) {
  ScratchPool file("nopmem");
  Options o = Small();
  o.backend = Backend::kPmem;
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(o, file.path(), &pool);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  o = Small();
  o.required_granularity = Granularity::kCacheLine;
  s = OpenPool(o, file.path(), &pool);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
}

TEST(PoolTest, FileBackendReportsItsGuarantee) {
  ScratchPool file("guarantee");
  std::unique_ptr<Pool> pool;
  ASSERT_OK(OpenPool(Small(), file.path(), &pool));
  EXPECT_EQ(pool->media().kind(), media::MediaKind::kFile);
  EXPECT_FALSE(pool->media().power_fail_durable());
  // A pool in memory (tmpfs: where ScratchPool puts it if it can) is lost
  // at a power failure whatever is synced.
  EXPECT_EQ(pool->media().Guarantee(),
            pool->media().InMemory()
                ? "acknowledged writes survive process crashes; nothing "
                  "survives power failure (a file system in memory)"
                : "acknowledged writes survive process crashes; power failure "
                  "only up to the last successful Sync(), and only if no "
                  "migration or log recycling ran after it (their pages reach "
                  "the disk unordered)");
  EXPECT_EQ(pool->media().InMemory(), file.path().rfind("/dev/shm/", 0) == 0);
  EXPECT_OK(pool->media().Sync());
}

TEST(PoolTest, PmemBackendWithoutMapSyncIsNotSupported) {
  ScratchPool file("nomapsync");
  Options o = Small();
  o.backend = Backend::kPmem;
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(o, file.path(), &pool);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("MAP_SYNC"), std::string::npos) << s.ToString();
  EXPECT_NE(access(file.path().c_str(), F_OK), 0) << "a refused create "
                                                     "left its file behind";
}

// libpmem2's test override makes an ordinary file look like PMem, so the
// pmem back end's flush path runs on machines without PMem. Such a file
// cannot be mapped with MAP_SYNC: the back end runs, but claims no
// power-failure durability (regression: it silently mapped without
// MAP_SYNC and reported `power_fail_durable`).
TEST(PoolTest, PmemBackendUnderForcedGranularity) {
  ScratchPool file("forcedpmem");
  setenv("PMEM2_FORCE_GRANULARITY", "cache_line", 1);
  Options o = Small();
  o.backend = Backend::kPmem;
  std::unique_ptr<Pool> pool;
  Status s = OpenPool(o, file.path(), &pool);
  unsetenv("PMEM2_FORCE_GRANULARITY");
  ASSERT_OK(s);
  EXPECT_EQ(pool->media().kind(), media::MediaKind::kPmem);
  EXPECT_TRUE(pool->media().test_override());
  EXPECT_FALSE(pool->media().power_fail_durable());
  EXPECT_NE(pool->media().Guarantee().find("NOT power-fail durable"),
            std::string::npos)
      << pool->media().Guarantee();
  EXPECT_NE(pool->media().Guarantee().find("PMEM2_FORCE_GRANULARITY"),
            std::string::npos)
      << pool->media().Guarantee();
  uint64_t a = 0;
  ASSERT_OK(pool->allocator().Allocate(4096, 256, &a));
  pool->media().At<uint64_t>(a)[0] = 1;
  pool->media().Persist(pool->media().At<uint64_t>(a), 8);
  EXPECT_GT(pool->media().persist_calls(), 0u);
}

// A factory that opens the file back end and records what the pool asked.
class RecordingFactory final : public media::MediaFactory {
 public:
  bool Exists(const std::string& path) const override {
    return media::DefaultMediaFactory()->Exists(path);
  }
  Status Open(const std::string& path, const media::FileMediaOptions& options,
              std::shared_ptr<media::Media>* media) override {
    opened.push_back(path);
    created = options.create;
    create_size = options.create_size;
    return media::DefaultMediaFactory()->Open(path, options, media);
  }
  void RemoveFailedCreation(const std::string& path) override {
    removed.push_back(path);
    media::DefaultMediaFactory()->RemoveFailedCreation(path);
  }

  std::vector<std::string> opened;
  std::vector<std::string> removed;
  bool created = false;
  uint64_t create_size = 0;
};

// The pool takes its media from the factory it is given, whether it
// creates the pool or opens it.
TEST(PoolTest, OpensItsMediaThroughTheGivenFactory) {
  ScratchPool file("factory");
  RecordingFactory factory;
  {
    std::unique_ptr<Pool> pool;
    ASSERT_OK(OpenPool(Small(), file.path(), &pool, factory));
    EXPECT_TRUE(factory.created);
    EXPECT_EQ(factory.create_size, pool->media().size());
  }
  std::unique_ptr<Pool> pool;
  ASSERT_OK(OpenPool(Small(), file.path(), &pool, factory));
  EXPECT_FALSE(factory.created);
  EXPECT_EQ(factory.opened,
            (std::vector<std::string>{file.path(), file.path()}));
  EXPECT_TRUE(factory.removed.empty());
}

// A creation whose formatting fails leaves no pool: the factory that
// created the media removes it.
TEST(PoolTest, FailedCreationIsRemovedThroughTheFactory) {
  ScratchPool file("factory_failed");
  RecordingFactory factory;
  std::unique_ptr<Pool> pool;
  bool created = false;
  const Status s =
      Pool::Open(Small(), factory, file.path(), &pool, &created,
                 [](Pool&) { return Status::NoSpace("formatting refused"); });
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(factory.removed, std::vector<std::string>{file.path()});
  EXPECT_FALSE(factory.Exists(file.path()));
}

}  // namespace
}  // namespace plush::pool
