// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Loads libplush_pibench.so as PiBench does (dlopen, dlsym("create_tree"))
// and drives a tree through the tree_api ABI.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "tree_api.h"

namespace {

using CreateTree = tree_api* (*)(const tree_options_t&);

std::string Key(uint64_t i) {
  std::string key(8, '\0');
  std::memcpy(key.data(), &i, sizeof(i));
  return key;
}

// Keys in order as bytes: big-endian.
std::string OrderedKey(uint64_t i) { return Key(__builtin_bswap64(i)); }

class PibenchWrapperTest : public testing::Test {
 protected:
  void SetUp() override {
    library_ = dlopen(PLUSH_PIBENCH_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    create_tree_ = reinterpret_cast<CreateTree>(dlsym(library_, "create_tree"));
    ASSERT_NE(create_tree_, nullptr) << dlerror();
    char dir[] = "/tmp/plush-pibench-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    unsetenv("PLUSH_PIBENCH_PARTITIONING");
    if (library_ != nullptr) dlclose(library_);
    std::filesystem::remove_all(dir_);
  }

  void* library_ = nullptr;
  CreateTree create_tree_ = nullptr;
  std::string dir_;
};

TEST_F(PibenchWrapperTest, InsertFindUpdateRemove) {
  tree_options_t options;
  options.pool_path = dir_ + "/pool";
  options.num_threads = 1;
  std::unique_ptr<tree_api> tree(create_tree_(options));
  ASSERT_NE(tree, nullptr);

  constexpr uint64_t kRecords = 1000;
  for (uint64_t i = 0; i < kRecords; ++i) {
    const std::string key = Key(i);
    const std::string value = Key(i * 3);
    ASSERT_TRUE(
        tree->insert(key.data(), key.size(), value.data(), value.size()));
  }
  char value[8];
  for (uint64_t i = 0; i < kRecords; ++i) {
    const std::string key = Key(i);
    ASSERT_TRUE(tree->find(key.data(), key.size(), value)) << i;
    EXPECT_EQ(std::string(value, 8), Key(i * 3));
  }

  const std::string key = Key(7);
  const std::string new_value = Key(42);
  ASSERT_TRUE(
      tree->update(key.data(), key.size(), new_value.data(), new_value.size()));
  ASSERT_TRUE(tree->find(key.data(), key.size(), value));
  EXPECT_EQ(std::string(value, 8), new_value);

  ASSERT_TRUE(tree->remove(key.data(), key.size()));
  EXPECT_FALSE(tree->find(key.data(), key.size(), value));
  const std::string absent = Key(kRecords + 1);
  EXPECT_FALSE(tree->find(absent.data(), absent.size(), value));

  // The default pool is hash-partitioned: no ordered scans.
  char* results = nullptr;
  EXPECT_EQ(tree->scan(key.data(), key.size(), 10, results), 0);
  tree.reset();
  EXPECT_TRUE(std::filesystem::exists(options.pool_path));
}

TEST_F(PibenchWrapperTest, BulkLoad) {
  tree_options_t options;
  options.pool_path = dir_ + "/pool";
  std::unique_ptr<tree_api> tree(create_tree_(options));
  ASSERT_NE(tree, nullptr);
  std::string data;
  for (uint64_t i = 0; i < 100; ++i) data += Key(i) + Key(i + 1000);
  ASSERT_TRUE(tree->bulk_load(data.data(), 100, 8, 8));
  char value[8];
  const std::string key = Key(99);
  ASSERT_TRUE(tree->find(key.data(), key.size(), value));
  EXPECT_EQ(std::string(value, 8), Key(1099));
}

TEST_F(PibenchWrapperTest, EmptyPoolPathGetsATemporaryPool) {
  tree_options_t options;  // PiBench's default --pool_path is ""
  std::unique_ptr<tree_api> tree(create_tree_(options));
  ASSERT_NE(tree, nullptr);
  const std::string key = Key(1);
  EXPECT_TRUE(tree->insert(key.data(), key.size(), key.data(), key.size()));
}

// PLUSH_PIBENCH_PARTITIONING=range: a range pool, whose scans return
// records in key order; each thread's scans reuse its iterator, which
// sees writes made between them.
TEST_F(PibenchWrapperTest, RangePoolScansInOrderWithEachThreadsIterator) {
  ASSERT_EQ(setenv("PLUSH_PIBENCH_PARTITIONING", "range", 1), 0);
  tree_options_t options;
  options.pool_path = dir_ + "/pool";
  std::unique_ptr<tree_api> tree(create_tree_(options));
  ASSERT_NE(tree, nullptr);
  for (uint64_t i = 0; i < 1000; ++i) {
    const std::string key = OrderedKey(i);
    const std::string value = Key(i + 7);
    ASSERT_TRUE(
        tree->insert(key.data(), key.size(), value.data(), value.size()));
  }
  auto scan_from = [&](uint64_t first, int n) {
    const std::string key = OrderedKey(first);
    char* results = nullptr;
    const int got = tree->scan(key.data(), key.size(), n, results);
    std::string pairs;
    if (got > 0) pairs.assign(results, static_cast<size_t>(got) * 16);
    return pairs;
  };
  std::string expected;
  for (uint64_t i = 100; i < 110; ++i) expected += OrderedKey(i) + Key(i + 7);
  EXPECT_EQ(scan_from(100, 10), expected);
  const std::string key = OrderedKey(105);
  const std::string value = Key(1);
  ASSERT_TRUE(tree->update(key.data(), key.size(), value.data(), 8));
  expected.replace(5 * 16 + 8, 8, value);
  EXPECT_EQ(scan_from(100, 10), expected) << "the reused iterator is stale";
  EXPECT_EQ(scan_from(995, 10).size(), 5u * 16) << "the last five";
  std::string from_another;
  std::thread([&] { from_another = scan_from(100, 10); }).join();
  EXPECT_EQ(from_another, expected);
}

TEST_F(PibenchWrapperTest, UnknownPartitioningIsRefusedWithItsName) {
  ASSERT_EQ(setenv("PLUSH_PIBENCH_PARTITIONING", "sorted", 1), 0);
  tree_options_t options;
  options.pool_path = dir_ + "/pool";
  testing::internal::CaptureStderr();
  std::unique_ptr<tree_api> tree(create_tree_(options));
  const std::string error = testing::internal::GetCapturedStderr();
  EXPECT_EQ(tree, nullptr);
  EXPECT_EQ(error,
            "libplush_pibench: InvalidArgument: PLUSH_PIBENCH_PARTITIONING "
            "is 'sorted'; it must be 'hash' or 'range'\n");
}

}  // namespace
