// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Format version 1 pools (docs/format.md, "Versions") open with this
// library: their logs are replayed (entries without positions or types),
// and the superblock is upgraded to version 2 before anything of version
// 2 is written — also when a crash tore the upgrade.

#include <gtest/gtest.h>

#include "log/log_format.h"
#include "pool_image.h"
#include "testutil.h"

namespace plush::test {
namespace {

using log::LogChunkState;

// A pool with records in its logs (and on PMem), rewritten the way format
// version 1 wrote it: superblock version 1, log entries without position
// and type bits.
PoolImage VersionOnePool(const std::string& path, uint64_t keys) {
  {
    std::unique_ptr<DB> db;
    EXPECT_OK(DB::Open(Options::SmallProfile(), path, &db));
    for (uint64_t k = 0; k < keys; ++k) EXPECT_OK(db->Put({}, Word(k), Word(k)));
    for (uint64_t k = 0; k < keys; k += 3)
      EXPECT_OK(db->Put({}, Word(k), Word(k + 1000)));
  }
  PoolImage image = PoolImage::FromFile(path);
  const uint64_t chunk_size = image.superblock().log_chunk_size;
  for (uint64_t c = 0; c < image.log_chunks(); ++c) {
    const uint64_t at = *image.ChunkOffset(c);
    const LogChunkState st = LogChunkState::Decode(image.Word(at));
    if (!st.in_use) continue;
    for (uint64_t e = at + log::kLogChunkHeaderSize;
         e + log::kEntrySize <= at + chunk_size; e += log::kEntrySize) {
      const uint64_t w2 = image.Word(e + 16);
      if (w2 >> 62 != st.check) continue;
      image.SetWord(e + 16, w2 & ~(uint64_t{0x3FF} << 46));  // bits 46..55
    }
  }
  pool::Superblock sb = image.superblock();
  sb.format_version = 1;
  std::memcpy(image.bytes().data(), &sb, sizeof(sb));
  image.ResealSuperblock();
  return image;
}

void ExpectContents(DB* db, uint64_t keys) {
  for (uint64_t k = 0; k < keys; ++k) {
    std::string v;
    ASSERT_OK(db->Get({}, Word(k), &v));
    EXPECT_EQ(FromWord(v), k % 3 == 0 ? k + 1000 : k) << k;
  }
}

uint32_t StoredVersion(const std::string& path) {
  return PoolImage::FromFile(path).superblock().format_version;
}

TEST(FormatUpgradeTest, VersionOnePoolOpensAndIsUpgraded) {
  ScratchPool file("v1");
  const PoolImage v1 = VersionOnePool(file.path(), 300);
  ASSERT_TRUE(v1.Save(file.path()));
  ASSERT_EQ(StoredVersion(file.path()), 1u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  ExpectContents(db.get(), 300);
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.format_version, 2u);
  EXPECT_EQ(StoredVersion(file.path()), 2u) << "upgraded before any write";
  EXPECT_OK(db->Verify());
  WriteBatch batch;
  batch.Put(Word(1), Word(7));
  ASSERT_OK(db->Write({}, &batch));
  db.reset();
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  std::string v;
  ASSERT_OK(db->Get({}, Word(1), &v));
  EXPECT_EQ(FromWord(v), 7u);
}

// The upgrade stores the version and the checksum separately: a crash
// between them leaves either one new. Both read as version 1.
TEST(FormatUpgradeTest, TornUpgradeReadsAsVersionOne) {
  ScratchPool file("v1_torn");
  const PoolImage v1 = VersionOnePool(file.path(), 200);
  pool::Superblock upgraded = v1.superblock();
  upgraded.format_version = 2;
  PoolImage v2 = v1;
  std::memcpy(v2.bytes().data(), &upgraded, sizeof(upgraded));
  v2.ResealSuperblock();
  const uint64_t checksum_at = offsetof(pool::Superblock, checksum);
  PoolImage new_version_old_checksum = v2;
  new_version_old_checksum.SetWord(checksum_at, v1.Word(checksum_at));
  PoolImage old_version_new_checksum = v1;
  old_version_new_checksum.SetWord(checksum_at, v2.Word(checksum_at));
  for (const PoolImage* torn : {&new_version_old_checksum,
                                &old_version_new_checksum}) {
    ASSERT_TRUE(torn->Save(file.path()));
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
    ExpectContents(db.get(), 200);
    EXPECT_EQ(StoredVersion(file.path()), 2u);
  }
  // Any other checksum mismatch is still damage.
  PoolImage damaged = v1;
  damaged.SetWord(checksum_at, v1.Word(checksum_at) ^ 1);
  ASSERT_TRUE(damaged.Save(file.path()));
  std::unique_ptr<DB> db;
  const Status s = DB::Open(Options::SmallProfile(), file.path(), &db);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("superblock checksum mismatch"),
            std::string::npos);
}

}  // namespace
}  // namespace plush::test
