// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "stats_report.h"

namespace plush::cli {
namespace {

constexpr int kBarWidth = 30;
// Sources for the filled and empty parts of the bar, kBarWidth long each.
constexpr char kFull[] = "##############################";
constexpr char kEmpty[] = "..............................";
static_assert(sizeof(kFull) == kBarWidth + 1 &&
              sizeof(kEmpty) == kBarWidth + 1);
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

ProgressBar::ProgressBar(uint64_t total_bytes)
    : total_bytes_(total_bytes),
      enabled_(isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_draw_(start_) {}

void ProgressBar::Update(uint64_t bytes_done, uint64_t records) {
  if (!enabled_ || Clock::now() - last_draw_ < kRedrawInterval) return;
  Draw(bytes_done, records);
}

void ProgressBar::Finish(uint64_t bytes_done, uint64_t records) {
  if (!enabled_) return;
  Draw(bytes_done, records);
  std::fputc('\n', stderr);
}

void ProgressBar::Draw(uint64_t bytes_done, uint64_t records) {
  last_draw_ = Clock::now();
  double seconds = std::chrono::duration<double>(last_draw_ - start_).count();
  double rate = seconds > 0 ? static_cast<double>(records) / seconds : 0;
  // \r redraws in place; the trailing spaces erase a longer previous line.
  std::fputc('\r', stderr);
  if (total_bytes_ > 0) {
    double fraction = std::min(1.0, static_cast<double>(bytes_done) /
                                        static_cast<double>(total_bytes_));
    int filled = static_cast<int>(fraction * kBarWidth);
    std::fprintf(stderr, "[%.*s%.*s] %3d%% ", filled, kFull, kBarWidth - filled,
                 kEmpty, static_cast<int>(fraction * 100));
  }
  std::fprintf(stderr, "%s  %llu records  %.0f records/s    ",
               HumanBytes(bytes_done).c_str(),
               static_cast<unsigned long long>(records), rate);
  std::fflush(stderr);
}

}  // namespace plush::cli
