// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "glob.h"

#include <gtest/gtest.h>

#include <string>

namespace plush::server {
namespace {

TEST(GlobTest, Wildcards) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", "anything"));
  EXPECT_TRUE(GlobMatch("user:*", "user:42"));
  EXPECT_FALSE(GlobMatch("user:*", "users:42"));
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_FALSE(GlobMatch("h?llo", "hllo"));
  EXPECT_TRUE(GlobMatch("*a*b*c", "xxaxxbxxc"));
  EXPECT_FALSE(GlobMatch("*a*b*c", "xxaxxcxxb"));
  EXPECT_TRUE(GlobMatch("a**b", "ab"));
}

TEST(GlobTest, Brackets) {
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_TRUE(GlobMatch("h[b-a]llo", "hbllo"));  // either order
  EXPECT_FALSE(GlobMatch("h[a-b]llo", "hcllo"));
  EXPECT_TRUE(GlobMatch("[\\]]", "]"));
  EXPECT_TRUE(GlobMatch("[abc", "b"));  // unclosed: the rest is the set
}

TEST(GlobTest, Escapes) {
  EXPECT_TRUE(GlobMatch("a\\*", "a*"));
  EXPECT_FALSE(GlobMatch("a\\*", "ab"));
  EXPECT_TRUE(GlobMatch("a\\", "a\\"));  // trailing backslash: itself
}

TEST(GlobTest, KeysAreBinary) {
  const std::string key("k\0\xff", 3);
  EXPECT_TRUE(GlobMatch("k*", key));
  EXPECT_TRUE(GlobMatch(std::string("k\0?", 3), key));
  EXPECT_FALSE(GlobMatch("k", key));
}

TEST(GlobTest, NoExponentialBacktracking) {
  // Redis's recursive matcher takes exponential time on this.
  const std::string text(10000, 'a');
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*a*a*a*a*b", text));
}

}  // namespace
}  // namespace plush::server
