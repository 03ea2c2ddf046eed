// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Work over a range of indexes split between threads.

#ifndef PLUSH_UTIL_PARALLEL_H_
#define PLUSH_UTIL_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "plush/status.h"

namespace plush {

// Runs fn(begin, end) over [0, count) split into up to `threads` equal
// ranges, one per thread (the calling thread takes the first), and returns
// the first error of the ranges in order, or OK.
template <typename Fn>
Status ForEachRange(uint64_t count, unsigned threads, Fn fn) {
  const uint64_t n = std::max<uint64_t>(1, std::min<uint64_t>(threads, count));
  std::vector<Status> results(n);
  std::vector<std::thread> workers;
  for (uint64_t t = 1; t < n; ++t) {
    workers.emplace_back(
        [&, t] { results[t] = fn(count * t / n, count * (t + 1) / n); });
  }
  results[0] = fn(0, count / n);
  for (std::thread& w : workers) w.join();
  for (Status& r : results) {
    if (!r.ok()) return r;
  }
  return Status::OK();
}

}  // namespace plush

#endif  // PLUSH_UTIL_PARALLEL_H_
