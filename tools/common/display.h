// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What plush-bench and the plush CLI print for people on a terminal: byte
// counts, and a live progress line on stderr fed by the threads of a long
// phase (a benchmark phase, `plush load`).

#ifndef PLUSH_TOOLS_COMMON_DISPLAY_H_
#define PLUSH_TOOLS_COMMON_DISPLAY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace plush::tools {

// "512 B", "4.0 MiB", "-1.5 GiB".
std::string HumanBytes(double bytes);

// Items done so far, one cache line per thread so that publishing does
// not bounce lines between cores.
class ProgressCounters {
 public:
  explicit ProgressCounters(unsigned threads) : slots_(threads) {}

  // Called by `thread` itself, every few hundred items.
  void Publish(unsigned thread, uint64_t done) {
    slots_[thread].done.store(done, std::memory_order_relaxed);
  }
  uint64_t Total() const;

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> done{0};
  };
  std::vector<Slot> slots_;
};

// While it exists (and if `enabled`), redraws one line on stderr four times
// a second, from a thread of its own:
//   load     [########............]  40.0%  1234567 records  1.234 M/s  2.0 s
class ProgressDisplay {
 public:
  // How far the phase is, from the items done and the seconds elapsed: in
  // [0, 1], or negative if unknown (no bar then).
  using Fraction = std::function<double(uint64_t done, double elapsed)>;
  // The fraction of `total` items, or if `seconds` > 0, of that time.
  static Fraction Of(uint64_t total, double seconds = 0);

  ProgressDisplay(bool enabled, std::string label, std::string unit,
                  const ProgressCounters& counters, Fraction fraction);
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  // Draws the final state and ends the line.
  ~ProgressDisplay();

 private:
  void Draw(double elapsed) const;

  const std::string label_;
  const std::string unit_;
  const ProgressCounters& counters_;
  const Fraction fraction_;
  std::jthread drawer_;
};

}  // namespace plush::tools

#endif  // PLUSH_TOOLS_COMMON_DISPLAY_H_
