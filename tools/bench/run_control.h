// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// How the threads of a phase learn that they must stop: the first failure
// (an engine error or a failed result check) is recorded and raises a flag
// that every thread polls.

#ifndef PLUSH_TOOLS_BENCH_RUN_CONTROL_H_
#define PLUSH_TOOLS_BENCH_RUN_CONTROL_H_

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

#include "plush/status.h"

namespace plush::bench {

enum class Outcome {
  kOk,
  kFailed,       // an engine error, or a result check failed
  kUnsupported,  // the engine answered NotSupported (e.g. a record size)
};

// "ok", "failed", "unsupported".
std::string_view OutcomeName(Outcome outcome);

// Makes SIGINT and SIGTERM stop every RunControl as a failure would, so that
// an interrupted run still ends through its cleanup (a temporary pool in
// /dev/shm holds RAM until it is removed). A second signal kills at once.
void StopOnSignals();

class RunControl {
 public:
  // True after a failure or a stop signal; polled every few hundred
  // operations.
  bool stopped() const;

  // Records an engine error met while doing `what`, unless a failure was
  // recorded before; either way stops every thread.
  void Fail(const Status& status, std::string_view what);
  // Records a failed result check, described by `message`.
  void FailCheck(std::string_view message);

  Outcome outcome() const;
  std::string message() const;

 private:
  void Record(Outcome outcome, std::string message);

  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  Outcome outcome_ = Outcome::kOk;
  std::string message_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_RUN_CONTROL_H_
