// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The expected strings are what Redis 7.0 answers to INCRBYFLOAT on
// x86-64 Linux for the same operands.

#include "redis_float.h"

#include <gtest/gtest.h>

namespace plush::server {
namespace {

TEST(RedisFloatTest, ParsesWhatStrtoldReads) {
  EXPECT_EQ(ParseFloat("10.5"), 10.5L);
  EXPECT_EQ(ParseFloat("-3"), -3.0L);
  EXPECT_EQ(ParseFloat("5.0e3"), 5000.0L);
  EXPECT_EQ(ParseFloat("+.5"), 0.5L);
  EXPECT_EQ(ParseFloat("0x10"), 16.0L);
  EXPECT_EQ(ParseFloat("1e400"), 1e400L);  // beyond a double, not a long double
  EXPECT_TRUE(ParseFloat("inf").has_value());
}

TEST(RedisFloatTest, RefusesTheRest) {
  for (const char* text : {"", " 1", "1 ", "abc", "1.5x", "nan", "1e-5000",
                           "1e5000", "--1"}) {
    EXPECT_EQ(ParseFloat(text), std::nullopt) << text;
  }
  EXPECT_EQ(ParseFloat(std::string_view("1\0", 2)), std::nullopt);
}

TEST(RedisFloatTest, FormatsLikeIncrByFloat) {
  EXPECT_EQ(FormatFloat(10.5L + 0.1L), "10.6");
  EXPECT_EQ(FormatFloat(10.5L + 0.1L + 5000.0L), "5010.60000000000000009");
  EXPECT_EQ(FormatFloat(5000.0L), "5000");
  EXPECT_EQ(FormatFloat(*ParseFloat("3.0e-1")), "0.3");
  EXPECT_EQ(FormatFloat(1e30L), "1000000000000000000024696061952");
  EXPECT_EQ(FormatFloat(1e-20L), "0");
  EXPECT_EQ(FormatFloat(-1e-20L), "0");  // "-0" in printf's spelling
  EXPECT_EQ(FormatFloat(-0.0L), "0");
  EXPECT_EQ(FormatFloat(-2.25L), "-2.25");
}

}  // namespace
}  // namespace plush::server
