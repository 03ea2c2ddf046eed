// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "display.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>

namespace plush::tools {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBarWidth = 20;
// Sources for the filled and empty parts of the bar, kBarWidth long each.
constexpr char kFull[] = "####################";
constexpr char kEmpty[] = "....................";
static_assert(sizeof(kFull) == kBarWidth + 1 &&
              sizeof(kEmpty) == kBarWidth + 1);

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::string HumanBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (std::fabs(bytes) >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.0f %s" : "%.1f %s",
                bytes, kUnits[unit]);
  return buffer;
}

uint64_t ProgressCounters::Total() const {
  uint64_t total = 0;
  for (const Slot& slot : slots_) {
    total += slot.done.load(std::memory_order_relaxed);
  }
  return total;
}

ProgressDisplay::Fraction ProgressDisplay::Of(uint64_t total, double seconds) {
  if (seconds > 0) return [seconds](uint64_t, double t) { return t / seconds; };
  return [total](uint64_t done, double) {
    return static_cast<double>(done) /
           static_cast<double>(std::max<uint64_t>(total, 1));
  };
}

ProgressDisplay::ProgressDisplay(bool enabled, std::string label,
                                 std::string unit,
                                 const ProgressCounters& counters,
                                 Fraction fraction)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      counters_(counters),
      fraction_(std::move(fraction)) {
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
  const double fraction = std::min(fraction_(done, elapsed), 1.0);
  const double millions =
      elapsed > 0 ? static_cast<double>(done) / elapsed / 1e6 : 0;
  // \r and "erase to end of line" redraw the same terminal line.
  std::fprintf(stderr, "\r%-8s ", label_.c_str());
  if (fraction >= 0) {
    const int filled = static_cast<int>(fraction * kBarWidth);
    std::fprintf(stderr, "[%.*s%.*s] %5.1f%%  ", filled, kFull,
                 kBarWidth - filled, kEmpty, 100 * fraction);
  }
  std::fprintf(stderr, "%llu %s  %.3f M/s  %.1f s\033[K",
               static_cast<unsigned long long>(done), unit_.c_str(), millions,
               elapsed);
  std::fflush(stderr);
}

}  // namespace plush::tools
