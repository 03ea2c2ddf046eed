// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "keyed_workers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace plush::cli {
namespace {

// "key value" lines; "bad" is a line that does not parse.
Status ParseSpaced(std::string_view line, ParsedRecord* record) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) {
    return Status::InvalidArgument("expected key value");
  }
  record->key.assign(line.substr(0, space));
  record->value.assign(line.substr(space + 1));
  return Status::OK();
}

// "k<i> <value>" (built without `"k" + std::to_string(i)`, which GCC 12
// mistakes for an overlapping copy).
std::string Line(int i, const std::string& value) {
  std::string line = "k";
  line += std::to_string(i);
  line += ' ';
  line += value;
  return line;
}

// Every record a worker was handed, in the order it was handed them.
struct Handed {
  std::mutex mu;
  std::map<unsigned, std::vector<ParsedRecord>> by_worker;
  std::map<unsigned, int> ends;

  Status Take(unsigned worker, const std::vector<ParsedRecord>& records,
              bool end) {
    std::lock_guard lock(mu);
    auto& mine = by_worker[worker];
    mine.insert(mine.end(), records.begin(), records.end());
    if (end) ++ends[worker];
    return Status::OK();
  }
};

// Adds `lines` in chunks of `chunk_size`; returns whether every Add took.
bool AddAll(KeyedWorkers* workers, const std::vector<std::string>& lines,
            size_t chunk_size) {
  for (size_t i = 0; i < lines.size(); i += chunk_size) {
    std::vector<std::string> chunk(
        lines.begin() + static_cast<long>(i),
        lines.begin() + static_cast<long>(std::min(lines.size(), i + chunk_size)));
    if (!workers->Add(i + 1, std::move(chunk))) return false;
  }
  return true;
}

TEST(KeyedWorkersTest, EachKeyGoesToOneWorkerInInputOrder) {
  // 50 keys repeated: the file order of each key's values must hold.
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) {
    lines.push_back(Line(i % 50, std::to_string(i)));
    if (i % 997 == 0) lines.emplace_back();  // blank lines hold no record
  }
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (size_t chunk_size : {1u, 7u, 1024u}) {
      Handed handed;
      KeyedWorkers workers(threads, ParseSpaced,
                           [&](unsigned w, const auto& records, bool end) {
                             return handed.Take(w, records, end);
                           });
      ASSERT_TRUE(AddAll(&workers, lines, chunk_size));
      ASSERT_TRUE(workers.Finish().ok());
      std::map<std::string, unsigned> owner;
      size_t records = 0;
      for (const auto& [worker, mine] : handed.by_worker) {
        EXPECT_LT(worker, threads);
        EXPECT_EQ(handed.ends[worker], 1) << "worker " << worker;
        uint64_t last_line = 0;
        for (const ParsedRecord& r : mine) {
          auto [it, fresh] = owner.emplace(r.key, worker);
          EXPECT_EQ(it->second, worker) << r.key << " on two workers";
          EXPECT_GT(r.line, last_line) << "out of input order";
          last_line = r.line;
          EXPECT_EQ(lines[r.line - 1], r.key + " " + r.value);
        }
        records += mine.size();
      }
      EXPECT_EQ(records, 20000u) << threads << " threads, chunks of "
                                 << chunk_size;
    }
  }
}

TEST(KeyedWorkersTest, ABadLineStopsEveryWorkerRightBeforeIt) {
  std::vector<std::string> lines;
  for (int i = 0; i < 5000; ++i) {
    lines.push_back(i == 3210 ? "bad" : Line(i, "v"));
  }
  for (unsigned threads : {1u, 3u}) {
    Handed handed;
    KeyedWorkers workers(threads, ParseSpaced,
                         [&](unsigned w, const auto& records, bool end) {
                           return handed.Take(w, records, end);
                         });
    AddAll(&workers, lines, 100);  // may stop taking once it is found
    Status s = workers.Finish();
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_EQ(s.message(), "line 3211: expected key value");
    std::set<uint64_t> seen;
    for (const auto& [worker, mine] : handed.by_worker) {
      EXPECT_EQ(handed.ends[worker], 1);
      for (const ParsedRecord& r : mine) seen.insert(r.line);
    }
    // Every line before it, none after it.
    ASSERT_EQ(seen.size(), 3210u);
    EXPECT_EQ(*seen.rbegin(), 3210u);
  }
}

TEST(KeyedWorkersTest, ASinkErrorStopsTheReaderAndIsReturned) {
  std::vector<std::string> lines;
  for (int i = 0; i < 100000; ++i) lines.push_back(Line(i, "v"));
  std::atomic<int> calls{0};
  KeyedWorkers workers(3, ParseSpaced,
                       [&](unsigned, const auto&, bool) {
                         return ++calls == 20 ? Status::NoSpace("pool full")
                                              : Status::OK();
                       });
  EXPECT_FALSE(AddAll(&workers, lines, 10));
  Status s = workers.Finish();
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_EQ(s.message(), "pool full");
}

TEST(KeyedWorkersTest, FinishWithoutLinesAndDestroyWithoutFinish) {
  auto ok = [](unsigned, const std::vector<ParsedRecord>&, bool) {
    return Status::OK();
  };
  {
    KeyedWorkers workers(2, ParseSpaced, ok);
    EXPECT_TRUE(workers.Finish().ok());
    EXPECT_TRUE(workers.Finish().ok());
  }
  KeyedWorkers workers(2, ParseSpaced, ok);
  EXPECT_TRUE(workers.Add(1, {"a 1", "b 2"}));
}

}  // namespace
}  // namespace plush::cli
