// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The pool's bump allocator on its own, over a simulated device and a root
// page of its own (no Pool): where blocks go, when the high-water mark
// moves and becomes durable, growth of the media, and a full pool.
// (pool_test.cc covers the mark across reopening a real pool.)

#include "pool/allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::pool {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kHeap = 32768;  // where the heap of a small pool starts

class AllocatorTest : public ::testing::Test {
 protected:
  // A device of `size` bytes that may grow to `device_max`, and an
  // allocator that may grow the pool to `max_pool_size`.
  void Make(uint64_t size, uint64_t device_max, uint64_t max_pool_size,
            uint64_t heap = kHeap) {
    allocator_.reset();
    media_ = std::make_unique<media::SimMedia>(size, device_max);
    root()->alloc_high_water = heap;
    media_->Persist(&root()->alloc_high_water, 8);
    allocator_ =
        std::make_unique<Allocator>(media_.get(), root(), heap, max_pool_size);
  }
  void SetUp() override { Make(4 * kMiB, 64 * kMiB, 64 * kMiB); }

  RootPage* root() const { return media_->At<RootPage>(kRootOffset); }
  // The mark as a crash right now would leave it.
  uint64_t DurableMark() const {
    return media_
        ->DurableImage()[(kRootOffset + offsetof(RootPage, alloc_high_water)) /
                         8];
  }
  uint64_t Allocate(uint64_t size, uint64_t alignment = 256) {
    uint64_t offset = 0;
    const Status s = allocator_->Allocate(size, alignment, &offset);
    EXPECT_TRUE(s.ok()) << "Allocate(" << size << "): " << s.ToString();
    return offset;
  }

  std::unique_ptr<media::SimMedia> media_;
  std::unique_ptr<Allocator> allocator_;
};

TEST_F(AllocatorTest, BlocksAreAlignedAndFollowEachOtherInTheHeap) {
  const std::pair<uint64_t, uint64_t> requests[] = {
      {100, 8}, {256, 256}, {4096, 4096}, {1, 512}, {3000, 256}, {8, 8}};
  uint64_t end = kHeap;
  for (const auto& [size, alignment] : requests) {
    const uint64_t offset = Allocate(size, alignment);
    EXPECT_EQ(offset % alignment, 0u) << size << " bytes";
    EXPECT_GE(offset, end) << "overlaps the block before";
    EXPECT_LT(offset, end + alignment) << "no more padding than aligning needs";
    end = offset + size;
  }
  EXPECT_EQ(allocator_->used_bytes(), end);
}

// Space beyond the mark is used only after the advanced mark is durable:
// a crash must never hand out again what a block already holds.
TEST_F(AllocatorTest, MarkAdvancesByASlabAndIsDurableBeforeTheBlockIsUsed) {
  EXPECT_EQ(allocator_->mark(), kHeap);
  const uint64_t a = Allocate(256);
  EXPECT_EQ(a, kHeap);
  // At least one slab beyond the old mark, on a slab boundary.
  const uint64_t slab_end =
      (kHeap + 2 * Allocator::kSlab - 1) / Allocator::kSlab * Allocator::kSlab;
  EXPECT_EQ(allocator_->mark(), slab_end);
  EXPECT_EQ(root()->alloc_high_water, slab_end);
  EXPECT_EQ(DurableMark(), slab_end);
}

TEST_F(AllocatorTest, BlocksBelowTheMarkCostNoPersistence) {
  Allocate(256);
  const uint64_t points = media_->persist_points();
  const uint64_t mark = allocator_->mark();
  for (int i = 0; i < 100; ++i) Allocate(256);
  EXPECT_EQ(media_->persist_points(), points)
      << "allocations inside the slab must not fence";
  EXPECT_EQ(allocator_->mark(), mark);
}

TEST_F(AllocatorTest, LargeBlockMovesTheMarkToItsEnd) {
  const uint64_t a = Allocate(3 * Allocator::kSlab + 100, 4096);
  EXPECT_EQ(allocator_->mark(), a + 3 * Allocator::kSlab + 100)
      << "a block larger than a slab advances the mark to its end";
  EXPECT_EQ(DurableMark(), allocator_->mark());
}

// After a crash the next allocator starts at the durable mark: the rest of
// the slab leaks, nothing is handed out twice.
TEST_F(AllocatorTest, AllocatorOverTheSameRootResumesAtTheMark) {
  const uint64_t a = Allocate(1000);
  const uint64_t mark = allocator_->mark();
  Allocator after_crash(media_.get(), root(), kHeap, 64 * kMiB);
  uint64_t b = 0;
  ASSERT_OK(after_crash.Allocate(256, 256, &b));
  EXPECT_EQ(b, mark);
  EXPECT_GE(b, a + 1000);
}

TEST_F(AllocatorTest, TrimMarkLowersTheMarkToTheCursorOnAPageBoundary) {
  const uint64_t a = Allocate(5000);
  allocator_->TrimMark();
  const uint64_t trimmed = (a + 5000 + 4095) / 4096 * 4096;
  EXPECT_EQ(allocator_->mark(), trimmed);
  EXPECT_EQ(DurableMark(), trimmed);
  // Reopening after a clean close leaks nothing.
  Allocator reopened(media_.get(), root(), kHeap, 64 * kMiB);
  uint64_t b = 0;
  ASSERT_OK(reopened.Allocate(64, 64, &b));
  EXPECT_EQ(b, trimmed);
}

TEST_F(AllocatorTest, PoolGrowsInAlignedStepsToWhatItNeeds) {
  ASSERT_EQ(media_->size(), 4 * kMiB);
  const uint64_t a = Allocate(4 * kMiB, 4096);  // ends past the device
  EXPECT_EQ(media_->size() % media::Media::kGrowAlignment, 0u);
  EXPECT_GE(media_->size(), a + 4 * kMiB);
  EXPECT_GE(media_->size(), 5 * kMiB);
  EXPECT_LE(allocator_->mark(), media_->size());
  // Writing the whole block is fine (ASan would catch the device's end).
  std::fill_n(media_->At<char>(a), 4 * kMiB, 'x');
}

// A background thread grows the pool before an allocation would have to:
// once less than a step (a sixty-fourth of the heap, 2 MiB aligned, at most
// kMaxGrowAheadStep) is left above the mark, by one step; never while
// there is room, never past the limit.
TEST_F(AllocatorTest, GrowAheadGrowsOnlyWhenLittleIsLeftAboveTheMark) {
  allocator_->GrowAhead();
  EXPECT_EQ(media_->size(), 4 * kMiB) << "most of the pool is free";
  Allocate(3 * kMiB + kMiB / 2 - kHeap);  // less than a step (2 MiB) left
  ASSERT_EQ(media_->size(), 4 * kMiB);
  const uint64_t mark = allocator_->mark();
  allocator_->GrowAhead();
  EXPECT_EQ(media_->size(), 6 * kMiB) << "one step: 2 MiB at the least";
  EXPECT_EQ(allocator_->mark(), mark) << "growing hands nothing out";
  allocator_->GrowAhead();
  EXPECT_EQ(media_->size(), 6 * kMiB) << "room again: nothing to do";
}

// What the file holds ahead of the heap's need follows the heap: a
// sixty-fourth of it, 2 MiB aligned (a sixteenth would grow 256 MiB to
// 272, then 290).
TEST_F(AllocatorTest, GrowthStepsAreASixtyFourthOfTheHeap) {
  Make(256 * kMiB, 1024 * kMiB, 1024 * kMiB);
  Allocate(253 * kMiB);  // less than a step left above the mark
  allocator_->GrowAhead();
  EXPECT_EQ(media_->size(), 260 * kMiB);
  Allocate(7 * kMiB);  // past the end: the allocation grows the file
  EXPECT_EQ(media_->size(), 266 * kMiB);
}

// The recovery logs below the heap take space only as they are written:
// growth steps follow the heap, not the file (a pool of 16 MiB of logs
// and a 4 MiB heap grows by 2 MiB, not by a quarter of 20 MiB).
TEST_F(AllocatorTest, GrowthStepsFollowTheHeapNotTheFile) {
  Make(20 * kMiB, 64 * kMiB, 64 * kMiB, /*heap=*/16 * kMiB);
  Allocate(4 * kMiB + 4096);
  EXPECT_EQ(media_->size(), 22 * kMiB);
  Make(20 * kMiB, 64 * kMiB, 64 * kMiB, /*heap=*/16 * kMiB);
  Allocate(3 * kMiB + kMiB / 2);
  allocator_->GrowAhead();
  EXPECT_EQ(media_->size(), 22 * kMiB);
}

TEST_F(AllocatorTest, GrowAheadStopsAtTheMaximumPoolSize) {
  Make(4 * kMiB, 64 * kMiB, 4 * kMiB);
  Allocate(4 * kMiB - kHeap - 4096);
  allocator_->GrowAhead();  // the failure is left to an allocation
  EXPECT_EQ(media_->size(), 4 * kMiB);
  uint64_t offset = 0;
  EXPECT_TRUE(allocator_->Allocate(8192, 4096, &offset).IsNoSpace());
}

TEST_F(AllocatorTest, FullPoolIsNoSpaceAndAllocatesNothing) {
  Make(4 * kMiB, 8 * kMiB, 8 * kMiB);
  Allocate(256);
  const uint64_t used = allocator_->used_bytes();
  const uint64_t mark = allocator_->mark();
  uint64_t offset = 12345;
  const Status s = allocator_->Allocate(16 * kMiB, 256, &offset);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message(),
            "pool is full: needs " + std::to_string(used + 16 * kMiB) +
                " bytes, max_pool_size is " + std::to_string(8 * kMiB));
  EXPECT_EQ(offset, 12345u);
  EXPECT_EQ(allocator_->used_bytes(), used);
  EXPECT_EQ(allocator_->mark(), mark);
  EXPECT_EQ(DurableMark(), mark);
  EXPECT_EQ(Allocate(256), used) << "the pool stays usable";
}

// Near the end of the pool a whole slab no longer fits, but the block does:
// the mark then stops at the end of the pool.
TEST_F(AllocatorTest, LastBlockFitsWhereAWholeSlabDoesNot) {
  Make(4 * kMiB, 4 * kMiB, 4 * kMiB);
  const uint64_t big = 4 * kMiB - kHeap - 4096;
  Allocate(big, 4096);
  const uint64_t last = Allocate(2048, 256);
  EXPECT_EQ(last, kHeap + big);
  EXPECT_EQ(allocator_->mark(), 4 * kMiB);
  EXPECT_EQ(DurableMark(), 4 * kMiB);
  uint64_t offset = 0;
  const Status s = allocator_->Allocate(4096, 256, &offset);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(Allocate(2048, 256), last + 2048) << "what is left still fits";
}

// The media may refuse the generous growth step (a device, or a file
// system, with less room than max_pool_size): the exact need is tried next.
TEST_F(AllocatorTest, GrowthFallsBackToTheExactNeedWhenTheStepDoesNotFit) {
  Make(64 * kMiB, 66 * kMiB, 1024 * kMiB);
  const uint64_t a = Allocate(64 * kMiB + 1024, 4096);
  EXPECT_EQ(media_->size(), 66 * kMiB) << "68 MiB was refused, 66 fits";
  EXPECT_EQ(allocator_->mark(), a + 64 * kMiB + 1024);
  uint64_t offset = 0;
  const Status s = allocator_->Allocate(4 * kMiB, 4096, &offset);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message(), "simulated device is full (" +
                             std::to_string(66 * kMiB) + " bytes)");
}

TEST_F(AllocatorTest, ConcurrentAllocationsNeverOverlap) {
  constexpr int kPerThread = 3000;
  std::vector<std::pair<uint64_t, uint64_t>> blocks[2];
  auto work = [&](int t) {
    for (int i = 0; i < kPerThread; ++i) {
      const uint64_t size = 64 + 64 * static_cast<uint64_t>((i * 7 + t) % 5);
      uint64_t offset = 0;
      if (!allocator_->Allocate(size, 64, &offset).ok()) return;
      blocks[t].emplace_back(offset, size);
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  std::vector<std::pair<uint64_t, uint64_t>> all = blocks[0];
  all.insert(all.end(), blocks[1].begin(), blocks[1].end());
  ASSERT_EQ(all.size(), 2u * kPerThread);
  std::sort(all.begin(), all.end());
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_GE(all[i].first, all[i - 1].first + all[i - 1].second)
        << "block " << i << " overlaps the one before";
  }
  EXPECT_LE(all.back().first + all.back().second, allocator_->mark());
  EXPECT_EQ(DurableMark(), allocator_->mark());
}

}  // namespace
}  // namespace plush::pool
