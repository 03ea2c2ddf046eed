// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "redis_integer.h"

#include <gtest/gtest.h>

#include <limits>

namespace plush::server {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(RedisIntegerTest, CanonicalSpellingsParse) {
  EXPECT_EQ(ParseInteger("0"), 0);
  EXPECT_EQ(ParseInteger("42"), 42);
  EXPECT_EQ(ParseInteger("-42"), -42);
  EXPECT_EQ(ParseInteger("9223372036854775807"), kMax);
  EXPECT_EQ(ParseInteger("-9223372036854775808"), kMin);
}

TEST(RedisIntegerTest, OtherSpellingsAndOverflowsDoNot) {
  for (const char* text : {"", "-", "-0", "+1", "01", " 1", "1 ", "1.0", "0x10",
                           "1e3", "abc", "9223372036854775808",
                           "-9223372036854775809", "99999999999999999999999"}) {
    EXPECT_EQ(ParseInteger(text), std::nullopt) << text;
  }
}

TEST(RedisIntegerTest, Unsigned) {
  EXPECT_EQ(ParseUnsigned("18446744073709551615"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ParseUnsigned("18446744073709551616"), std::nullopt);
  EXPECT_EQ(ParseUnsigned("-1"), std::nullopt);
}

TEST(RedisIntegerTest, CheckedAdd) {
  EXPECT_EQ(CheckedAdd(kMax - 1, 1), kMax);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMin, kMax), -1);
}

}  // namespace
}  // namespace plush::server
