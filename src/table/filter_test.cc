// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The directory entry's filter on its own (table/filter.h): where a key's
// bits go, byte for byte as docs/format.md §4.3 specifies them, and what
// adding and resetting touch. (Its false-positive rate and the SIMD search
// over it are simd_test.cc's.)

#include "table/filter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

namespace plush::table {
namespace {

constexpr unsigned kFanouts[] = {1, 2, 4, 8, 16};

// docs/format.md §4.3, spelled out independently of filter.h.
struct SpecProbe {
  unsigned plane;
  uint32_t mask;
};
SpecProbe Spec(uint64_t h, unsigned fanout) {
  const uint64_t m = h ^ (h >> 29);
  const uint64_t x = m * 0x9E3779B97F4A7C15ull;
  SpecProbe p{static_cast<unsigned>((x >> 20) % (64 / fanout)), 0};
  for (unsigned k = 0; k < 4; ++k) p.mask |= 1u << ((x >> (59 - 5 * k)) & 31);
  return p;
}

class FilterTest : public ::testing::Test {
 protected:
  // The 32-bit block at byte offset 4 * n of the filter, read as the
  // little-endian bytes the format describes.
  uint32_t BlockAt(unsigned n) const {
    uint32_t v = 0;
    std::memcpy(&v, reinterpret_cast<const char*>(filter_) + 4 * n, 4);
    return v;
  }
  unsigned NonZeroBlocks() const {
    unsigned n = 0;
    for (unsigned b = 0; b < kFilterBlocks; ++b) n += BlockAt(b) != 0;
    return n;
  }

  alignas(512) uint64_t filter_[kFilterBytes / 8] = {};
  std::mt19937_64 rng_{14};
};

TEST_F(FilterTest, ProbeFollowsTheFormatSpecification) {
  for (unsigned fanout : kFanouts) {
    for (int i = 0; i < 5000; ++i) {
      const uint64_t h = rng_();
      const FilterProbe probe = MakeProbe(h, fanout);
      const SpecProbe spec = Spec(h, fanout);
      ASSERT_EQ(probe.plane_offset, spec.plane * fanout)
          << "fanout " << fanout << ", hash " << h;
      ASSERT_EQ(probe.mask, spec.mask) << "fanout " << fanout << ", hash " << h;
    }
  }
  // Pinned values: a change of the remix constant or of the bit positions
  // makes every filter on media wrong.
  EXPECT_EQ(MakeProbe(0x0123456789ABCDEFull, 2).plane_offset, 12u);
  EXPECT_EQ(MakeProbe(0x0123456789ABCDEFull, 16).plane_offset, 32u);
  EXPECT_EQ(MakeProbe(0x0123456789ABCDEFull, 16).mask, 0x200a004u);
}

TEST_F(FilterTest, EveryKeySetsAtMostFourBitsAndAlmostAlwaysFour) {
  unsigned four = 0;
  constexpr int kKeys = 10000;
  for (int i = 0; i < kKeys; ++i) {
    const int bits = __builtin_popcount(MakeProbe(rng_(), 16).mask);
    ASSERT_GE(bits, 1);
    ASSERT_LE(bits, static_cast<int>(kProbeBits));
    four += bits == 4;
  }
  // Four positions drawn from 32 collide with probability ~18%; fewer
  // distinct bits than that means the positions are not independent.
  EXPECT_GT(four, kKeys * 3 / 4);
}

TEST_F(FilterTest, ProbesUseEveryPlaneOfTheFilter) {
  for (unsigned fanout : kFanouts) {
    std::set<uint32_t> planes;
    for (int i = 0; i < 4000; ++i) {
      const FilterProbe p = MakeProbe(rng_(), fanout);
      ASSERT_EQ(p.plane_offset % fanout, 0u);
      ASSERT_LE(p.plane_offset + fanout, kFilterBlocks);
      planes.insert(p.plane_offset);
    }
    EXPECT_EQ(planes.size(), kFilterBlocks / fanout) << "fanout " << fanout;
  }
}

// The low hash bits choose the directory entries, so the keys of one entry
// share them: the filter bits must come from all bits, or those keys would
// pile onto the same filter bits.
TEST_F(FilterTest, KeysOfOneDirectoryEntryStillSpreadOverTheFilter) {
  constexpr uint64_t kEntryBits = 0xABCDEF;  // 24 low bits in common
  std::set<uint32_t> planes;
  std::set<uint32_t> masks;
  for (int i = 0; i < 1000; ++i) {
    const FilterProbe p = MakeProbe(rng_() << 24 | kEntryBits, 16);
    planes.insert(p.plane_offset);
    masks.insert(p.mask);
  }
  EXPECT_EQ(planes.size(), 4u);
  EXPECT_GT(masks.size(), 900u);
  // And flipping any one bit of a hash moves its bits.
  for (unsigned bit = 0; bit < 64; ++bit) {
    int moved = 0;
    for (int i = 0; i < 100; ++i) {
      const uint64_t h = rng_();
      const FilterProbe a = MakeProbe(h, 16);
      const FilterProbe b = MakeProbe(h ^ (uint64_t{1} << bit), 16);
      moved += a.plane_offset != b.plane_offset || a.mask != b.mask;
    }
    EXPECT_GE(moved, 50) << "hash bit " << bit;
  }
}

// Block j of bucket k is block number j * F + k, at byte offset 4 (j F + k).
TEST_F(FilterTest, AddSetsTheMaskInTheBucketsBlockOfTheKeysPlane) {
  for (unsigned fanout : kFanouts) {
    for (unsigned bucket = 0; bucket < fanout; ++bucket) {
      std::memset(filter_, 0, sizeof(filter_));
      const uint64_t h = rng_();
      const FilterProbe probe = MakeProbe(h, fanout);
      FilterAdd(filter_, bucket, probe);
      const unsigned block = Spec(h, fanout).plane * fanout + bucket;
      EXPECT_EQ(BlockAt(block), probe.mask)
          << "fanout " << fanout << ", bucket " << bucket;
      EXPECT_EQ(NonZeroBlocks(), 1u)
          << "fanout " << fanout << ", bucket " << bucket;
    }
  }
}

TEST_F(FilterTest, AddKeepsTheBitsOfEarlierKeys) {
  // Two keys of one plane in one bucket: both masks stay set.
  FilterProbe a = MakeProbe(rng_(), 16);
  FilterProbe b = MakeProbe(rng_(), 16);
  while (b.plane_offset != a.plane_offset || b.mask == a.mask)
    b = MakeProbe(rng_(), 16);
  FilterAdd(filter_, 3, a);
  FilterAdd(filter_, 3, b);
  EXPECT_EQ(BlockAt(a.plane_offset + 3), a.mask | b.mask);
  EXPECT_EQ(NonZeroBlocks(), 1u);
}

TEST_F(FilterTest, ResetClearsEveryPlaneOfOneBucketOnly) {
  for (unsigned fanout : kFanouts) {
    for (unsigned bucket = 0; bucket < fanout; ++bucket) {
      std::memset(filter_, 0xFF, sizeof(filter_));
      FilterResetBucket(filter_, bucket, fanout);
      for (unsigned n = 0; n < kFilterBlocks; ++n) {
        ASSERT_EQ(BlockAt(n), n % fanout == bucket ? 0u : ~0u)
            << "fanout " << fanout << ", bucket " << bucket << ", block " << n;
      }
    }
  }
}

// Why planes: all bits a lookup needs on one level sit in one cache line.
TEST_F(FilterTest, FilterLineIsThePlaneAndAPlaneFitsOneCacheLine) {
  for (unsigned fanout : kFanouts) {
    for (int i = 0; i < 200; ++i) {
      const FilterProbe p = MakeProbe(rng_(), fanout);
      const char* line = static_cast<const char*>(FilterLine(filter_, p));
      const size_t first =
          static_cast<size_t>(line - reinterpret_cast<const char*>(filter_));
      ASSERT_EQ(first, 4u * p.plane_offset);
      const size_t last = first + 4 * fanout - 1;
      ASSERT_EQ(first / 64, last / 64) << "fanout " << fanout;
    }
  }
}

}  // namespace
}  // namespace plush::table
