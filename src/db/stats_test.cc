// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Stats (db/stats.cc): the one list of fields, and a layout that stays put.

#include "plush/stats.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace plush {
namespace {

// Collects every field as text, in visiting order.
class Collect : public StatsTextVisitor {
 public:
  Collect() : StatsTextVisitor("true", "false") {}
  void Field(std::string_view name, const std::string& text) override {
    names.emplace_back(name);
    fields[std::string(name)] = text;
  }
  std::vector<std::string> names;
  std::map<std::string, std::string> fields;
};

// A user's binary compiled against this header must keep working with a
// library that reports more figures: Stats does not grow, later figures go
// to more_counts. (Sizes of the x86-64 libstdc++ ABI this project builds
// for; a change here is an ABI break, not a test to update.)
TEST(StatsTest, LayoutIsFrozen) {
#if defined(__x86_64__) && defined(__GLIBCXX__) && _GLIBCXX_USE_CXX11_ABI
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  EXPECT_EQ(offsetof(Stats, more_counts), 464u)
      << "a field was added to Stats: add it to more_counts instead";
#pragma GCC diagnostic pop
  EXPECT_EQ(sizeof(Stats), 488u)
      << "a field was added to Stats: add it to more_counts instead";
#else
  GTEST_SKIP() << "layout figures are those of x86-64 libstdc++";
#endif
}

TEST(StatsTest, MoreCountsFollowTheFieldsByName) {
  Stats stats;
  stats.backend = "file";
  stats.migrations = 12;
  stats.records_per_level = {3, 4};
  stats.more_counts = {{"later_figure", 7}, {"another", 0}};
  Collect c;
  stats.ForEachField(&c);
  EXPECT_EQ(c.fields["backend"], "file");
  EXPECT_EQ(c.fields["migrations"], "12");
  EXPECT_EQ(c.fields["records_per_level"], "3,4");
  EXPECT_EQ(c.fields["later_figure"], "7");
  EXPECT_EQ(c.fields["another"], "0");
  ASSERT_GE(c.names.size(), 2u);
  EXPECT_EQ(c.names[c.names.size() - 2], "later_figure");
  EXPECT_EQ(c.names.back(), "another");
}

TEST(StatsTest, EveryFieldHasItsOwnName) {
  Collect c;
  Stats().ForEachField(&c);
  const std::set<std::string> unique(c.names.begin(), c.names.end());
  EXPECT_EQ(unique.size(), c.names.size());
  EXPECT_EQ(c.names.front(), "backend");
  EXPECT_EQ(c.names.back(), "recovered_log_entries")
      << "a default Stats has no more_counts";
}

}  // namespace
}  // namespace plush
