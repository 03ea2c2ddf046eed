// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// UnitTails on its own: a unit's largest key and whether its writes keep
// growing, from the writes noted and the copies set.

#include "db/unit_tails.h"

#include <gtest/gtest.h>

#include <string>

namespace plush {
namespace {

TEST(UnitTailsTest, AnExistingPoolsUnitsAreNotKnown) {
  UnitTails tails(4, /*empty=*/false);
  tails.Note(1, "a");
  tails.Note(1, "b");
  tails.Note(1, "c");
  EXPECT_FALSE(tails.Largest(1).has_value())
      << "what the unit held before the writes is not known";
  EXPECT_FALSE(tails.Growing(1));
}

TEST(UnitTailsTest, GrowingWritesIntoANewPoolsUnit) {
  UnitTails tails(4, /*empty=*/true);
  EXPECT_FALSE(tails.Largest(2).has_value()) << "it holds nothing";
  tails.Note(2, "k1");
  EXPECT_EQ(tails.Largest(2), "k1");
  EXPECT_FALSE(tails.Growing(2)) << "one write says nothing of a trend";
  tails.Note(2, "k2");
  tails.Note(2, "k3");
  EXPECT_TRUE(tails.Growing(2));
  EXPECT_EQ(tails.Largest(2), "k3");
  EXPECT_FALSE(tails.Growing(3)) << "units are apart";
}

// Writes at or below the largest key end growth once they outnumber the
// writes above it three to one (after a few): writers of one stream on a
// few threads arrive nearly in order; keys in no order seldom pass the
// largest of a unit.
TEST(UnitTailsTest, WritesBelowTheLargestKeyEndGrowthWhenTheyPrevail) {
  UnitTails tails(3, /*empty=*/true);
  tails.Note(0, "k01");
  tails.Note(0, "k03");
  tails.Note(0, "k02");  // two threads' keys, a little out of order
  tails.Note(0, "k05");
  tails.Note(0, "k04");
  EXPECT_TRUE(tails.Growing(0));
  EXPECT_EQ(tails.Largest(0), "k05");

  for (const char* key : {"k1", "k3", "k2", "k0", "k1", "k0", "k2", "k1",
                          "k0", "k1", "k2", "k0", "k1"}) {
    tails.Note(1, key);  // keys in no order
  }
  EXPECT_FALSE(tails.Growing(1));
  EXPECT_FALSE(tails.Largest(1).has_value())
      << "not followed once writes stop growing";
  tails.Note(1, "k9");
  tails.Note(1, "ka");
  EXPECT_FALSE(tails.Growing(1)) << "until the re-balancer sets it again";

  tails.Note(2, "k1");
  tails.Note(2, "k2");
  for (int i = 0; i < 12; ++i) tails.Note(2, "k2");  // overwrites of it
  EXPECT_FALSE(tails.Growing(2));
}

TEST(UnitTailsTest, CopiesSetTheLargestKey) {
  UnitTails tails(2, /*empty=*/false);
  tails.Set(0, std::string_view("m"));
  EXPECT_EQ(tails.Largest(0), "m");
  EXPECT_FALSE(tails.Growing(0)) << "no writes since";
  tails.Note(0, "n");
  tails.Note(0, "o");
  EXPECT_TRUE(tails.Growing(0));
  tails.Set(1, std::nullopt);  // copies of nothing: an empty unit
  tails.Note(1, "");           // the empty key is a key
  tails.Note(1, "a");
  EXPECT_TRUE(tails.Growing(1));
  EXPECT_EQ(tails.Largest(1), "a");
}

TEST(UnitTailsTest, ClosedAndForgottenUnits) {
  UnitTails tails(2, /*empty=*/true);
  tails.Note(0, "a");
  tails.Note(0, "b");
  EXPECT_FALSE(tails.Retired(0));
  tails.Closed(0);  // a split above "b": its range ends there
  EXPECT_FALSE(tails.Growing(0));
  EXPECT_TRUE(tails.Retired(0));
  EXPECT_EQ(tails.Largest(0), "b") << "still its largest key";
  tails.Note(0, "a");
  EXPECT_TRUE(tails.Retired(0)) << "a write below its largest key";
  tails.Forget(0);
  EXPECT_FALSE(tails.Largest(0).has_value());
  EXPECT_FALSE(tails.Retired(0)) << "a move changed what it holds";
  tails.Closed(1);
  tails.Set(1, std::string_view("c"));
  EXPECT_FALSE(tails.Retired(1)) << "copies moved into it";
}

TEST(UnitTailsTest, LongKeysAreNotFollowed) {
  UnitTails tails(1, /*empty=*/true);
  const std::string longest(UnitTails::kMaxKey, 'a');
  tails.Note(0, longest);
  EXPECT_EQ(tails.Largest(0), longest);
  tails.Note(0, longest + "b");
  EXPECT_FALSE(tails.Largest(0).has_value());
  tails.Set(0, std::string_view(longest + "b"));
  EXPECT_FALSE(tails.Largest(0).has_value());
}

// Keys that fall: writes into a unit that was empty go below every key it
// holds; its smallest key is followed.
TEST(UnitTailsTest, FallingKeysAreFollowedByTheirSmallest) {
  UnitTails tails(4, /*empty=*/true);
  tails.Note(0, "k9");
  EXPECT_FALSE(tails.Falling(0)) << "one write says nothing of a trend";
  tails.Note(0, "k8");
  EXPECT_TRUE(tails.Falling(0));
  EXPECT_FALSE(tails.Growing(0));
  EXPECT_TRUE(tails.Monotonic(0));
  tails.Note(0, "k7");
  EXPECT_EQ(tails.Smallest(0), "k7");
  EXPECT_EQ(tails.Largest(0), "k9");
  // A few writes behind the edge (writers of one stream on a few
  // threads), then too many: the keys no longer fall.
  tails.Note(0, "k8");
  EXPECT_TRUE(tails.Falling(0));
  for (int i = 0; i < 20; ++i) tails.Note(0, "k9");
  EXPECT_FALSE(tails.Falling(0));
  EXPECT_FALSE(tails.Smallest(0).has_value());

  // Growing keys never become falling ones.
  tails.Note(1, "a");
  tails.Note(1, "b");
  tails.Note(1, "a");
  EXPECT_TRUE(tails.Growing(1));
  EXPECT_FALSE(tails.Falling(1));
  // Two writers of one growing stream: the second key into the unit may
  // come below the first; the keys after it grow.
  tails.Note(3, "k2");
  tails.Note(3, "k1");
  EXPECT_TRUE(tails.Falling(3)) << "for now";
  for (const char* key : {"k4", "k3", "k5", "k6", "k8", "k7", "k9"})
    tails.Note(3, key);
  EXPECT_TRUE(tails.Growing(3));
  EXPECT_FALSE(tails.Falling(3));
  EXPECT_EQ(tails.Largest(3), "k9");

  // A unit that holds copies knows its largest key, not its smallest: a
  // write below it does not make its keys fall.
  tails.Set(2, std::string_view("m"));
  tails.Note(2, "c");
  tails.Note(2, "b");
  EXPECT_FALSE(tails.Falling(2));
  EXPECT_FALSE(tails.Smallest(2).has_value());
  // Closed: retired, as a growing unit split above its keys.
  tails.Forget(0);
  tails.Set(0, std::nullopt);
  tails.Note(0, "z");
  tails.Note(0, "y");
  ASSERT_TRUE(tails.Falling(0));
  tails.Closed(0);
  EXPECT_TRUE(tails.Retired(0));
  EXPECT_FALSE(tails.Monotonic(0));
}

}  // namespace
}  // namespace plush
