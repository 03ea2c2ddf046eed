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

// Chunks of `chunk_size` lines "0", "1", ... up to `count`.
std::vector<std::vector<std::string>> Chunks(int count, int chunk_size) {
  std::vector<std::vector<std::string>> chunks;
  for (int i = 0; i < count; ++i) {
    if (i % chunk_size == 0) chunks.emplace_back();
    chunks.back().push_back(std::to_string(i));
  }
  return chunks;
}

TEST(LineWorkersTest, HandlesEveryLineOnceOnWorkersOfTheirOwn) {
  std::mutex mu;
  std::multiset<std::string> seen;
  std::set<unsigned> workers_seen;
  LineWorkers workers(4, [&](unsigned worker, uint64_t first_line,
                             const std::vector<std::string>& lines) {
    std::lock_guard lock(mu);
    workers_seen.insert(worker);
    // Line i + 1 of the input holds the number i.
    EXPECT_EQ(lines[0], std::to_string(first_line - 1));
    seen.insert(lines.begin(), lines.end());
    return Status::OK();
  });
  uint64_t first_line = 1;
  for (auto& chunk : Chunks(10000, 7)) {
    size_t size = chunk.size();
    ASSERT_TRUE(workers.Add(first_line, std::move(chunk)));
    first_line += size;
  }
  ASSERT_TRUE(workers.Finish().ok());
  ASSERT_EQ(seen.size(), 10000u);
  for (int i = 0; i < 10000; ++i) EXPECT_EQ(seen.count(std::to_string(i)), 1u);
  EXPECT_LT(*workers_seen.rbegin(), 4u);  // indexes for per-worker state
}

TEST(LineWorkersTest, FirstErrorStopsTheReader) {
  std::atomic<int> handled{0};
  LineWorkers workers(3, [&](unsigned, uint64_t first_line,
                             const std::vector<std::string>& lines) {
    handled += static_cast<int>(lines.size());
    return first_line == 501 ? Status::Corruption("bad chunk") : Status::OK();
  });
  uint64_t first_line = 1;
  bool stopped = false;
  for (auto& chunk : Chunks(100000, 10)) {
    size_t size = chunk.size();
    if (!workers.Add(first_line, std::move(chunk))) {
      stopped = true;
      break;
    }
    first_line += size;
  }
  Status s = workers.Finish();
  EXPECT_TRUE(stopped);
  EXPECT_LT(handled.load(), 100000);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "bad chunk");
}

TEST(LineWorkersTest, FinishWithoutLinesAndDestroyWithoutFinish) {
  auto ok = [](unsigned, uint64_t, const std::vector<std::string>&) {
    return Status::OK();
  };
  {
    LineWorkers workers(2, ok);
    EXPECT_TRUE(workers.Finish().ok());
    EXPECT_TRUE(workers.Finish().ok());
  }
  LineWorkers workers(2, ok);
  EXPECT_TRUE(workers.Add(1, {"a", "b"}));
}

}  // namespace
}  // namespace plush::cli
