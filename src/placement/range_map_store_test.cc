// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RangeMapStore on its own, on a simulated device whose first words stand
// for the root page's: a map created, changed (in the change log, then as
// a new base once the log is full) and loaded back is the map that was
// installed; what does not apply or does not check is refused, saying why.

#include "placement/range_map_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush {
namespace {

constexpr uint64_t kDeviceBytes = 8ull << 20;
constexpr uint64_t kHeap = 64 << 10;  // where regions may lie, from here

// 8 units in 5 positions; units 1, 4 and 6 are free.
RangeMap::Layout SomeLayout() {
  RangeMap::Layout layout;
  layout.separators = {"c", "k", "p", "zz"};
  layout.units = {5, 0, 7, 2, 3};
  return layout;
}

RangeMap::Change Reassign(uint32_t position, uint32_t unit) {
  RangeMap::Change change;
  change.kind = RangeMap::Change::Kind::kReassign;
  change.position = position;
  change.unit = unit;
  return change;
}

class RangeMapStoreTest : public ::testing::Test {
 protected:
  RangeMapStoreTest() : media_(kDeviceBytes, kDeviceBytes) {}

  // A store on the device's root words; regions are allocated upwards from
  // the end of the first map's region.
  std::unique_ptr<RangeMapStore> NewStore() {
    uint64_t* words = media_.At<uint64_t>(0);
    return std::make_unique<RangeMapStore>(
        &media_,
        RangeMapStore::RootWords{words, words + 1, words + 2, words + 3},
        /*unit_bits=*/3, [this](uint64_t bytes, uint64_t* offset) {
          if (heap_end_ + bytes > kDeviceBytes) return Status::NoSpace("full");
          *offset = heap_end_;
          heap_end_ += bytes;
          return Status::OK();
        });
  }
  std::unique_ptr<RangeMapStore> Created() {
    std::unique_ptr<RangeMapStore> store = NewStore();
    store->Create(kHeap, SomeLayout());
    heap_end_ = kHeap + RangeMapStore::CapacityFor(SomeLayout());
    return store;
  }
  Status Load(RangeMapStore* store) { return store->Load(kHeap, heap_end_); }
  uint64_t* word(int i) { return media_.At<uint64_t>(0) + i; }

  media::SimMedia media_;
  uint64_t heap_end_ = kHeap;
};

TEST_F(RangeMapStoreTest, ACreatedMapLoadsBack) {
  const std::unique_ptr<RangeMapStore> created = Created();
  EXPECT_EQ(created->map()->Read().units, SomeLayout().units);
  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  ASSERT_OK(Load(loaded.get()));
  EXPECT_EQ(loaded->map()->Read().units, SomeLayout().units);
  EXPECT_EQ(loaded->map()->Read().separators, SomeLayout().separators);
  EXPECT_EQ(loaded->generation(), 0u);
}

TEST_F(RangeMapStoreTest, ChangesAreInstalledAndLoadBack) {
  const std::unique_ptr<RangeMapStore> store = Created();
  const uint64_t version = store->map()->version();
  ASSERT_OK(store->Switch(Reassign(0, 1)));
  RangeMap::Change split;
  split.kind = RangeMap::Change::Kind::kSplit;
  split.position = 1;
  split.unit = 4;
  split.separator = "f";
  ASSERT_OK(store->Switch(split));
  EXPECT_EQ(store->generation(), 2u);
  EXPECT_FALSE(store->map()->Unchanged(version));
  const RangeMap::Layout want = store->map()->Read();
  EXPECT_EQ(want.units, (std::vector<uint32_t>{1, 0, 4, 7, 2, 3}));

  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  ASSERT_OK(Load(loaded.get()));
  EXPECT_EQ(loaded->generation(), 2u);
  EXPECT_EQ(loaded->map()->Read().units, want.units);
  EXPECT_EQ(loaded->map()->Read().separators, want.separators);
}

// A split below a unit's keys, in the change log, then in a new base.
TEST_F(RangeMapStoreTest, ASplitBelowLoadsBack) {
  const std::unique_ptr<RangeMapStore> store = Created();
  RangeMap::Change below;
  below.kind = RangeMap::Change::Kind::kSplitBelow;
  below.position = 2;  // unit 7, ["k", "p")
  below.unit = 4;
  below.separator = "m";
  ASSERT_OK(store->Switch(below));
  const RangeMap::Layout want = store->map()->Read();
  EXPECT_EQ(want.units, (std::vector<uint32_t>{5, 0, 4, 7, 2, 3}));
  EXPECT_EQ(want.separators,
            (std::vector<std::string>{"c", "k", "m", "p", "zz"}));
  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  ASSERT_OK(Load(loaded.get()));
  EXPECT_EQ(loaded->map()->Read().units, want.units);
  EXPECT_EQ(loaded->map()->Read().separators, want.separators);
  EXPECT_EQ(loaded->map()->RangeOfUnit(7)->lower, "m");
  // Until the log is full and the map is written as a new base.
  const uint64_t first_base = *word(0);
  for (uint32_t i = 0; *word(0) == first_base; ++i)
    ASSERT_OK(store->Switch(Reassign(0, i % 2 == 0 ? 1 : 5)));
  const std::unique_ptr<RangeMapStore> rebased = NewStore();
  ASSERT_OK(Load(rebased.get()));
  EXPECT_EQ(rebased->map()->Read().units, store->map()->Read().units);
  EXPECT_EQ(rebased->map()->Read().separators, want.separators);
}

TEST_F(RangeMapStoreTest, AFullChangeLogBecomesANewBase) {
  const std::unique_ptr<RangeMapStore> store = Created();
  const uint64_t first_base = *word(0);
  // 16 bytes a change: the smallest log (64 KiB) takes 4,096 of them.
  constexpr uint32_t kChanges = 5000;
  for (uint32_t i = 0; i < kChanges; ++i)
    ASSERT_OK(store->Switch(Reassign(0, i % 2 == 0 ? 1 : 5)));
  EXPECT_NE(*word(0), first_base);   // a new base is in use
  EXPECT_EQ(*word(1), first_base);   // and the first is the spare
  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  ASSERT_OK(Load(loaded.get()));
  EXPECT_EQ(loaded->generation(), kChanges);
  EXPECT_EQ(loaded->map()->Read().units, store->map()->Read().units);
}

TEST_F(RangeMapStoreTest, AChangeThatDoesNotApplyChangesNothing) {
  const std::unique_ptr<RangeMapStore> store = Created();
  const Status s = store->Switch(Reassign(9, 1));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(std::string(s.message()).rfind("range map change: ", 0), 0u)
      << s.ToString();
  EXPECT_EQ(store->generation(), 0u);
  EXPECT_EQ(*word(2), 0u);  // no change log was allocated
  EXPECT_EQ(store->map()->Read().units, SomeLayout().units);
}

TEST_F(RangeMapStoreTest, AReferenceOutsideTheHeapIsCorruption) {
  const std::unique_ptr<RangeMapStore> created = Created();
  *word(0) = (kDeviceBytes - 4096) | 12;  // a page past the heap's end
  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  const Status s = Load(loaded.get());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(),
            "range map: the root page's active reference (" +
                std::to_string((kDeviceBytes - 4096) | 12) +
                ") is not a region inside the allocated heap");
}

TEST_F(RangeMapStoreTest, ChangesCountedWithoutALogAreCorruption) {
  const std::unique_ptr<RangeMapStore> created = Created();
  *word(3) = RangeLogState{0, 3}.Encode();
  const std::unique_ptr<RangeMapStore> loaded = NewStore();
  const Status s = Load(loaded.get());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "range map: 3 changes counted, and no change log");
}

}  // namespace
}  // namespace plush
