// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A one-line progress bar on stderr for long commands (`plush load`). It is
// drawn only when stderr is a terminal, so logs and pipes stay clean.

#ifndef PLUSH_TOOLS_CLI_PROGRESS_BAR_H_
#define PLUSH_TOOLS_CLI_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>

namespace plush::cli {

class ProgressBar {
 public:
  // `total_bytes` is the input's size, or 0 if unknown (a pipe).
  explicit ProgressBar(uint64_t total_bytes);

  // Reports progress; redraws at most ten times a second.
  void Update(uint64_t bytes_done, uint64_t records);

  // Draws the final state and ends the line.
  void Finish(uint64_t bytes_done, uint64_t records);

 private:
  void Draw(uint64_t bytes_done, uint64_t records);

  using Clock = std::chrono::steady_clock;
  const uint64_t total_bytes_;
  const bool enabled_;
  const Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_PROGRESS_BAR_H_
