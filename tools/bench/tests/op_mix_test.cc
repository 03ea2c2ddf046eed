// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Operation ratios: validation, names, and the picker's frequencies.

#include "op_mix.h"

#include <gtest/gtest.h>

#include "rng.h"

namespace plush::bench {
namespace {

TEST(OpMixTest, ValidatesRatios) {
  OpMix mix;
  EXPECT_FALSE(mix.Validate().empty());  // sums to 0
  mix[OpType::kLookup] = 0.7;
  mix[OpType::kInsert] = 0.2;
  mix[OpType::kDelete] = 0.1;
  EXPECT_TRUE(mix.Validate().empty()) << mix.Validate();
  mix[OpType::kDelete] = 0.2;
  EXPECT_FALSE(mix.Validate().empty());
  mix[OpType::kDelete] = -0.1;
  EXPECT_FALSE(mix.Validate().empty());
}

TEST(OpMixTest, Names) {
  OpMix mix;
  mix[OpType::kNegativeLookup] = 1;
  EXPECT_EQ(mix.Name(), "negative-lookup");
  mix[OpType::kNegativeLookup] = 0.5;
  mix[OpType::kInsert] = 0.5;
  EXPECT_EQ(mix.Name(), "negative-lookup=0.5,insert=0.5");
}

TEST(OpMixTest, PickerFollowsRatios) {
  OpMix mix;
  mix[OpType::kLookup] = 0.5;
  mix[OpType::kUpdate] = 0.3;
  mix[OpType::kScan] = 0.2;
  const OpPicker picker(mix);
  Rng rng(1);
  int counts[kOpTypeCount] = {};
  constexpr int kPicks = 1000000;
  for (int i = 0; i < kPicks; ++i) {
    ++counts[static_cast<size_t>(picker.Pick(rng.Next()))];
  }
  for (size_t i = 0; i < kOpTypeCount; ++i) {
    EXPECT_NEAR(static_cast<double>(counts[i]) / kPicks, mix.ratios[i], 0.003)
        << OpName(static_cast<OpType>(i));
  }
  // The extremes of the random range pick the first and last kinds.
  EXPECT_EQ(picker.Pick(0), OpType::kLookup);
  EXPECT_EQ(picker.Pick(UINT64_MAX), OpType::kScan);
}

}  // namespace
}  // namespace plush::bench
