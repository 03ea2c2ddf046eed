// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DB::MultiGet gives, key by key, the answers Get gives: hits, misses,
// deleted keys, 8/8 and variable-length records, duplicate keys in one
// call, keys on every level, and oversized keys (their own error).

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "testutil.h"

namespace plush {
namespace {

using test::ScratchPool;
using test::Word;

// A key of id `id`: 8 bytes for even ids, longer for odd ones.
std::string Key(uint64_t id) {
  return id % 2 == 0 ? Word(id) : "key-" + std::to_string(id);
}
std::string Value(uint64_t id, uint64_t version) {
  return version % 3 == 0 ? Word(id * 1000 + version)
                          : std::string(version % 50, 'v') + std::to_string(id);
}

void ExpectSameAsGet(DB* db, const std::vector<std::string>& keys,
                     const std::map<std::string, std::string>& model) {
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  const std::vector<Status> statuses = db->MultiGet({}, views, &values);
  ASSERT_EQ(statuses.size(), keys.size());
  ASSERT_EQ(values.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string value;
    const Status s = db->Get({}, keys[i], &value);
    EXPECT_EQ(statuses[i].code(), s.code()) << i << ": " << statuses[i].ToString();
    auto it = model.find(keys[i]);
    if (it == model.end()) {
      EXPECT_TRUE(statuses[i].IsNotFound()) << i;
      EXPECT_TRUE(values[i].empty());
    } else {
      ASSERT_TRUE(statuses[i].ok()) << i << ": " << statuses[i].ToString();
      EXPECT_EQ(values[i], it->second) << i;
      EXPECT_EQ(value, it->second) << i;
    }
  }
}

TEST(MultiGetTest, AnswersLikeGetOnEveryLevel) {
  ScratchPool file("multiget");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(5);
  for (uint64_t version = 0; version < 6; ++version) {
    for (uint64_t id = 0; id < 1500; ++id) {
      if (rng() % 3 != 0) continue;
      const std::string key = Key(id);
      if (rng() % 7 == 0) {
        ASSERT_OK(db->Delete({}, key));
        model.erase(key);
      } else {
        ASSERT_OK(db->Put({}, key, Value(id, version)));
        model[key] = Value(id, version);
      }
    }
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  ASSERT_GE(stats.levels, 4u) << "keys must live on several levels";
  std::vector<std::string> keys;
  for (uint64_t id = 0; id < 2000; ++id) keys.push_back(Key(id));  // + misses
  for (size_t n : {size_t{1}, size_t{7}, size_t{16}, size_t{33}, keys.size()}) {
    ExpectSameAsGet(db.get(),
                    std::vector<std::string>(keys.begin(), keys.begin() + n),
                    model);
  }
  // The same key several times in one call, and an empty call.
  ExpectSameAsGet(db.get(), {Key(2), Key(3), Key(2), Key(3), Key(2)}, model);
  ExpectSameAsGet(db.get(), {}, model);
}

TEST(MultiGetTest, OversizedKeysFailAloneAndAClosedDbFailsAll) {
  ScratchPool file("multiget_errors");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  ASSERT_OK(db->Put({}, "a", "1"));
  const std::string big(kMaxKeySize + 1, 'k');
  std::vector<std::string> values;
  std::vector<Status> s = db->MultiGet({}, {"a", big, "b"}, &values);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_OK(s[0]);
  EXPECT_EQ(values[0], "1");
  EXPECT_EQ(s[1].ToString(),
            "InvalidArgument: key of 1025 bytes exceeds the limit of 1024 "
            "bytes");
  EXPECT_TRUE(s[2].IsNotFound());
  EXPECT_EQ(s[2].ToString(), "NotFound: key not found");
  ASSERT_OK(db->Close());
  s = db->MultiGet({}, {"a", "b"}, &values);
  for (const Status& st : s) EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
}

}  // namespace
}  // namespace plush
