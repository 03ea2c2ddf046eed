// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "run_control.h"

#include <signal.h>

#include <string>

namespace plush::bench {
namespace {

// The signal that asked the run to stop, or 0. Lock-free, so that the
// handler may set it.
std::atomic<int> stop_signal{0};

void OnStopSignal(int signo) { stop_signal.store(signo); }

}  // namespace

void StopOnSignals() {
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  action.sa_flags = SA_RESETHAND;  // the default action for a second signal
  sigemptyset(&action.sa_mask);
  for (int signo : {SIGINT, SIGTERM}) {
    // A signal ignored by whoever started us (e.g. SIGINT for a background
    // job of a script) stays ignored.
    struct sigaction previous = {};
    sigaction(signo, nullptr, &previous);
    if (previous.sa_handler != SIG_IGN) sigaction(signo, &action, nullptr);
  }
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnsupported:
      return "unsupported";
  }
  return "unknown";
}

void RunControl::Fail(const Status& status, std::string_view what) {
  Record(status.IsNotSupported() ? Outcome::kUnsupported : Outcome::kFailed,
         std::string(what) + ": " + status.ToString());
}

void RunControl::FailCheck(std::string_view message) {
  Record(Outcome::kFailed, "result check failed: " + std::string(message));
}

void RunControl::Record(Outcome outcome, std::string message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (outcome_ == Outcome::kOk) {
      outcome_ = outcome;
      message_ = std::move(message);
    }
  }
  stopped_.store(true, std::memory_order_relaxed);
}

bool RunControl::stopped() const {
  return stopped_.load(std::memory_order_relaxed) ||
         stop_signal.load(std::memory_order_relaxed) != 0;
}

Outcome RunControl::outcome() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outcome_ == Outcome::kOk && stop_signal.load() != 0 ? Outcome::kFailed
                                                             : outcome_;
}

std::string RunControl::message() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outcome_ == Outcome::kOk && stop_signal.load() != 0
             ? "interrupted by signal " + std::to_string(stop_signal.load())
             : message_;
}

}  // namespace plush::bench
