// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "inline_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace plush::server {
namespace {

std::vector<std::string> Split(std::string_view line) {
  std::vector<std::string> args;
  EXPECT_TRUE(SplitInlineArgs(line, &args)) << line;
  return args;
}

bool Splits(std::string_view line) {
  std::vector<std::string> args;
  return SplitInlineArgs(line, &args);
}

using Args = std::vector<std::string>;

TEST(InlineArgsTest, Whitespace) {
  EXPECT_EQ(Split(""), Args{});
  EXPECT_EQ(Split(" \t "), Args{});
  EXPECT_EQ(Split("  set\tk   v "), (Args{"set", "k", "v"}));
}

TEST(InlineArgsTest, DoubleQuotes) {
  EXPECT_EQ(Split(R"("a b" "")"), (Args{"a b", ""}));
  EXPECT_EQ(Split(R"("\n\r\t\b\a\"\\\q")"), (Args{"\n\r\t\b\a\"\\q"}));
  EXPECT_EQ(Split(R"("\x41\x7a\x4")"), (Args{"Az"
                                             "x4"}));  // not two digits
  EXPECT_EQ(Split(R"("\x00")"), (Args{std::string(1, '\0')}));
  EXPECT_EQ(Split(R"(a"b c")"), (Args{"ab c"}));  // opened mid-argument
}

TEST(InlineArgsTest, SingleQuotes) {
  EXPECT_EQ(Split(R"('a "b' 'it\'s' '\n')"), (Args{"a \"b", "it's", "\\n"}));
}

TEST(InlineArgsTest, UnbalancedOrRunOnQuotesFail) {
  EXPECT_FALSE(Splits(R"("abc)"));
  EXPECT_FALSE(Splits(R"('abc)"));
  EXPECT_FALSE(Splits(R"("abc"d)"));
  EXPECT_FALSE(Splits(R"('abc'd)"));
  EXPECT_FALSE(Splits(R"("abc\")"));
}

TEST(InlineArgsTest, NulIsAnOrdinaryByte) {
  EXPECT_EQ(Split(std::string_view("a\0b c", 5)),
            (Args{std::string("a\0b", 3), "c"}));
}

}  // namespace
}  // namespace plush::server
