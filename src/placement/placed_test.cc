// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Placed on its own: work is done again, on the map's new version, for as
// long as it reports that the map moved, and no longer.

#include "placement/placed.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "testutil.h"

namespace plush {
namespace {

std::shared_ptr<RangeMap> FourUnits() {
  return std::make_shared<RangeMap>(2, RangeMap::ByLeadingBits(2));
}

// Splits position 0 of the map at "A": a change, which moves the version.
void Split(RangeMap& map) {
  RangeMap::Change split;
  split.kind = RangeMap::Change::Kind::kSplit;
  split.position = 0;
  split.unit = 0;
  split.separator = "A";
  map.Apply(split);
}

TEST(PlacedTest, WorkThatDidNotMoveIsDoneOnce) {
  const KeyHasher hash_pool;
  int calls = 0;
  ASSERT_OK(Placed(hash_pool, [&](uint64_t version, bool* moved) {
    ++calls;
    EXPECT_EQ(version, 0u);
    *moved = false;
    return Status::OK();
  }));
  EXPECT_EQ(calls, 1);
}

TEST(PlacedTest, WorkIsDoneAgainOnTheNewVersionUntilItDidNotMove) {
  const std::shared_ptr<RangeMap> map = FourUnits();
  const KeyHasher hasher(map);
  std::vector<uint64_t> versions;
  ASSERT_OK(Placed(hasher, [&](uint64_t version, bool* moved) {
    versions.push_back(version);
    // A re-balance changes the map during the first two attempts.
    if (versions.size() <= 2) Split(*map);
    *moved = !hasher.Unchanged(version);
    return Status::OK();
  }));
  ASSERT_EQ(versions.size(), 3u);
  EXPECT_LT(versions[0], versions[1]);
  EXPECT_LT(versions[1], versions[2]);
  EXPECT_EQ(versions[2], hasher.version());
}

TEST(PlacedTest, AnErrorEndsTheWorkEvenIfTheMapMoved) {
  const std::shared_ptr<RangeMap> map = FourUnits();
  const KeyHasher hasher(map);
  int calls = 0;
  const Status s = Placed(hasher, [&](uint64_t, bool* moved) {
    ++calls;
    *moved = true;
    return Status::NoSpace("pool full");
  });
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_EQ(s.ToString(), "NoSpace: pool full");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace plush
