// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Worker threads that handle chunks of input lines, for `plush load`: one
// thread reads the file and the workers parse and write, so that parsing
// scales with the writers instead of bounding them.

#ifndef PLUSH_TOOLS_CLI_LINE_WORKERS_H_
#define PLUSH_TOOLS_CLI_LINE_WORKERS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plush/status.h"

namespace plush::cli {

class LineWorkers {
 public:
  // Handles one chunk of lines, the first of which is line `first_line` of
  // the input, on worker `worker` (0 to threads - 1); an error stops all
  // workers.
  using Handler = std::function<Status(unsigned worker, uint64_t first_line,
                                       const std::vector<std::string>& lines)>;

  // Starts `threads` workers (at least one) calling `handler` concurrently.
  LineWorkers(unsigned threads, Handler handler);
  LineWorkers(const LineWorkers&) = delete;
  LineWorkers& operator=(const LineWorkers&) = delete;
  // Finishes (see Finish()) if the caller has not.
  ~LineWorkers();

  // Queues a chunk; blocks while the queue is full. Returns false once a
  // handler has failed, which tells the reader to stop.
  bool Add(uint64_t first_line, std::vector<std::string> lines);

  // Handles every queued chunk (unless a handler failed), stops the workers
  // and returns the first error.
  Status Finish();

 private:
  struct Chunk {
    uint64_t first_line;
    std::vector<std::string> lines;
  };

  void Work(unsigned worker);

  const Handler handler_;
  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable queued_;    // signalled on push and on finish
  std::condition_variable dequeued_;  // signalled on pop and on error
  std::deque<Chunk> queue_;           // guarded by mu_
  bool finishing_ = false;            // guarded by mu_
  Status error_;                      // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_LINE_WORKERS_H_
