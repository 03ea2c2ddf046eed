// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Progress of a long phase: per-thread counters the workers publish to, and
// a line on stderr that shows their sum.

#ifndef PLUSH_TOOLS_BENCH_PROGRESS_H_
#define PLUSH_TOOLS_BENCH_PROGRESS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace plush::bench {

// Operations done so far, one cache line per thread so that publishing
// does not bounce lines between cores.
class ProgressCounters {
 public:
  explicit ProgressCounters(unsigned threads) : slots_(threads) {}

  // Called by `thread` itself, every few hundred operations.
  void Publish(unsigned thread, uint64_t done) {
    slots_[thread].done.store(done, std::memory_order_relaxed);
  }
  uint64_t Total() const;
  void Reset();

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> done{0};
  };
  std::vector<Slot> slots_;
};

// While it exists (and if `enabled`), redraws "label  45%  1.23 Mops/s" on
// stderr four times a second. The fraction done is counted in operations
// (of `total_ops`) or, if `total_seconds` > 0, in time.
class ProgressDisplay {
 public:
  ProgressDisplay(bool enabled, std::string label,
                  const ProgressCounters& counters, uint64_t total_ops,
                  double total_seconds);
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  // Draws the final state and ends the line.
  ~ProgressDisplay();

 private:
  void Draw(double elapsed) const;

  std::string label_;
  const ProgressCounters& counters_;
  uint64_t total_ops_;
  double total_seconds_;
  std::jthread drawer_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_PROGRESS_H_
