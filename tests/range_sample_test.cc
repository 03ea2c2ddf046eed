// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Range pools created with a key sample (Options::range_key_sample): keys
// that share their leading bytes, loaded in order, spread over every unit;
// the boundaries are persisted (docs/format.md, "Range boundaries") and
// checked when the pool is opened; pools without a sample keep the format
// they always had.

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "plush/db.h"
#include "testutil.h"
#include "util/hash.h"

namespace plush {
namespace {

using test::ScratchPool;

std::string UserKey(uint64_t i) {
  char key[32];
  std::snprintf(key, sizeof(key), "user:%08" PRIu64, i);
  return key;
}

std::string BigEndian(uint64_t i) {
  const uint64_t word = __builtin_bswap64(i);
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

Options SmallRange() {
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = 6;
  o.max_pool_size = 256u << 20;
  return o;
}

// Reads `size` bytes of the pool file at `offset`.
std::string ReadAt(const std::string& path, uint64_t offset, size_t size) {
  std::string bytes(size, '\0');
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(pread(fd, bytes.data(), size, static_cast<off_t>(offset)),
            static_cast<ssize_t>(size));
  close(fd);
  return bytes;
}

void WriteAt(const std::string& path, uint64_t offset,
             const std::string& bytes) {
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)),
            static_cast<ssize_t>(bytes.size()));
  close(fd);
}

// Superblock fields (docs/format.md, "Superblock").
constexpr uint64_t kPartitioningOffset = 24;
constexpr uint64_t kBoundariesOffsetOffset = 80;

uint64_t BoundariesOffset(const std::string& path) {
  uint64_t offset;
  std::memcpy(&offset, ReadAt(path, kBoundariesOffsetOffset, 8).data(), 8);
  return offset;
}

// Creates a range pool at `path` split at the quantiles of `sample`, with
// one record, and closes it.
void CreateSampled(const std::string& path, std::vector<std::string> sample,
                   uint32_t dram_bits) {
  Options o = SmallRange();
  o.dram_directory_bits = dram_bits;
  o.range_key_sample = std::move(sample);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, path, &db));
  ASSERT_OK(db->Put({}, "b1", "v"));
  ASSERT_OK(db->Close());
}

// Loads `count` keys in order; returns the stats after a reopen.
Stats LoadInOrder(const Options& o, const std::string& path,
                  std::string (*key)(uint64_t), uint64_t count) {
  std::unique_ptr<DB> db;
  EXPECT_OK(DB::Open(o, path, &db));
  for (uint64_t i = 0; i < count; ++i) {
    const Status s = db->Put({}, key(i), "value");
    if (!s.ok()) {
      ADD_FAILURE() << "record " << i << ": " << s.ToString();
      break;
    }
  }
  EXPECT_OK(db->Close());
  EXPECT_OK(DB::Open(SmallRange(), path, &db));  // no sample: the pool's own
  Stats stats;
  EXPECT_OK(db->GetStats(&stats));
  // Everything is there, in order.
  std::unique_ptr<Iterator> it = db->NewIterator({});
  uint64_t i = 0;
  for (it->Seek(key(count / 3)); it->Valid() && i < 100; it->Next(), ++i)
    EXPECT_EQ(it->key(), key(count / 3 + i));
  EXPECT_OK(it->status());
  std::string value;
  EXPECT_OK(db->Get({}, key(count - 1), &value));
  return stats;
}

std::vector<std::string> Sample(std::string (*key)(uint64_t), uint64_t count,
                                uint64_t step) {
  std::vector<std::string> sample;
  for (uint64_t i = 0; i < count; i += step) sample.push_back(key(i));
  return sample;
}

TEST(RangeSampleTest, SharedPrefixKeysInOrderSpreadOverEveryUnit) {
  constexpr uint64_t kKeys = 60000;
  ScratchPool sampled("sampled"), plain("plain");
  Options o = SmallRange();
  o.range_key_sample = Sample(UserKey, kKeys, 97);
  const Stats with = LoadInOrder(o, sampled.path(), UserKey, kKeys);
  EXPECT_EQ(with.range_units, "key sample");
  EXPECT_GT(with.unit_records_min, 0u);
  EXPECT_LT(with.unit_records_max, 2 * with.unit_records_median);

  // The same keys without a sample crowd into one unit, and the pool grows
  // levels for all units to hold them.
  const Stats without = LoadInOrder(SmallRange(), plain.path(), UserKey, kKeys);
  EXPECT_EQ(without.unit_records_median, 0u);
  EXPECT_GT(without.levels, with.levels);
  EXPECT_GT(without.pool_bytes, 4 * with.pool_bytes);
}

TEST(RangeSampleTest, MonotonicBinaryKeys) {
  constexpr uint64_t kKeys = 60000;
  ScratchPool file("binary");
  Options o = SmallRange();
  o.range_key_sample = Sample(BigEndian, kKeys, 61);
  const Stats stats = LoadInOrder(o, file.path(), BigEndian, kKeys);
  EXPECT_GT(stats.unit_records_min, 0u);
  EXPECT_LT(stats.unit_records_max, 2 * stats.unit_records_median);
}

// Keys beyond the sample's range go to the last unit: the sample must span
// the keys to come. (What the docs warn about.)
TEST(RangeSampleTest, KeysAboveTheSampleGoToTheLastUnit) {
  ScratchPool file("above");
  Options o = SmallRange();
  o.range_key_sample = Sample(UserKey, 1000, 1);
  const Stats stats = LoadInOrder(o, file.path(), UserKey, 20000);
  EXPECT_GE(stats.unit_records_max, 19000u);
}

TEST(RangeSampleTest, FormatNamesTheBoundaries) {
  ScratchPool sampled("format_sampled"), plain("format_plain"),
      hash("format_hash");
  Options o = SmallRange();
  o.range_key_sample = {"a", "b", "c"};
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, sampled.path(), &db));
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(SmallRange(), plain.path(), &db));
  ASSERT_OK(db->Close());
  ASSERT_OK(DB::Open(Options::SmallProfile(), hash.path(), &db));
  ASSERT_OK(db->Close());
  EXPECT_EQ(ReadAt(sampled.path(), kPartitioningOffset, 1), "\x02");
  EXPECT_NE(BoundariesOffset(sampled.path()), 0u);
  EXPECT_EQ(ReadAt(sampled.path(), BoundariesOffset(sampled.path()), 8),
            std::string("PLUSHRB\0", 8));
  // Without a sample: the bytes of before (partitioning 1 or 0, no region).
  EXPECT_EQ(ReadAt(plain.path(), kPartitioningOffset, 1), "\x01");
  EXPECT_EQ(BoundariesOffset(plain.path()), 0u);
  EXPECT_EQ(ReadAt(hash.path(), kPartitioningOffset, 1), std::string(1, '\0'));
  EXPECT_EQ(BoundariesOffset(hash.path()), 0u);
  // A sample given for an existing pool is a creation parameter: ignored,
  // the pool keeps its boundaries.
  Options other = SmallRange();
  other.range_key_sample = {"x"};
  ASSERT_OK(DB::Open(other, sampled.path(), &db));
  ASSERT_OK(db->Put({}, "b1", "v"));
  ASSERT_OK(db->Close());
}

TEST(RangeSampleTest, ASampleNeedsRangePartitioning) {
  ScratchPool file("sample_on_hash");
  Options o = Options::SmallProfile();
  o.range_key_sample = {"a"};
  std::unique_ptr<DB> db;
  const Status s = DB::Open(o, file.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: range_key_sample applies to range "
            "partitioning only (Options::partitioning = kRange)");
  EXPECT_NE(access(file.path().c_str(), F_OK), 0) << "no file is left";
}

TEST(RangeSampleTest, DamagedBoundariesAreRefused) {
  struct Damage {
    uint64_t at;  // from the region's start
    std::string bytes;
    const char* message;
  };
  const std::vector<Damage> damages = {
      {0, "X", "range boundaries: bad magic"},
      {8, std::string(1, '\x07'), "range boundaries: header checksum mismatch"},
      {64 + 2, "Z", "range boundaries: checksum mismatch"},
  };
  for (const Damage& d : damages) {
    ScratchPool file("damaged");
    ASSERT_NO_FATAL_FAILURE(
        CreateSampled(file.path(), Sample(UserKey, 1000, 1), 6));
    std::unique_ptr<DB> db;
    WriteAt(file.path(), BoundariesOffset(file.path()) + d.at, d.bytes);
    const Status s = DB::Open(SmallRange(), file.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find(d.message), std::string::npos)
        << s.ToString() << " (expected " << d.message << ")";
  }
}

// Every byte of the region is covered by a checksum: any flip is refused.
TEST(RangeSampleTest, EveryFlippedByteOfTheBoundariesIsRefused) {
  ScratchPool file("flips");
  ASSERT_NO_FATAL_FAILURE(
      CreateSampled(file.path(), {"apple", "kiwi", "mango", "pear"}, 2));
  std::unique_ptr<DB> db;
  const uint64_t region = BoundariesOffset(file.path());
  uint64_t entries_bytes;
  std::memcpy(&entries_bytes, ReadAt(file.path(), region + 16, 8).data(), 8);
  ASSERT_EQ(entries_bytes, 3 * 2 + 4 + 5 + 4u) << "kiwi, mango, pear";
  for (uint64_t at = 0; at < 64 + entries_bytes; ++at) {
    const std::string original = ReadAt(file.path(), region + at, 1);
    WriteAt(file.path(), region + at, std::string(1, original[0] ^ 0x10));
    const Status s = DB::Open(SmallRange(), file.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << "byte " << at << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("range boundaries: "), std::string::npos)
        << s.ToString();
    WriteAt(file.path(), region + at, original);
  }
  ASSERT_OK(DB::Open(SmallRange(), file.path(), &db));
}

// Regions whose checksums are right but whose contents are not: the
// checks behind the checksums, each with its message.
TEST(RangeSampleTest, InconsistentBoundariesAreRefused) {
  struct Case {
    uint64_t count;
    std::vector<std::string> keys;
    std::string trailing;  // bytes after the entries
    const char* message;
    uint64_t claimed_bytes = 0;  // entries_bytes, if not their size
  };
  const std::vector<Case> cases = {
      {2, {"b", "c"}, "", "2 boundaries for 4 DRAM directory entries"},
      {3, {"c", "b", "d"}, "", "boundary 1 is out of order"},
      {3, {"b", "c", std::string(1025, 'x')}, "",
       "boundary 2 has a bad length (1025)"},
      {3, {"b", "c", "d"}, "zz", "entries do not fill the region"},
      {3, {"b", "c"}, "", "entries cut short"},
      {3, {"b", "c", "d"}, "", "entries extend past the pool's allocations",
       uint64_t{1} << 40},
  };
  for (const Case& c : cases) {
    ScratchPool file("inconsistent");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    std::unique_ptr<DB> db;
    std::string entries;
    for (const std::string& k : c.keys) {
      const auto length = static_cast<uint16_t>(k.size());
      entries.append(reinterpret_cast<const char*>(&length), 2);
      entries += k;
    }
    entries += c.trailing;
    uint64_t header[8];
    const uint64_t region = BoundariesOffset(file.path());
    std::memcpy(header, ReadAt(file.path(), region, 64).data(), 64);
    header[1] = c.count;
    header[2] = c.claimed_bytes != 0 ? c.claimed_bytes : entries.size();
    header[3] = Checksum(entries.data(), entries.size());
    header[7] = Checksum(header, 56);
    WriteAt(file.path(), region,
            std::string(reinterpret_cast<const char*>(header), 64) + entries);
    const Status s = DB::Open(SmallRange(), file.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find(std::string("range boundaries: ") + c.message),
              std::string::npos)
        << s.ToString() << " (expected " << c.message << ")";
  }
}

// The superblock names where the boundaries are; anywhere but the start
// of the heap is refused (with a checksum that matches: not a bit flip).
TEST(RangeSampleTest, BoundariesAnywhereButTheHeapStartAreRefused) {
  ScratchPool file("moved");
  ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
  constexpr uint64_t kChecksumOffset = 136;  // XXH64 of bytes 0..135
  std::string superblock = ReadAt(file.path(), 0, kChecksumOffset);
  const uint64_t moved = BoundariesOffset(file.path()) + 4096;
  std::memcpy(superblock.data() + kBoundariesOffsetOffset, &moved, 8);
  const uint64_t checksum = Checksum(superblock.data(), superblock.size());
  superblock.append(reinterpret_cast<const char*>(&checksum), 8);
  WriteAt(file.path(), 0, superblock);
  std::unique_ptr<DB> db;
  const Status s = DB::Open(SmallRange(), file.path(), &db);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("superblock: range boundaries at " +
                              std::to_string(moved) +
                              ", not at the start of the heap"),
            std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace plush
