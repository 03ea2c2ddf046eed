// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "phase_threads.h"

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

namespace plush::bench {

double RunOnThreads(unsigned threads,
                    const std::function<void(unsigned)>& body) {
  std::latch ready(threads);
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ready.count_down();
      go.wait(false);
      body(t);
    });
  }
  ready.wait();
  const auto start = std::chrono::steady_clock::now();
  go.store(true);
  go.notify_all();
  for (std::thread& worker : workers) worker.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace plush::bench
