// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "line_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace plush::cli {
namespace {

// Batches of `batch_size` lines "0", "1", ... up to `count`.
std::vector<std::vector<std::string>> Batches(int count, int batch_size) {
  std::vector<std::vector<std::string>> batches;
  for (int i = 0; i < count; ++i) {
    if (i % batch_size == 0) batches.emplace_back();
    batches.back().push_back(std::to_string(i));
  }
  return batches;
}

TEST(LineWorkersTest, HandlesEveryLineOnce) {
  std::mutex mu;
  std::multiset<std::string> seen;
  LineWorkers workers(4, [&](std::string_view line) {
    std::lock_guard lock(mu);
    seen.emplace(line);
    return Status::OK();
  });
  uint64_t first_line = 1;
  for (auto& batch : Batches(10000, 7)) {
    size_t size = batch.size();
    ASSERT_TRUE(workers.Add(first_line, std::move(batch)));
    first_line += size;
  }
  ASSERT_TRUE(workers.Finish().ok());
  ASSERT_EQ(seen.size(), 10000u);
  for (int i = 0; i < 10000; ++i) EXPECT_EQ(seen.count(std::to_string(i)), 1u);
}

TEST(LineWorkersTest, FirstErrorStopsTheReaderAndNamesTheLine) {
  std::atomic<int> handled{0};
  LineWorkers workers(3, [&](std::string_view line) {
    ++handled;
    return line == "500" ? Status::Corruption("bad line") : Status::OK();
  });
  uint64_t first_line = 1;
  bool stopped = false;
  for (auto& batch : Batches(100000, 10)) {
    size_t size = batch.size();
    if (!workers.Add(first_line, std::move(batch))) {
      stopped = true;
      break;
    }
    first_line += size;
  }
  Status s = workers.Finish();
  EXPECT_TRUE(stopped);
  EXPECT_LT(handled.load(), 100000);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "line 501: bad line");  // line numbers start at 1
}

TEST(LineWorkersTest, FinishWithoutLinesAndDestroyWithoutFinish) {
  {
    LineWorkers workers(2, [](std::string_view) { return Status::OK(); });
    EXPECT_TRUE(workers.Finish().ok());
    EXPECT_TRUE(workers.Finish().ok());
  }
  LineWorkers workers(2, [](std::string_view) { return Status::OK(); });
  EXPECT_TRUE(workers.Add(1, {"a", "b"}));
}

}  // namespace
}  // namespace plush::cli
