// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "line_workers.h"

#include <algorithm>
#include <utility>

namespace plush::cli {

LineWorkers::LineWorkers(unsigned threads, Handler handler)
    : handler_(std::move(handler)),
      // Two chunks per worker keep everyone busy without buffering the
      // whole file when the writers are slower than the reader.
      max_queued_(2 * std::max(threads, 1u)) {
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) {
    threads_.emplace_back([this, i] { Work(i); });
  }
}

LineWorkers::~LineWorkers() { (void)Finish(); }

bool LineWorkers::Add(uint64_t first_line, std::vector<std::string> lines) {
  std::unique_lock lock(mu_);
  dequeued_.wait(lock,
                 [&] { return queue_.size() < max_queued_ || !error_.ok(); });
  if (!error_.ok()) return false;
  queue_.push_back({first_line, std::move(lines)});
  queued_.notify_one();
  return true;
}

Status LineWorkers::Finish() {
  {
    std::lock_guard lock(mu_);
    finishing_ = true;
  }
  queued_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard lock(mu_);
  return error_;
}

void LineWorkers::Work(unsigned worker) {
  for (;;) {
    Chunk chunk;
    {
      std::unique_lock lock(mu_);
      queued_.wait(lock, [&] { return !queue_.empty() || finishing_; });
      if (queue_.empty() || !error_.ok()) return;
      chunk = std::move(queue_.front());
      queue_.pop_front();
    }
    dequeued_.notify_one();
    Status s = handler_(worker, chunk.first_line, chunk.lines);
    if (s.ok()) continue;
    std::lock_guard lock(mu_);
    if (error_.ok()) error_ = s;
    dequeued_.notify_all();
    return;
  }
}

}  // namespace plush::cli
