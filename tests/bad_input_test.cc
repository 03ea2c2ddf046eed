// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Damaged and foreign pool files (docs/reliability.md §2.3): every kind of
// damage must come back as a Status — Corruption (or NotSupported for a
// newer version, IOError from the OS) at Open(), or a report from Verify()
// — and never as a crash, a hang or a sanitizer report. Offsets come from
// docs/format.md through PoolImage; the contract itself is stated once, in
// damaged_pool.h.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "damaged_pool.h"
#include "log/log_format.h"
#include "placement/key_hash.h"
#include "pool/pool.h"
#include "pool_image.h"
#include "table/table_format.h"
#include "testutil.h"

namespace plush::test {
namespace {

using pool::LevelDescriptor;
using pool::RootPage;
using pool::Superblock;
using table::DirectoryEntry;

// The small profile, but with a small mapping window: every damaged pool
// below is opened hundreds of times.
Options DamageOptions() {
  Options o = Options::SmallProfile();
  o.max_pool_size = 64 << 20;
  // The damage is aimed at a layout: background work would allocate (the
  // spare payload chunk, growth, levels) at other moments in every run.
  o.background_threads = 0;
  return o;
}

constexpr uint64_t kKeys = kDamageKeys;

// [begin, end) of the directory block of the busiest unit on `level`.
std::pair<uint64_t, uint64_t> SomeBlock(const PoolImage& image,
                                        unsigned level) {
  const LevelDescriptor d = image.root().levels[level - 1];
  const uint64_t units = uint64_t{1} << image.superblock().dram_directory_bits;
  std::pair<uint64_t, uint64_t> best{0, 0};
  uint64_t most = 0;
  for (uint64_t u = 0; u < units; ++u) {
    const uint64_t block = image.Word(d.block_table_offset + u * 8);
    if (block == 0) continue;
    uint64_t records = 0;
    for (uint64_t e = block; e < block + d.block_bytes; e += sizeof(DirectoryEntry))
      records += image.Word(e + offsetof(DirectoryEntry, state)) & 0xFFFF;
    if (records >= most) {
      most = records;
      best = {block, block + d.block_bytes};
    }
  }
  return best;
}

// Zeroes the block table of the level `d` describes: no unit has a block.
void ZeroBlockTable(const LevelDescriptor& d, PoolImage* image) {
  const uint64_t units = uint64_t{1}
                         << image->superblock().dram_directory_bits;
  for (uint64_t u = 0; u < units; ++u)
    image->SetWord(d.block_table_offset + u * 8, 0);
}

PoolImage PopulatedPool(const std::string& path) {
  std::unique_ptr<DB> db;
  EXPECT_OK(DB::Open(DamageOptions(), path, &db));
  EXPECT_OK(PopulatePool(db.get()));
  EXPECT_OK(db->Close());
  return PoolImage::FromFile(path);
}

// The first 100 bytes of a real SQLite 3 database (one table, one row):
// the foreign file a user is most likely to point Plush at by mistake.
constexpr unsigned char kSqliteHeader[100] = {
    0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61,
    0x74, 0x20, 0x33, 0x00, 0x10, 0x00, 0x01, 0x01, 0x00, 0x40, 0x20, 0x20,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x2e, 0x63, 0x01};

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// Samples per random-damage sweep: enough to hit every kind of field in the
// default run, many more in the soak run.
int Samples(int normal) { return Soak() ? normal * 20 : normal; }

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    image_ = PopulatedPool(file_.path());
    ASSERT_GT(image_.level_count(), 2u)
        << "the pool must have several PMem levels";
    // Space past the allocation mark is unused (TruncatedPoolIsCorruption-
    // BelowTheAllocationMark proves it): dropping it makes every damaged
    // copy written below a fraction of the 4 MiB file.
    image_ = PoolImage(image_.bytes().substr(0, image_.alloc_high_water()));
  }

  // Writes `damaged` over the pool file and runs the contract on it.
  DamageReport Exercise(const PoolImage& damaged) {
    EXPECT_TRUE(damaged.Save(file_.path()));
    return ExerciseDamagedPool(DamageOptions(), InternalOptions(), file_.path(),
                               DefaultDamageOps(kKeys));
  }

  // Opens the pool with bit `bit` of byte `offset` flipped; only for damage
  // that Open() must refuse, so the file is restored with two byte writes.
  Status OpenWithFlip(uint64_t offset, unsigned bit) {
    const char original = image_.bytes()[offset];
    const char flipped = static_cast<char>(original ^ (1 << bit));
    const int fd = open(file_.path().c_str(), O_WRONLY);
    EXPECT_EQ(pwrite(fd, &flipped, 1, static_cast<off_t>(offset)), 1);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(DamageOptions(), file_.path(), &db);
    db.reset();
    EXPECT_EQ(pwrite(fd, &original, 1, static_cast<off_t>(offset)), 1);
    close(fd);
    return s;
  }

  // Exercises the pool with one word replaced; returns the report.
  DamageReport WithWord(uint64_t offset, uint64_t value) {
    PoolImage damaged = image_;
    damaged.SetWord(offset, value);
    return Exercise(damaged);
  }

  // Flips `samples` random bits inside [begin, end) of the pool, one at a
  // time, and checks the contract for each; counts what Open and Verify
  // noticed, for the log.
  void SweepRandomFlips(const char* region, uint64_t begin, uint64_t end,
                        int samples, uint64_t seed) {
    ASSERT_LT(begin, end);
    std::mt19937_64 rng(seed);
    int rejected = 0;
    int reported = 0;
    for (int i = 0; i < samples; ++i) {
      PoolImage damaged = image_;
      const uint64_t offset = begin + rng() % (end - begin);
      const unsigned bit = static_cast<unsigned>(rng() % 8);
      damaged.FlipBit(offset, bit);
      const DamageReport r = Exercise(damaged);
      ASSERT_EQ(r.violation, "")
          << region << ": bit " << bit << " of byte " << offset;
      rejected += !r.open.ok();
      reported += r.verify.IsCorruption();
    }
    std::printf(
        "[bad_input] %s: %d bit flips, %d rejected by Open, %d reported by "
        "Verify\n",
        region, samples, rejected, reported);
  }

  std::optional<uint64_t> Entry(unsigned level, uint32_t min_size) {
    const std::optional<uint64_t> i = image_.FindEntry(level, min_size);
    if (!i)
      ADD_FAILURE() << "no entry of level " << level << " holds " << min_size
                    << " records";
    return i;
  }

  ScratchPool file_{"bad_input"};
  PoolImage image_;
};

// ---- Files that are not (whole) pools
// ----------------------------------------

TEST_F(BadInputTest, ForeignFilesAreCorruption) {
  std::string sqlite(8192, '\0');
  std::memcpy(sqlite.data(), kSqliteHeader, sizeof(kSqliteHeader));
  const std::pair<const char*, std::string> files[] = {
      {"zero-length file", ""},
      {"one page of zeros", std::string(4096, '\0')},
      {"64 KiB of zeros (creation never finished)",
       std::string(64 << 10, '\0')},
      {"64 KiB of 0xFF", std::string(64 << 10, '\xFF')},
      {"1 MiB of random bytes", RandomBytes(1 << 20, 7)},
      {"an SQLite database", sqlite},
      {"a text file", "key=value\n"},
      {"a pool with one byte appended", image_.bytes() + "x"},
  };
  for (const auto& [what, bytes] : files) {
    const DamageReport r = Exercise(PoolImage(bytes));
    EXPECT_EQ(r.violation, "") << what;
    EXPECT_TRUE(r.open.IsCorruption()) << what << ": " << r.open.ToString();
  }
}

// Space past the allocation mark is unused, so a pool cut there still
// works; any cut below it loses live structures and must be refused.
TEST_F(BadInputTest, TruncatedPoolIsCorruptionBelowTheAllocationMark) {
  const uint64_t heap = image_.heap_offset();
  const uint64_t mark = image_.alloc_high_water();
  ASSERT_EQ(mark % 4096, 0u);
  for (uint64_t size : {uint64_t{1}, uint64_t{4095}, uint64_t{4096},
                        uint64_t{8192}, uint64_t{12288}, heap - 4096, heap,
                        heap + 4096, mark - 4096, mark - 100}) {
    const DamageReport r = Exercise(PoolImage(image_.bytes().substr(0, size)));
    EXPECT_EQ(r.violation, "") << "size " << size;
    EXPECT_TRUE(r.open.IsCorruption())
        << "size " << size << ": " << r.open.ToString();
  }
  // Cut inside the pool's space: the message says so, with both sizes.
  for (uint64_t size : {heap - 4096, heap + 4096, mark - 4096}) {
    const DamageReport r = Exercise(PoolImage(image_.bytes().substr(0, size)));
    const std::string expected =
        "file has " + std::to_string(size) +
        " bytes, the pool's root page says it extends to " +
        std::to_string(mark) + " bytes";
    EXPECT_NE(r.open.ToString().find("shorter than the pool it holds"),
              std::string::npos)
        << r.open.ToString();
    EXPECT_NE(r.open.ToString().find(expected), std::string::npos)
        << r.open.ToString();
  }
  ASSERT_TRUE(PoolImage(image_.bytes().substr(0, mark)).Save(file_.path()));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(DamageOptions(), file_.path(), &db));
  EXPECT_OK(db->Verify());
  EXPECT_EQ(CheckPopulated(db.get()), "");
  ASSERT_OK(db->Put({}, Word(kKeys), Word(1)));  // and it grows again
  EXPECT_OK(db->Checkpoint());
}

// ---- Superblock -------------------------------------------------------------

// Every byte of the superblock is covered by the magic, the version check
// or the checksum: no single bit flip may go unnoticed.
TEST_F(BadInputTest, EverySuperblockBitFlipIsRejected) {
  ASSERT_TRUE(image_.Save(file_.path()));
  for (uint64_t byte = 0; byte < sizeof(Superblock); ++byte) {
    for (unsigned bit = 0; bit < 8; ++bit) {
      const Status s = OpenWithFlip(byte, bit);
      const bool version = byte >= offsetof(Superblock, format_version) &&
                           byte < offsetof(Superblock, superblock_bytes);
      EXPECT_TRUE(s.IsCorruption() || (version && s.IsNotSupported()))
          << "bit " << bit << " of byte " << byte << ": " << s.ToString();
    }
  }
}

// A superblock with a valid checksum but impossible contents: what a
// hostile or buggy writer produces. The checks behind the checksum decide.
TEST_F(BadInputTest, ResealedSuperblockWithBadFieldsIsRejected) {
  struct Case {
    const char* what;
    void (*edit)(Superblock*);
    Status::Code code;
    const char* message;
  };
  const Case cases[] = {
      {"version 0", [](Superblock* sb) { sb->format_version = 0; },
       Status::Code::kCorruption, "damaged"},
      {"newer version",
       [](Superblock* sb) { sb->format_version = kFormatVersion + 1; },
       Status::Code::kNotSupported, "version"},
      {"wrong header size", [](Superblock* sb) { sb->superblock_bytes = 128; },
       Status::Code::kCorruption, "damaged"},
      {"fanout 0", [](Superblock* sb) { sb->fanout_bits = 0; },
       Status::Code::kCorruption, "fanout_bits"},
      {"log count not a power of two",
       [](Superblock* sb) { sb->log_count = 3; }, Status::Code::kCorruption,
       "log_count"},
      {"unknown partitioning", [](Superblock* sb) { sb->partitioning = 7; },
       Status::Code::kCorruption, "partitioning"},
      {"retired partitioning",
       [](Superblock* sb) { sb->partitioning = pool::kRangeByBoundaries; },
       Status::Code::kNotSupported,
       "pool has partitioning 2 (range by fixed boundaries)"},
      {"heap offset moved", [](Superblock* sb) { sb->heap_offset += 4096; },
       Status::Code::kCorruption, "region table"},
      {"log region larger than the file",
       [](Superblock* sb) {
         sb->log_chunks_per_log = 4096;
         sb->log_region_size =
             uint64_t{sb->log_count} * 4096 * sb->log_chunk_size;
         sb->heap_offset = pool::kLogRegionOffset + sb->log_region_size;
       },
       Status::Code::kCorruption, "shorter"},
  };
  for (const Case& c : cases) {
    PoolImage damaged = image_;
    Superblock sb = damaged.superblock();
    c.edit(&sb);
    std::memcpy(damaged.bytes().data(), &sb, sizeof(sb));
    damaged.ResealSuperblock();
    const DamageReport r = Exercise(damaged);
    EXPECT_EQ(r.violation, "") << c.what;
    EXPECT_EQ(r.open.code(), c.code) << c.what << ": " << r.open.ToString();
    EXPECT_NE(r.open.ToString().find(c.message), std::string::npos)
        << c.what << ": " << r.open.ToString();
  }
}

// ---- Root page --------------------------------------------------------------

// Descriptors are checksummed: no single bit flip may go unnoticed.
TEST_F(BadInputTest, EveryLevelDescriptorBitFlipIsCorruption) {
  ASSERT_TRUE(image_.Save(file_.path()));
  for (unsigned level = 1; level <= image_.level_count(); ++level) {
    for (uint64_t byte = 0; byte < sizeof(LevelDescriptor); ++byte) {
      for (unsigned bit = 0; bit < 8; ++bit) {
        const Status s =
            OpenWithFlip(PoolImage::DescriptorOffset(level) + byte, bit);
        ASSERT_TRUE(s.IsCorruption())
            << "level " << level << " byte " << byte << ": " << s.ToString();
      }
    }
  }
}

// Descriptors with a valid checksum but impossible contents: the checks
// behind the checksum (docs/format.md §3.2) decide.
TEST_F(BadInputTest, ResealedDescriptorWithBadFieldsIsCorruption) {
  const uint64_t mark = image_.alloc_high_water();
  const std::pair<const char*, std::function<void(LevelDescriptor*)>> cases[] =
      {
          {"block table past the allocation mark",
           [&](LevelDescriptor* d) { d->block_table_offset = mark; }},
          {"block table below the heap",
           [&](LevelDescriptor* d) { d->block_table_offset = 4096; }},
          {"misaligned block table",
           [&](LevelDescriptor* d) { d->block_table_offset += 4; }},
          {"no entries", [&](LevelDescriptor* d) { d->entry_count = 0; }},
          {"twice the entries",
           [&](LevelDescriptor* d) { d->entry_count *= 2; }},
          {"blocks of another size",
           [&](LevelDescriptor* d) { d->block_bytes *= 2; }},
      };
  for (const auto& [what, edit] : cases) {
    PoolImage damaged = image_;
    LevelDescriptor d = damaged.root().levels[1];
    edit(&d);
    std::memcpy(damaged.bytes().data() + PoolImage::DescriptorOffset(2), &d,
                sizeof(d));
    damaged.ResealDescriptor(2);
    const DamageReport r = Exercise(damaged);
    EXPECT_EQ(r.violation, "") << what;
    EXPECT_TRUE(r.open.IsCorruption()) << what << ": " << r.open.ToString();
  }
}

TEST_F(BadInputTest, RootCountersOutOfRangeAreCorruption) {
  const uint64_t mark_at =
      pool::kRootOffset + offsetof(RootPage, alloc_high_water);
  const uint64_t count_at = pool::kRootOffset + offsetof(RootPage, level_count);
  const std::pair<uint64_t, uint64_t> edits[] = {
      {mark_at, image_.heap_offset() - 4096},  // below the heap
      {mark_at, image_.size() + 4096},         // past the end of the file
      {mark_at, ~uint64_t{0}},
      {count_at, pool::kMaxPmemLevels + 1},
      {count_at, image_.level_count() + 1},  // an unwritten descriptor
      {count_at, ~uint64_t{0}},
  };
  for (const auto& [offset, value] : edits) {
    const DamageReport r = WithWord(offset, value);
    EXPECT_EQ(r.violation, "") << offset << " := " << value;
    EXPECT_TRUE(r.open.IsCorruption())
        << offset << " := " << value << ": " << r.open.ToString();
  }
}

// The root page's two counters carry no checksum (they change in single
// atomic stores); Open checks them against what a crash can leave. A
// lowered level count used to drop the deepest levels without a report;
// the pool fuzzer found it with the count lowered to 0, where recovery's
// migrations rebuilt level 1 over the old levels' space, and the Open that
// then failed had changed the pool.
// The root page's power_fail_safe word is 0 or 1 (format.md §3).
TEST_F(BadInputTest, APowerFailSafeWordNeitherZeroNorOneIsCorruption) {
  const uint64_t at = pool::kRootOffset + offsetof(RootPage, power_fail_safe);
  const DamageReport r = WithWord(at, 2);
  EXPECT_EQ(r.violation, "");
  EXPECT_TRUE(r.open.IsCorruption()) << r.open.ToString();
  EXPECT_NE(r.open.ToString().find(
                "root page: power_fail_safe word 2 is neither 0 nor 1"),
            std::string::npos)
      << r.open.ToString();
}

TEST_F(BadInputTest, ALoweredLevelCountIsCorruption) {
  const uint64_t count_at = pool::kRootOffset + offsetof(RootPage, level_count);
  const uint64_t levels = image_.level_count();
  for (const uint64_t count : {levels - 1, uint64_t{0}}) {
    const DamageReport r = WithWord(count_at, count);
    EXPECT_EQ(r.violation, "") << count;
    EXPECT_TRUE(r.open.IsCorruption()) << count << ": " << r.open.ToString();
    EXPECT_NE(r.open.ToString().find(
                  "root page: level count " + std::to_string(count) +
                  " leaves out level " + std::to_string(count + 1) +
                  ", whose descriptor is valid and whose units have "
                  "directory blocks"),
              std::string::npos)
        << r.open.ToString();
  }
  // Past the first level left out, any valid descriptor is damage.
  PoolImage damaged = image_;
  const LevelDescriptor below = damaged.root().levels[levels - 2];
  ZeroBlockTable(below, &damaged);
  damaged.SetWord(count_at, levels - 2);
  const DamageReport r = Exercise(damaged);
  EXPECT_EQ(r.violation, "");
  const std::string message = r.open.ToString();
  EXPECT_NE(message.find("level count " + std::to_string(levels - 2) +
                         " leaves out level " + std::to_string(levels) +
                         ", whose descriptor is valid"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("directory blocks"), std::string::npos) << message;
}

// A crash between a new level's descriptor and the level count leaves the
// descriptor past the count, naming a block table still all zero: Open
// takes it for that, not for damage.
TEST_F(BadInputTest, ADescriptorPastTheCountWithAnUnusedTableOpens) {
  PoolImage damaged = image_;
  const uint64_t levels = damaged.level_count();
  ZeroBlockTable(damaged.root().levels[levels - 1], &damaged);
  damaged.SetWord(pool::kRootOffset + offsetof(RootPage, level_count),
                  levels - 1);
  const DamageReport r = Exercise(damaged);
  EXPECT_EQ(r.violation, "");
  EXPECT_OK(r.open);
  EXPECT_OK(r.verify);
}

// Space past the allocation mark has never been written. A mark lowered
// into the data written last used to pass Open(); the allocator then handed
// out live buckets again and later migrations overwrote other keys.
TEST_F(BadInputTest, AnAllocationMarkLoweredIntoDataIsCorruption) {
  const std::string& bytes = image_.bytes();
  const uint64_t last_data = bytes.find_last_not_of('\0');
  ASSERT_GT(last_data, image_.heap_offset());
  const uint64_t mark = last_data & ~uint64_t{4095};
  const uint64_t first_past = bytes.find_first_not_of('\0', mark);
  const DamageReport r = WithWord(
      pool::kRootOffset + offsetof(RootPage, alloc_high_water), mark);
  EXPECT_EQ(r.violation, "");
  EXPECT_TRUE(r.open.IsCorruption()) << r.open.ToString();
  EXPECT_NE(r.open.ToString().find(
                "root page: allocation mark " +
                std::to_string(mark) + " is below data (a nonzero byte at " +
                std::to_string(first_past) +
                "): space past the mark is handed out as zero"),
            std::string::npos)
      << r.open.ToString();
}

// ---- Recovery logs ----------------------------------------------------------

TEST_F(BadInputTest, DamagedChunkStateWordsAreCorruption) {
  const uint64_t chunk0 = *image_.ChunkOffset(0);
  const log::LogChunkState state = log::LogChunkState::Decode(image_.Word(chunk0));
  log::LogChunkState no_check = state;
  no_check.check = 0;
  log::LogChunkState in_use_without_seq = state;
  in_use_without_seq.in_use = true;
  in_use_without_seq.log_seq = 0;
  for (const log::LogChunkState& bad : {no_check, in_use_without_seq}) {
    const DamageReport r = WithWord(chunk0, bad.Encode());
    EXPECT_EQ(r.violation, "");
    EXPECT_TRUE(r.open.IsCorruption()) << r.open.ToString();
    EXPECT_NE(r.open.ToString().find("state word"), std::string::npos)
        << r.open.ToString();
  }
}

// Recovery zeroes torn log slots — but only once the whole pool has been
// judged sound: a pool that fails to open is left byte for byte as it was
// (regression: log 0's torn slot was zeroed before log 1's damaged chunk
// made Open fail).
TEST_F(BadInputTest, FailedOpenLeavesThePoolUntouched) {
  const uint64_t per_log = DamageOptions().log_chunks_per_log;
  // A torn entry in a chunk of log 0 in use...
  std::optional<uint64_t> torn;
  for (uint64_t c = 0; c < per_log && !torn; ++c) {
    const uint64_t at = *image_.ChunkOffset(c);
    const log::LogChunkState st = log::LogChunkState::Decode(image_.Word(at));
    if (!st.in_use) continue;
    const uint64_t entry = at + log::kLogChunkHeaderSize;
    if (image_.Word(entry) >> 62 != st.check) continue;  // no valid entry 0
    torn = entry;
  }
  ASSERT_TRUE(torn) << "log 0 has no chunk with entries";
  PoolImage damaged = image_;
  const uint64_t w = damaged.Word(*torn);
  const uint64_t other_check = log::LogChunkState::NextCheck(w >> 62);
  damaged.SetWord(*torn, (w & ~(uint64_t{3} << 62)) | other_check << 62);
  // ...and a damaged state word in log 1, replayed after log 0.
  const uint64_t log1 = *image_.ChunkOffset(per_log);
  log::LogChunkState bad = log::LogChunkState::Decode(image_.Word(log1));
  bad.check = 0;
  damaged.SetWord(log1, bad.Encode());
  ASSERT_TRUE(damaged.Save(file_.path()));
  Options o = DamageOptions();
  o.recovery_threads = 1;  // log 0 first
  std::unique_ptr<DB> db;
  const Status s = DB::Open(o, file_.path(), &db);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("recovery log 1"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(PoolImage::FromFile(file_.path()).bytes() == damaged.bytes())
      << "the failed Open changed the pool";
}

// A DRAM entry holds `capacity` records of one epoch (a write batch that
// brings it more numbers them into its next epochs): more unmigrated
// records of one epoch for one entry are damage, not something to place.
TEST_F(BadInputTest, MoreRecordsOfOneEpochThanAnEntryHoldsAreCorruption) {
  std::optional<uint64_t> chunk;
  log::LogChunkState st;
  for (uint64_t c = 0; c < DamageOptions().log_chunks_per_log && !chunk; ++c) {
    st = log::LogChunkState::Decode(image_.Word(*image_.ChunkOffset(c)));
    if (st.in_use) chunk = *image_.ChunkOffset(c);
  }
  ASSERT_TRUE(chunk) << "log 0 has no chunk in use";
  const uint64_t capacity = 16u << DamageOptions().fanout_bits;
  const uint64_t epoch = uint64_t{1} << 40;  // above every entry's
  PoolImage damaged = image_;
  uint64_t slot = 0;
  for (uint64_t k = 1; slot <= capacity; ++k) {
    if ((InlineKeyHash(k) & 3) != 0) continue;  // DRAM entry 0, log 0
    log::LogRecord r;
    r.key = k;
    r.value = k;
    r.epoch = epoch;
    r.position = static_cast<uint8_t>(slot);
    uint64_t words[log::kEntryWords];
    log::EncodeEntry(r, st.check, words);
    const uint64_t at =
        *chunk + log::kLogChunkHeaderSize + slot * log::kEntrySize;
    for (uint64_t w = 0; w < log::kEntryWords; ++w)
      damaged.SetWord(at + 8 * w, words[w]);
    ++slot;
  }
  const DamageReport r = Exercise(damaged);
  EXPECT_EQ(r.violation, "");
  EXPECT_EQ(r.open.ToString(),
            "Corruption: recovering pool '" + file_.path() +
                "': recovery logs hold 33 records of epoch " +
                std::to_string(epoch) +
                " for DRAM entry 0, which holds 32");
}

// The spill area's word in the root page names an area inside the heap.
TEST_F(BadInputTest, DamagedBatchSpillWordIsCorruption) {
  const uint64_t at = pool::kRootOffset + offsetof(RootPage, batch_spill);
  for (const uint64_t word :
       {(image_.heap_offset() - 4096) | 10, image_.alloc_high_water() | 10,
        image_.heap_offset() | 9, image_.heap_offset() | 25,
        image_.heap_offset() | 0x100 | 10}) {
    const DamageReport r = WithWord(at, word);
    EXPECT_EQ(r.violation, "") << word;
    EXPECT_TRUE(r.open.IsCorruption()) << word << ": " << r.open.ToString();
    EXPECT_NE(r.open.ToString().find("batch spill area word"),
              std::string::npos)
        << r.open.ToString();
  }
}

TEST_F(BadInputTest, DuplicateChunkSequenceIsReportedByVerify) {
  // Two chunks of log 0 in use with the same position in the log.
  const uint64_t a = *image_.ChunkOffset(0);
  const uint64_t b = *image_.ChunkOffset(1);
  log::LogChunkState sa = log::LogChunkState::Decode(image_.Word(a));
  log::LogChunkState sb = log::LogChunkState::Decode(image_.Word(b));
  ASSERT_TRUE(sa.in_use || sb.in_use);
  sa.in_use = sb.in_use = true;
  sa.log_seq = sb.log_seq = std::max(sa.log_seq, sb.log_seq);
  PoolImage damaged = image_;
  damaged.SetWord(a, sa.Encode());
  damaged.SetWord(b, sb.Encode());
  ASSERT_TRUE(damaged.Save(file_.path()));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(DamageOptions(), file_.path(), &db));
  std::string report;
  EXPECT_TRUE(db->Verify(&report).IsCorruption());
  EXPECT_NE(report.find("used twice"), std::string::npos) << report;
}

// The check bits, the in-use bit, and low and high bits of the sequence.
TEST_F(BadInputTest, LogChunkHeaderFlipsKeepTheContract) {
  for (uint64_t c = 0; c < image_.log_chunks(); ++c) {
    for (unsigned bit : {0u, 1u, 2u, 3u, 8u, 9u, 10u, 40u, 63u}) {
      PoolImage damaged = image_;
      const uint64_t at = *image_.ChunkOffset(c);
      damaged.SetWord(at, damaged.Word(at) ^ (uint64_t{1} << bit));
      const DamageReport r = Exercise(damaged);
      ASSERT_EQ(r.violation, "") << "chunk " << c << " bit " << bit;
    }
  }
}

TEST_F(BadInputTest, RandomLogEntryFlipsKeepTheContract) {
  SweepRandomFlips("log entries", pool::kLogRegionOffset, image_.heap_offset(),
                   Samples(400), 11);
}

// ---- Directory entries and buckets
// --------------------------------------------

// Damage that Verify() is specified to find, each with its report line.
TEST_F(BadInputTest, DamagedDirectoryEntriesAreReportedByVerify) {
  const unsigned level = 1;
  const std::optional<uint64_t> i = Entry(level, 2);
  ASSERT_TRUE(i);
  const uint64_t entry = *image_.EntryOffset(level, *i);
  const uint64_t state = image_.EntryState(level, *i);
  const uint64_t bucket = *image_.BucketOffset(level, *i, 0);
  // Another entry of the level with records, and its first bucket.
  uint64_t other = *i + 1;
  while (other < image_.EntryCount(level) &&
         (image_.EntryState(level, other) & 0xFFFF) == 0) {
    ++other;
  }
  ASSERT_LT(other, image_.EntryCount(level));
  const uint64_t other_entry = *image_.EntryOffset(level, other);
  const uint64_t other_bucket = *image_.BucketOffset(level, other, 0);
  const uint32_t capacity = table::kSlotsPerBucket * image_.fanout();
  // A key that belongs to another entry of this level (placement uses the
  // low d + a hash bits on level 1: docs/format.md §4).
  const uint64_t bits = image_.superblock().dram_directory_bits +
                        image_.superblock().first_level_fanout_bits;
  uint64_t stray = 1;
  while ((InlineKeyHash(stray) & ((uint64_t{1} << bits) - 1)) == *i) ++stray;

  const std::pair<const char*, std::function<void(PoolImage*)>> edits[] = {
      {"exceeds capacity",
       [&](PoolImage* p) {
         p->SetWord(entry + offsetof(DirectoryEntry, state),
                    (state & ~0xFFFFull) | (capacity + 1));
       }},
      // The size a DRAM entry shows while it is rewritten in place: lookups
      // of a PMem entry waited for it to go away, for ever (found by the
      // soak's random edit scripts).
      {"exceeds capacity",
       [&](PoolImage* p) {
         p->SetWord(entry + offsetof(DirectoryEntry, state),
                    (state & ~0xFFFFull) | table::EntryState::kRewriting);
       }},
      {"bucket 0 reference",  // misaligned
       [&](PoolImage* p) {
         p->SetWord(entry + offsetof(DirectoryEntry, bucket), bucket + 8);
       }},
      {"belongs to entry", [&](PoolImage* p) { p->SetWord(bucket, stray); }},
      {"missing from the filter",  // bucket 0's partition: 32 / fanout words
       [&](PoolImage* p) {
         for (uint64_t w = 0; w < 32 / image_.fanout(); ++w) {
           p->SetWord(entry + w * 8, 0);
         }
       }},
      {"is not a bucket of the heap",  // aligned, allocated, but a directory
       [&](PoolImage* p) {
         p->SetWord(entry + offsetof(DirectoryEntry, bucket),
                    other_entry + 256);
       }},
      {"referenced by two directory entries",
       [&](PoolImage* p) {
         p->SetWord(entry + offsetof(DirectoryEntry, bucket), other_bucket);
       }},
  };
  for (const auto& [message, edit] : edits) {
    PoolImage damaged = image_;
    edit(&damaged);
    ASSERT_TRUE(damaged.Save(file_.path()));
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(DamageOptions(), file_.path(), &db));
    std::string report;
    EXPECT_TRUE(db->Verify(&report).IsCorruption()) << message;
    EXPECT_NE(report.find(message), std::string::npos) << message << ":\n"
                                                       << report;
    db.reset();
    EXPECT_EQ(Exercise(damaged).violation, "") << message;
  }
}

TEST_F(BadInputTest, RandomDirectoryFlipsKeepTheContract) {
  // The first level has the most live entries; the deepest was created
  // last, so its entries are the most recently written.
  const auto [first_begin, first_end] = SomeBlock(image_, 1);
  const auto [last_begin, last_end] = SomeBlock(image_, image_.level_count());
  SweepRandomFlips("a level 1 directory block", first_begin, first_end,
                   Samples(400), 12);
  SweepRandomFlips("a directory block of the deepest level", last_begin,
                   last_end, Samples(200), 13);
}

// Block tables name each unit's directory block: a word pointing outside
// the heap, or two units sharing a block, would let migrations write over
// other data. Open refuses them.
TEST_F(BadInputTest, DamagedBlockTableIsCorruption) {
  const LevelDescriptor d = image_.root().levels[0];
  const uint64_t units = uint64_t{1} << image_.superblock().dram_directory_bits;
  std::vector<uint64_t> used;
  for (uint64_t u = 0; u < units; ++u) {
    if (image_.Word(d.block_table_offset + u * 8) != 0) used.push_back(u);
  }
  ASSERT_GE(used.size(), 2u);
  const uint64_t at = d.block_table_offset + used[0] * 8;
  const uint64_t block = image_.Word(at);
  const std::pair<const char*, uint64_t> cases[] = {
      {"is not inside the heap", image_.alloc_high_water()},
      {"is not inside the heap", 4096},
      {"is not inside the heap", block + 512},
      {"overlap", image_.Word(d.block_table_offset + used[1] * 8)},
  };
  for (const auto& [message, word] : cases) {
    PoolImage damaged = image_;
    damaged.SetWord(at, word);
    ASSERT_TRUE(damaged.Save(file_.path()));
    std::unique_ptr<DB> db;
    const Status s = DB::Open(DamageOptions(), file_.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << word << ": " << s.ToString();
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
    EXPECT_EQ(Exercise(damaged).violation, "") << word;
  }
}

// Only level 1's block table may hold an epoch in place of a block (a
// unit that an empty migration raised, pool_format.h): elsewhere, the word
// is damage.
TEST_F(BadInputTest, EpochInADeeperBlockTableIsCorruption) {
  ASSERT_GE(image_.root().level_count, 2u);
  const LevelDescriptor d = image_.root().levels[1];
  PoolImage damaged = image_;
  damaged.SetWord(d.block_table_offset + 3 * 8, pool::EpochFloorWord(7));
  ASSERT_TRUE(damaged.Save(file_.path()));
  std::unique_ptr<DB> db;
  const Status s = DB::Open(DamageOptions(), file_.path(), &db);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("level 2 unit 3: the block table holds an "
                             "epoch, which only level 1's may"),
            std::string::npos)
      << s.message();
}

TEST_F(BadInputTest, RandomHeapFlipsKeepTheContract) {
  SweepRandomFlips("heap", image_.heap_offset(), image_.alloc_high_water(),
                   Samples(500), 14);
}

// ---- Regressions: damage that once crashed or went unnoticed
// ------------------

// A directory entry keeps the bucket references of earlier fills beyond its
// current size. A damaged one used to pass Verify() (which checked only the
// references below the size) and crash the next migration into the entry,
// which wrote through BucketAt()'s null result (fixed in 022903f). Now
// Verify() reports it and writes fail with Corruption. Runs in a child so
// that a regression fails this test instead of killing the binary.
TEST_F(BadInputTest, DamagedSpareBucketReferenceIsReportedNotACrash) {
  PoolImage damaged = image_;
  int damaged_entries = 0;
  for (uint64_t i = 0; i < damaged.EntryCount(1); ++i) {
    if ((damaged.EntryState(1, i) & 0xFFFF) > table::kSlotsPerBucket) continue;
    const uint64_t entry = *damaged.EntryOffset(1, i);
    damaged.SetWord(entry + offsetof(DirectoryEntry, bucket) + 8,
                    8);  // spare bucket 1: junk
    ++damaged_entries;
  }
  ASSERT_GT(damaged_entries, 0);
  ASSERT_TRUE(damaged.Save(file_.path()));
  const int status = RunInChild([&] {
    std::unique_ptr<DB> db;
    if (!DB::Open(DamageOptions(), file_.path(), &db).ok()) return 2;
    std::string report;
    if (db->Verify(&report).ok() ||
        report.find("spare bucket") == std::string::npos)
      return 3;
    for (uint64_t k = kKeys; k < 4 * kKeys; ++k) {
      const Status s = db->Put({}, Word(k), Word(k));
      if (s.IsCorruption()) return 0;  // the migration noticed the reference
      if (!s.ok()) return 4;
    }
    return db->Checkpoint().IsCorruption() ? 0 : 5;
  });
  ASSERT_TRUE(WIFEXITED(status))
      << "the process died of signal "
      << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "2: Open failed, 3: Verify missed it, "
         "4: another error, 5: no write noticed it";
}

// Verify() reports a bucket past the allocation mark, even where Open's
// check of the space past the mark (kZeroPastMarkChecked bytes) cannot
// see it: here a bucket reference is moved past that space.
TEST_F(BadInputTest, BucketsBeyondTheAllocationMarkAreReported) {
  PoolImage damaged = image_;
  const auto [begin, end] = SomeBlock(damaged, 1);
  const uint64_t ref = begin + offsetof(DirectoryEntry, bucket);
  const uint64_t bucket = damaged.Word(ref);
  ASSERT_NE(bucket, 0u);
  const uint64_t mark = damaged.alloc_high_water();
  const uint64_t moved = mark + pool::Pool::kZeroPastMarkChecked;
  std::string& bytes = damaged.bytes();
  bytes.resize(moved + 4096, '\0');
  bytes.replace(moved, 256, bytes.substr(bucket, 256));
  damaged.SetWord(ref, moved);
  ASSERT_TRUE(damaged.Save(file_.path()));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(DamageOptions(), file_.path(), &db));
  std::string report;
  EXPECT_TRUE(db->Verify(&report).IsCorruption())
      << "a bucket past the allocation mark goes unnoticed";
  db.reset();
  EXPECT_EQ(Exercise(damaged).violation, "");
}

// A level descriptor with a valid checksum but another level's entry count
// passes Pool::Open and is rejected by the table. The half-built DB used
// to crash in its destructor (Close() on null recovery logs) instead of
// returning Corruption (fixed in f6c5ff5). Found by the fuzz target (seed
// tests/fuzz/corpus/root_descriptor_copied).
TEST_F(BadInputTest, DescriptorOfAnotherLevelIsCorruptionNotACrash) {
  PoolImage damaged = image_;
  const std::string second = damaged.bytes().substr(
      PoolImage::DescriptorOffset(2), sizeof(LevelDescriptor));
  damaged.bytes().replace(PoolImage::DescriptorOffset(1),
                          sizeof(LevelDescriptor), second);
  ASSERT_TRUE(damaged.Save(file_.path()));
  const int status = RunInChild([&] {
    std::unique_ptr<DB> db;
    return DB::Open(DamageOptions(), file_.path(), &db).IsCorruption() ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status))
      << "Open died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "Open did not return Corruption";
}

// A damaged bucket reference can be 256-aligned and inside the allocated
// heap yet point into a directory: here level-1 entry 0's buckets point
// at the second half of its sibling, entry 1. A migration into both used
// to write entry 0's share over entry 1's bucket references and then crash
// writing entry 1's share through a null bucket (migration.cc,
// WriteTarget; fixed in f6c5ff5). Found by the soak run of
// RandomDirectoryFlipsKeepTheContract. Now Verify() reports the reference
// and the migration fails with Corruption.
TEST_F(BadInputTest, BucketReferenceIntoASiblingEntryIsCorruptionNotACrash) {
  PoolImage damaged = image_;
  const uint64_t entry0 = *damaged.EntryOffset(1, 0);
  const uint64_t entry1 = *damaged.EntryOffset(1, 1);
  for (unsigned b = 0; b < damaged.fanout(); ++b) {
    damaged.SetWord(entry0 + offsetof(DirectoryEntry, bucket) + 8 * b,
                    entry1 + sizeof(DirectoryEntry) / 2);
  }
  ASSERT_TRUE(damaged.Save(file_.path()));
  const int status = RunInChild([&] {
    std::unique_ptr<DB> db;
    if (!DB::Open(DamageOptions(), file_.path(), &db).ok()) return 2;
    if (!db->Verify().IsCorruption()) return 3;
    // Keys of DRAM entry 0, whose level-1 children are entries 0 and 1.
    const uint64_t dram_mask =
        (1u << damaged.superblock().dram_directory_bits) - 1;
    for (uint64_t k = kKeys, n = 0; n < 64; ++k) {
      if ((InlineKeyHash(k) & dram_mask) != 0) continue;
      ++n;
      const Status s = db->Put({}, Word(k), Word(k));
      if (s.IsCorruption()) return 0;
      if (!s.ok()) return 4;
    }
    return 5;
  });
  ASSERT_TRUE(WIFEXITED(status))
      << "died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: a sanitizer report, 2: Open failed, 3: Verify missed it, "
         "4: another error, 5: no migration noticed it";
}

}  // namespace
}  // namespace plush::test
