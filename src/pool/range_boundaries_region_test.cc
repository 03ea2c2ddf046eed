// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The range boundaries region on its own (pool/range_boundaries_region.h),
// on a simulated device: the region that range pools created with a key
// sample by earlier versions hold (docs/format.md, "Range boundaries"),
// written here as they wrote it, reads back as its boundaries; every kind
// of damage is Corruption naming what is wrong, and leaves the caller's
// boundaries alone.

#include "pool/range_boundaries_region.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "media/sim_media.h"
#include "plush/limits.h"
#include "pool/pool_format.h"
#include "testutil.h"
#include "util/hash.h"

namespace plush::pool {
namespace {

constexpr uint64_t kDeviceBytes = 1ull << 20;
constexpr uint64_t kAt = 8192;

class RangeBoundariesRegionTest : public ::testing::Test {
 protected:
  RangeBoundariesRegionTest() : media_(kDeviceBytes, kDeviceBytes) {}

  static std::string Entry(const std::string& key, size_t length) {
    const auto l = static_cast<uint16_t>(length);
    return std::string(reinterpret_cast<const char*>(&l), 2) + key;
  }
  static std::string Entries(const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& k : keys) out += Entry(k, k.size());
    return out;
  }
  // Writes a sealed region at kAt: `count` boundaries over `entries`.
  // Its size.
  uint64_t WriteRaw(uint64_t count, const std::string& entries) {
    RangeBoundariesHeader h{};
    std::memcpy(h.magic, kRangeBoundariesMagic, sizeof(h.magic));
    h.count = count;
    h.entries_bytes = entries.size();
    h.entries_checksum = Checksum(entries.data(), entries.size());
    h.checksum = Checksum(&h, offsetof(RangeBoundariesHeader, checksum));
    std::memcpy(media_.At<char>(kAt), &h, sizeof(h));
    std::memcpy(media_.At<char>(kAt + sizeof(h)), entries.data(),
                entries.size());
    return sizeof(h) + entries.size();
  }
  uint64_t Write(const std::vector<std::string>& keys) {
    return WriteRaw(keys.size(), Entries(keys));
  }
  // Reads the region at kAt for 2^bits DRAM entries, up to `limit`: the
  // Corruption message, or "OK". A failed read leaves *out alone.
  std::string ReadError(unsigned bits, uint64_t limit = kDeviceBytes) {
    std::vector<std::string> out = {"untouched"};
    const Status s = ReadRangeBoundaries(media_, kAt, limit, bits, &out);
    EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    if (!s.ok()) {
      EXPECT_EQ(out, std::vector<std::string>{"untouched"});
      return std::string(s.message());
    }
    return "OK";
  }
  RangeBoundariesHeader* Header() {
    return media_.At<RangeBoundariesHeader>(kAt);
  }

  media::SimMedia media_;
};

TEST_F(RangeBoundariesRegionTest, BoundariesReadBackInOrder) {
  // 2^3 - 1 boundaries: binary bytes, equal neighbours (a sample with few
  // distinct keys), a prefix before its extension, the longest key.
  const std::vector<std::string> keys = {
      std::string("\0", 1), "apple", "apple", std::string("apple\0", 6), "b",
      std::string(kMaxKeySize, 'c'), "\xff\xff"};
  const uint64_t bytes = Write(keys);
  std::vector<std::string> read;
  ASSERT_OK(ReadRangeBoundaries(media_, kAt, kAt + bytes, 3, &read));
  EXPECT_EQ(read, keys);

  // One DRAM entry: no boundaries at all.
  const uint64_t empty = Write({});
  ASSERT_OK(ReadRangeBoundaries(media_, kAt, kAt + empty, 0, &read));
  EXPECT_TRUE(read.empty());
}

TEST_F(RangeBoundariesRegionTest, DamagedRegionIsCorruptionNamingTheDamage) {
  const std::vector<std::string> keys = {"a", "bb", "ccc"};
  const uint64_t bytes = Write(keys);
  EXPECT_EQ(ReadError(2), "OK");
  EXPECT_EQ(ReadError(2, kAt + sizeof(RangeBoundariesHeader) - 1),
            "range boundaries: region lies outside the pool");
  EXPECT_EQ(ReadError(2, kAt - 1),
            "range boundaries: region lies outside the pool");
  EXPECT_EQ(ReadError(2, kAt + bytes - 1),
            "range boundaries: entries extend past the pool's allocations");
  EXPECT_EQ(ReadError(3),
            "range boundaries: 3 boundaries for 8 DRAM directory entries");
  EXPECT_EQ(ReadError(1),
            "range boundaries: 3 boundaries for 2 DRAM directory entries");

  Header()->magic[0] = 'p';
  EXPECT_EQ(ReadError(2), "range boundaries: bad magic");
  Write(keys);
  Header()->reserved[1] = 1;  // covered by the header checksum
  EXPECT_EQ(ReadError(2), "range boundaries: header checksum mismatch");
  Write(keys);
  media_.At<char>(kAt + bytes - 1)[0] = 'd';  // "ccc" -> "ccd"
  EXPECT_EQ(ReadError(2), "range boundaries: checksum mismatch");
  Write(keys);
  EXPECT_EQ(ReadError(2), "OK");
}

// Sealed regions whose entries are not boundaries.
TEST_F(RangeBoundariesRegionTest, WellSealedNonsenseIsCorruptionNamingIt) {
  WriteRaw(3, Entries({"a", "b"}));
  EXPECT_EQ(ReadError(2), "range boundaries: entries cut short");
  WriteRaw(3, Entries({"a", "b"}) + "\x01");
  EXPECT_EQ(ReadError(2), "range boundaries: entries cut short");
  WriteRaw(3, Entries({"a", "b"}) + Entry("cc", 3));
  EXPECT_EQ(ReadError(2), "range boundaries: boundary 2 has a bad length (3)");
  WriteRaw(3, Entry(std::string(kMaxKeySize + 1, 'a'), kMaxKeySize + 1) +
                  Entries({"b", "c"}));
  EXPECT_EQ(ReadError(2), "range boundaries: boundary 0 has a bad length (" +
                              std::to_string(kMaxKeySize + 1) + ")");
  WriteRaw(3, Entries({"a", "c", "b"}));
  EXPECT_EQ(ReadError(2), "range boundaries: boundary 2 is out of order");
  WriteRaw(3, Entries({"ab", "a", "b"}));
  EXPECT_EQ(ReadError(2), "range boundaries: boundary 1 is out of order");
  WriteRaw(3, Entries({"a", "b", "c"}) + "!");
  EXPECT_EQ(ReadError(2), "range boundaries: entries do not fill the region");
  WriteRaw(3, Entries({"a", "b", "c"}));
  EXPECT_EQ(ReadError(2), "OK");
}

}  // namespace
}  // namespace plush::pool
