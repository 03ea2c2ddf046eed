// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The range map regions on their own (placement/range_map_region.h), on a
// simulated device: a base written by WriteRangeMap reads back as the same
// layout and generation; change records written by WriteRangeChange read
// back in order, where they end; and every kind of damage to either is
// reported as Corruption naming what is wrong.

#include "placement/range_map_region.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "placement/range_map_format.h"
#include "plush/limits.h"
#include "testing/sim_media.h"
#include "testutil.h"
#include "util/hash.h"

namespace plush {
namespace {

constexpr uint64_t kDeviceBytes = 2ull << 20;
constexpr uint64_t kAt = 4096;  // where the tests put a region

// A map of 8 units in 5 positions: binary separators (NUL, 0xFF, a
// separator that is a prefix of the next), units out of order.
RangeMap::Layout SomeLayout() {
  RangeMap::Layout layout;
  layout.separators = {std::string("\0\x01", 2), "k", "k\xff", "zz"};
  layout.units = {5, 0, 7, 2, 3};
  return layout;
}

class RangeMapRegionTest : public ::testing::Test {
 protected:
  RangeMapRegionTest() : media_(kDeviceBytes, kDeviceBytes) {}

  Status Read(unsigned bits, uint64_t limit, uint64_t* generation,
              RangeMap::Layout* layout) const {
    return ReadRangeMap(media_, kAt, limit, bits, generation, layout);
  }
  // Reads the region at kAt (8 units, up to the device's end): the
  // Corruption message, or "OK".
  std::string ReadError() const {
    uint64_t generation = 0;
    RangeMap::Layout layout;
    const Status s = Read(3, kDeviceBytes, &generation, &layout);
    EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    return s.ok() ? "OK" : std::string(s.message());
  }
  RangeMapHeader* Header() { return media_.At<RangeMapHeader>(kAt); }
  unsigned char* Entries() {
    return media_.At<unsigned char>(kAt + sizeof(RangeMapHeader));
  }
  // Seals the header as a writer would: its checksum, and that of
  // `entries_bytes` entries, over what the test put there.
  void Seal() {
    RangeMapHeader& h = *Header();
    h.entries_checksum = Checksum(Entries(), h.entries_bytes);
    h.checksum = Checksum(&h, offsetof(RangeMapHeader, checksum));
  }
  // Writes a header for `positions` positions over `entries` (raw bytes).
  void WriteRaw(uint32_t positions, const std::string& entries) {
    RangeMapHeader h{};
    std::memcpy(h.magic, kRangeMapMagic, sizeof(h.magic));
    h.generation = 1;
    h.unit_bits = 3;
    h.positions = positions;
    h.entries_bytes = entries.size();
    std::memcpy(Header(), &h, sizeof(h));
    std::memcpy(Entries(), entries.data(), entries.size());
    Seal();
  }
  static std::string Unit(uint32_t u) {
    return std::string(reinterpret_cast<const char*>(&u), 4);
  }
  static std::string Separator(const std::string& s, uint16_t length) {
    return std::string(reinterpret_cast<const char*>(&length), 2) + s;
  }
  static std::string Separator(const std::string& s) {
    return Separator(s, static_cast<uint16_t>(s.size()));
  }

  media::SimMedia media_;
};

TEST_F(RangeMapRegionTest, BaseReadsBackAsWritten) {
  const RangeMap::Layout layout = SomeLayout();
  // Header, then a 4-byte unit per position, then each separator's
  // 2-byte length and bytes.
  EXPECT_EQ(RangeMapRegionBytes(layout),
            sizeof(RangeMapHeader) + 5 * 4 + (2 + 2) + (2 + 1) + (2 + 2) +
                (2 + 2));
  WriteRangeMap(&media_, kAt, 3, /*generation=*/42, layout);
  uint64_t generation = 0;
  RangeMap::Layout read;
  ASSERT_OK(Read(3, kAt + RangeMapRegionBytes(layout), &generation, &read));
  EXPECT_EQ(generation, 42u);
  EXPECT_EQ(read.separators, layout.separators);
  EXPECT_EQ(read.units, layout.units);
  EXPECT_EQ(Header()->positions, 5u);
  EXPECT_EQ(Header()->entries_bytes,
            RangeMapRegionBytes(layout) - sizeof(RangeMapHeader));
}

TEST_F(RangeMapRegionTest, MapsOfOnePositionAndOfEveryUnitReadBack) {
  RangeMap::Layout one;
  one.units = {6};
  WriteRangeMap(&media_, kAt, 3, 0, one);
  uint64_t generation = 9;
  RangeMap::Layout read;
  ASSERT_OK(Read(3, kDeviceBytes, &generation, &read));
  EXPECT_EQ(generation, 0u);
  EXPECT_EQ(read.units, one.units);
  EXPECT_TRUE(read.separators.empty());

  // 2^10 positions, the longest separator a key can be among them.
  RangeMap::Layout full = RangeMap::ByLeadingBits(10);
  full.separators.back() = std::string(kMaxKeySize, '\xff');
  WriteRangeMap(&media_, kAt, 10, 7, full);
  ASSERT_OK(Read(10, kAt + RangeMapRegionBytes(full), &generation, &read));
  EXPECT_EQ(generation, 7u);
  EXPECT_EQ(read.units, full.units);
  EXPECT_EQ(read.separators, full.separators);
}

// A failed read leaves the caller's generation and layout alone.
TEST_F(RangeMapRegionTest, DamagedBaseIsCorruptionNamingTheDamage) {
  const RangeMap::Layout layout = SomeLayout();
  const uint64_t bytes = RangeMapRegionBytes(layout);
  auto fresh = [&] { WriteRangeMap(&media_, kAt, 3, 42, layout); };
  uint64_t generation = 5;
  RangeMap::Layout read;
  read.units = {1};

  fresh();
  const std::string outside =
      "Corruption: range map: region lies outside the pool";
  Status s = Read(3, kAt + sizeof(RangeMapHeader) - 1, &generation, &read);
  EXPECT_EQ(s.ToString(), outside);
  s = ReadRangeMap(media_, kAt + 1, kAt, 3, &generation, &read);
  EXPECT_EQ(s.ToString(), outside);
  s = Read(3, kAt + bytes - 1, &generation, &read);
  EXPECT_EQ(s.ToString(),
            "Corruption: range map: entries extend past their region");
  s = Read(4, kDeviceBytes, &generation, &read);
  EXPECT_EQ(s.ToString(),
            "Corruption: range map: made for 3 DRAM directory bits, the pool "
            "has 4");
  EXPECT_EQ(generation, 5u);
  EXPECT_EQ(read.units, std::vector<uint32_t>{1});

  Header()->magic[7] = 'X';
  EXPECT_EQ(ReadError(), "range map: bad magic");
  fresh();
  Header()->generation ^= 1;  // not covered by anything but the checksum
  EXPECT_EQ(ReadError(), "range map: header checksum mismatch");
  fresh();
  Entries()[4] ^= 0x01;  // the second position's unit
  EXPECT_EQ(ReadError(), "range map: checksum mismatch");
  fresh();
  Entries()[bytes - sizeof(RangeMapHeader) - 1] ^= 0x80;  // the last byte
  EXPECT_EQ(ReadError(), "range map: checksum mismatch");
  fresh();
  EXPECT_EQ(ReadError(), "OK");
}

// Headers whose checksums are right but whose contents are not a map.
TEST_F(RangeMapRegionTest, WellSealedNonsenseIsCorruptionNamingIt) {
  const std::string units = Unit(0) + Unit(1) + Unit(2);
  WriteRaw(0, "");
  EXPECT_EQ(ReadError(), "range map: 0 positions for 8 units");
  WriteRaw(9, std::string(9 * 4 + 8 * 2, '\0'));
  EXPECT_EQ(ReadError(), "range map: 9 positions for 8 units");
  WriteRaw(3, Unit(0) + Unit(1));
  EXPECT_EQ(ReadError(), "range map: entries cut short");
  WriteRaw(3, units + Separator("a") + "\x01");
  EXPECT_EQ(ReadError(), "range map: entries cut short");
  WriteRaw(3, units + Separator("a") + Separator("bcd", 4));
  EXPECT_EQ(ReadError(), "range map: separator 1 has a bad length (4)");
  WriteRaw(3, units + Separator("", kMaxKeySize + 1) +
                  std::string(kMaxKeySize + 1, 'a') + Separator("b"));
  EXPECT_EQ(ReadError(), "range map: separator 0 has a bad length (" +
                             std::to_string(kMaxKeySize + 1) + ")");
  WriteRaw(3, units + Separator("a") + Separator("b") + "??");
  EXPECT_EQ(ReadError(), "range map: entries do not fill the region");
  // Well formed, but not a map (RangeMap::Invalid says why).
  WriteRaw(3, units + Separator("b") + Separator("a"));
  EXPECT_EQ(ReadError(), "range map: separator 1 is out of order");
  WriteRaw(3, Unit(0) + Unit(4) + Unit(4) + Separator("a") + Separator("b"));
  EXPECT_EQ(ReadError(), "range map: unit 4 is named twice (position 2)");
  WriteRaw(2, Unit(0) + Unit(8) + Separator("a"));
  EXPECT_EQ(ReadError(), "range map: position 1 names unit 8 of 8");
  WriteRaw(3, units + Separator("a") + Separator("b"));
  EXPECT_EQ(ReadError(), "OK");
}

// ---- The change log ---------------------------------------------------------

std::vector<RangeMap::Change> SomeChanges() {
  RangeMap::Change merge;
  merge.kind = RangeMap::Change::Kind::kMerge;
  merge.position = 3;
  merge.unit = 6;
  merge.count = RangeMap::kMaxMerged;
  RangeMap::Change split;
  split.kind = RangeMap::Change::Kind::kSplit;
  split.position = 1;
  split.unit = 4;
  split.separator = std::string("user\0:9", 7);  // padded to 8
  RangeMap::Change reassign;
  reassign.kind = RangeMap::Change::Kind::kReassign;
  reassign.position = 0;
  reassign.unit = 2;
  RangeMap::Change long_split = split;
  long_split.separator = std::string(kMaxKeySize, '\xfe');
  return {merge, split, reassign, long_split};
}

void ExpectSameChange(const RangeMap::Change& got, const RangeMap::Change& want,
                      size_t i) {
  EXPECT_EQ(got.kind, want.kind) << "change " << i;
  EXPECT_EQ(got.position, want.position) << "change " << i;
  EXPECT_EQ(got.unit, want.unit) << "change " << i;
  EXPECT_EQ(got.separator, want.separator) << "change " << i;
  if (want.kind == RangeMap::Change::Kind::kMerge) {
    EXPECT_EQ(got.count, want.count) << "change " << i;
  }
}

class RangeChangeLogTest : public RangeMapRegionTest {
 protected:
  // Writes `changes` one after the other at kAt; their end.
  uint64_t WriteAll(const std::vector<RangeMap::Change>& changes,
                    uint64_t base_generation) {
    uint64_t at = kAt;
    for (uint32_t i = 0; i < changes.size(); ++i) {
      WriteRangeChange(&media_, at, base_generation, i, changes[i]);
      at += RangeChangeBytes(changes[i]);
    }
    return at;
  }
  std::string ReadError(uint64_t base_generation, uint32_t count,
                        uint64_t capacity = kDeviceBytes - kAt) {
    std::vector<RangeMap::Change> read;
    uint64_t end = 0;
    const Status s = ReadRangeChanges(media_, kAt, capacity, base_generation,
                                      count, &read, &end);
    EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    return s.ok() ? "OK" : std::string(s.message());
  }
  // The check of a record (docs/format.md, "Range map"): the low 32 bits
  // of XXH64 of the record with its check zero.
  static uint32_t Check(const unsigned char* record, uint64_t bytes,
                        uint64_t base_generation, uint32_t index) {
    std::string copy(reinterpret_cast<const char*>(record), bytes);
    uint64_t word0 = 0;
    std::memcpy(&word0, copy.data(), 8);
    word0 &= 0xFFFFFFFF;
    std::memcpy(copy.data(), &word0, 8);
    return static_cast<uint32_t>(XXH64(
        copy.data(), bytes, base_generation * 0x9E3779B97F4A7C15ull ^ index));
  }
  // Replaces word 0 of the record at `at` (of `bytes` bytes) with `word0`
  // and a check that passes.
  void Reseal(uint64_t at, uint64_t bytes, uint64_t word0,
              uint64_t base_generation, uint32_t index) {
    unsigned char* record = media_.At<unsigned char>(at);
    word0 &= 0xFFFFFFFF;
    std::memcpy(record, &word0, 8);
    word0 |= uint64_t{Check(record, bytes, base_generation, index)} << 32;
    std::memcpy(record, &word0, 8);
  }
};

TEST_F(RangeChangeLogTest, ChangesReadBackInOrderWithTheirEnd) {
  const std::vector<RangeMap::Change> changes = SomeChanges();
  EXPECT_EQ(RangeChangeBytes(changes[0]), kRangeChangeHeaderBytes);
  EXPECT_EQ(RangeChangeBytes(changes[1]), kRangeChangeHeaderBytes + 8);
  EXPECT_EQ(RangeChangeBytes(changes[3]),
            kRangeChangeHeaderBytes + ((kMaxKeySize + 7) & ~size_t{7}));
  const uint64_t end = WriteAll(changes, /*base_generation=*/12);
  std::vector<RangeMap::Change> read = {changes[2]};  // replaced, not added to
  uint64_t read_end = 0;
  ASSERT_OK(ReadRangeChanges(media_, kAt, end - kAt, 12, 4, &read, &read_end));
  ASSERT_EQ(read.size(), 4u);
  for (size_t i = 0; i < 4; ++i) ExpectSameChange(read[i], changes[i], i);
  EXPECT_EQ(read_end, end);
  // Fewer than were written: the end of those.
  ASSERT_OK(ReadRangeChanges(media_, kAt, end - kAt, 12, 2, &read, &read_end));
  ASSERT_EQ(read.size(), 2u);
  ExpectSameChange(read[1], changes[1], 1);
  EXPECT_EQ(read_end, kAt + RangeChangeBytes(changes[0]) +
                          RangeChangeBytes(changes[1]));
  ASSERT_OK(ReadRangeChanges(media_, kAt, 0, 12, 0, &read, &read_end));
  EXPECT_TRUE(read.empty());
  EXPECT_EQ(read_end, kAt);
}

TEST_F(RangeChangeLogTest, ASplitBelowReadsBack) {
  RangeMap::Change below;
  below.kind = RangeMap::Change::Kind::kSplitBelow;
  below.position = 9;
  below.unit = 3;
  below.separator = "timestamp";
  EXPECT_EQ(RangeChangeBytes(below), kRangeChangeHeaderBytes + 16);
  const uint64_t end = WriteAll({below}, /*base_generation=*/5);
  std::vector<RangeMap::Change> read;
  uint64_t read_end = 0;
  ASSERT_OK(ReadRangeChanges(media_, kAt, end - kAt, 5, 1, &read, &read_end));
  ASSERT_EQ(read.size(), 1u);
  ExpectSameChange(read[0], below, 0);
  EXPECT_EQ(read_end, end);
}

// A record is bound to its base generation and its index: a log of an
// older base, or a record where another should be, never passes.
TEST_F(RangeChangeLogTest, RecordsOfAnotherBaseOrIndexFailTheirCheck) {
  const std::vector<RangeMap::Change> changes = SomeChanges();
  WriteAll(changes, 12);
  EXPECT_EQ(ReadError(12, 4), "OK");
  EXPECT_EQ(ReadError(11, 4), "range map: change 0 of 4: check mismatch");
  EXPECT_EQ(ReadError(13, 1), "range map: change 0 of 1: check mismatch");
  // A record written as change 1, where change 0 belongs.
  WriteRangeChange(&media_, kAt, 12, 1, changes[0]);
  EXPECT_EQ(ReadError(12, 4), "range map: change 0 of 4: check mismatch");
  // Nothing written after the last change: zeros fail their check.
  WriteAll(changes, 12);
  EXPECT_EQ(ReadError(12, 5), "range map: change 4 of 5: check mismatch");
}

TEST_F(RangeChangeLogTest, DamagedRecordsAreCorruptionNamingTheChange) {
  const std::vector<RangeMap::Change> changes = SomeChanges();
  const uint64_t second = kAt + RangeChangeBytes(changes[0]);
  const uint64_t end = WriteAll(changes, 12);
  auto* bytes = media_.At<unsigned char>(0);

  bytes[second + kRangeChangeHeaderBytes + 2] ^= 0x20;  // its separator
  EXPECT_EQ(ReadError(12, 4), "range map: change 1 of 4: check mismatch");
  WriteAll(changes, 12);
  bytes[second + 8] ^= 0x01;  // its position
  EXPECT_EQ(ReadError(12, 4), "range map: change 1 of 4: check mismatch");
  WriteAll(changes, 12);
  // A log too short for what the count says.
  EXPECT_EQ(ReadError(12, 4, end - kAt - 1),
            "range map: change 3 of 4: bad separator length (" +
                std::to_string(kMaxKeySize) + ")");
  EXPECT_EQ(ReadError(12, 2, RangeChangeBytes(changes[0]) + 15),
            "range map: change 1 of 2: past the end of the change log");

  // Sealed records that are not changes: a merge with a separator, a
  // separator longer than a key, a merge count on a split.
  uint64_t word0 = 0;
  std::memcpy(&word0, bytes + kAt, 8);
  Reseal(kAt, 16, (word0 & 0xFFFF) | uint64_t{3} << 16, 12, 0);
  EXPECT_EQ(ReadError(12, 4),
            "range map: change 0 of 4: bad separator length (3)");
  WriteAll(changes, 12);
  std::memcpy(&word0, bytes + second, 8);
  Reseal(second, 24, (word0 & 0xFFFF) | uint64_t{kMaxKeySize + 1} << 16, 12,
         1);
  EXPECT_EQ(ReadError(12, 4),
            "range map: change 1 of 4: bad separator length (" +
                std::to_string(kMaxKeySize + 1) + ")");
  WriteAll(changes, 12);
  std::memcpy(&word0, bytes + second, 8);
  Reseal(second, 24, word0 | 1, 12, 1);
  EXPECT_EQ(ReadError(12, 4), "range map: change 1 of 4: bad merge count");
  WriteAll(changes, 12);
  EXPECT_EQ(ReadError(12, 4), "OK");
}

}  // namespace
}  // namespace plush
