// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "progress.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

namespace plush::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

uint64_t ProgressCounters::Total() const {
  uint64_t total = 0;
  for (const Slot& slot : slots_) {
    total += slot.done.load(std::memory_order_relaxed);
  }
  return total;
}

void ProgressCounters::Reset() {
  for (Slot& slot : slots_) slot.done.store(0, std::memory_order_relaxed);
}

ProgressDisplay::ProgressDisplay(bool enabled, std::string label,
                                 const ProgressCounters& counters,
                                 uint64_t total_ops, double total_seconds)
    : label_(std::move(label)),
      counters_(counters),
      total_ops_(total_ops),
      total_seconds_(total_seconds) {
  if (!enabled) return;
  drawer_ = std::jthread([this](std::stop_token stop) {
    const Clock::time_point start = Clock::now();
    std::mutex mu;
    std::condition_variable_any wakeup;
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      // Wakes up early when the display is destroyed (stop requested).
      wakeup.wait_for(lock, stop, std::chrono::milliseconds(250),
                      [] { return false; });
      if (stop.stop_requested()) break;
      Draw(SecondsSince(start));
    }
    Draw(SecondsSince(start));
    std::fputc('\n', stderr);
  });
}

ProgressDisplay::~ProgressDisplay() {
  if (drawer_.joinable()) {
    drawer_.request_stop();
    drawer_.join();
  }
}

void ProgressDisplay::Draw(double elapsed) const {
  const uint64_t done = counters_.Total();
  double fraction =
      total_seconds_ > 0
          ? elapsed / total_seconds_
          : static_cast<double>(done) /
                static_cast<double>(std::max<uint64_t>(total_ops_, 1));
  fraction = std::min(fraction, 1.0);
  const double mops =
      elapsed > 0 ? static_cast<double>(done) / elapsed / 1e6 : 0;
  // \r and "erase to end of line" redraw the same terminal line.
  std::fprintf(stderr,
               "\r%-10s %5.1f%%  %12llu ops  %8.3f Mops/s  %7.1f s\033[K",
               label_.c_str(), 100 * fraction,
               static_cast<unsigned long long>(done), mops, elapsed);
  std::fflush(stderr);
}

}  // namespace plush::bench
