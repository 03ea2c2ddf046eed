// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// IterationCheck against iterations that are right, and wrong in every way
// it must notice.

#include "iteration_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "phases.h"

namespace plush::bench {
namespace {

class IterationCheckTest : public ::testing::Test {
 protected:
  IterationCheckTest() : keys_(SizeSpec::Fixed(16), SizeSpec::Fixed(40)) {
    config_.records = 100;
    config_.threads = 2;
  }

  // Visits `records` with their own keys and values; false at the first
  // refusal.
  bool VisitAll(IterationCheck& check, const std::vector<uint64_t>& records) {
    RecordBuilder builder(keys_);
    for (uint64_t r : records) {
      const std::string key(builder.Key(r));
      if (!check.Visit(key, builder.Value(r))) return false;
    }
    return true;
  }

  // The loaded records, then those the run's threads inserted.
  std::vector<uint64_t> Written(const std::vector<uint64_t>& inserted) {
    std::vector<uint64_t> records;
    for (uint64_t r = 0; r < config_.records; ++r) records.push_back(r);
    for (unsigned t = 0; t < inserted.size(); ++t) {
      for (uint64_t k = 0; k < inserted[t]; ++k) {
        records.push_back(InsertedRecord(config_, t, k));
      }
    }
    return records;
  }

  BenchConfig config_;
  KeySpace keys_;
};

TEST_F(IterationCheckTest, EveryRecordOnceInAnyOrderPasses) {
  const std::vector<uint64_t> inserted = {3, 5};
  IterationCheck check(config_, keys_, inserted, nullptr);
  EXPECT_EQ(check.required(), 108u);
  std::vector<uint64_t> records = Written(inserted);
  std::reverse(records.begin(), records.end());
  EXPECT_TRUE(VisitAll(check, records)) << check.error();
  EXPECT_TRUE(check.Finish()) << check.error();
  EXPECT_EQ(check.visited(), 108u);
}

TEST_F(IterationCheckTest, AMissingRecordIsNamed) {
  IterationCheck check(config_, keys_, {2, 2}, nullptr);
  std::vector<uint64_t> records = Written({2, 2});
  records.erase(records.begin() + 42);
  ASSERT_TRUE(VisitAll(check, records)) << check.error();
  EXPECT_FALSE(check.Finish());
  EXPECT_NE(check.error().find("did not return record 42 "), std::string::npos)
      << check.error();
  EXPECT_NE(check.error().find("(1 records missing)"), std::string::npos)
      << check.error();
}

TEST_F(IterationCheckTest, ARecordTwiceFails) {
  IterationCheck check(config_, keys_, {}, nullptr);
  EXPECT_FALSE(VisitAll(check, {1, 2, 3, 2}));
  EXPECT_NE(check.error().find("record 2 (key 0x"), std::string::npos)
      << check.error();
  EXPECT_NE(check.error().find("twice"), std::string::npos) << check.error();
}

TEST_F(IterationCheckTest, KeysNeverWrittenFail) {
  RecordBuilder builder(keys_);
  // Beyond the loaded records, with no inserts; an absent key; junk.
  for (const std::string& key :
       {std::string(builder.Key(100)), std::string(builder.AbsentKey(1)),
        std::string("short"), std::string(16, 'x')}) {
    IterationCheck check(config_, keys_, {}, nullptr);
    EXPECT_FALSE(check.Visit(key, builder.Value(1)));
    EXPECT_NE(check.error().find("the iteration returned key 0x"),
              std::string::npos)
        << check.error();
  }
}

TEST_F(IterationCheckTest, AWrongValueFails) {
  IterationCheck check(config_, keys_, {}, nullptr);
  RecordBuilder builder(keys_);
  const std::string key(builder.Key(7));
  EXPECT_FALSE(check.Visit(key, builder.Value(8)));
  EXPECT_NE(check.error().find("record 7 (key 0x"), std::string::npos)
      << check.error();
  EXPECT_NE(check.error().find("wrong value"), std::string::npos)
      << check.error();
}

TEST_F(IterationCheckTest, DeletedRecordsMayComeOnce) {
  DeletedSet deleted(config_.records);
  deleted.Add(10);
  deleted.Add(11);
  std::vector<uint64_t> records = Written({});
  records.erase(records.begin() + 10);  // record 10: gone; 11 re-put
  IterationCheck check(config_, keys_, {}, &deleted);
  EXPECT_EQ(check.required(), 98u);
  ASSERT_TRUE(VisitAll(check, records)) << check.error();
  EXPECT_TRUE(check.Finish()) << check.error();

  IterationCheck twice(config_, keys_, {}, &deleted);
  EXPECT_FALSE(VisitAll(twice, {11, 11}));
}

}  // namespace
}  // namespace plush::bench
