// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Recovery mode. The store is loaded by a forked child so that the crash is
// real: SIGKILL ends the child mid-write with no destructor, close or sync,
// exactly like kill -9. The parent then times the engine's open, which
// replays whatever the child left behind.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "benchmark.h"
#include "engine_figures.h"
#include "phases.h"
#include "pool_location.h"

namespace plush::bench {
namespace {

// The child: loads, tells the parent through `ready_fd`, then keeps running
// the mix until it is killed. Returns an exit code only if it fails.
int LoadUntilKilled(const BenchConfig& config, const std::string& path,
                    int ready_fd) {
  std::unique_ptr<Engine> engine;
  Status status = OpenEngine(config.engine, path, /*create=*/true, &engine);
  if (!status.ok()) {
    std::fprintf(stderr, "plush-bench (loading child): %s\n",
                 status.ToString().c_str());
    return 1;
  }
  const KeySpace keys(config.key_size, config.value_size, config.key_order);
  RunControl control;
  PhaseContext context{config,  *engine, keys,
                       control, nullptr, config.progress};
  LoadPhase(context);
  if (control.stopped()) {
    std::fprintf(stderr, "plush-bench (loading child): %s\n",
                 control.message().c_str());
    return 1;
  }
  if (write(ready_fd, "L", 1) != 1) return 1;
  // Writes in flight when the signal lands are the point of the exercise.
  context.progress = false;
  RunPhase(context);
  raise(SIGKILL);  // the run ended before the parent's signal: crash anyway
  return 1;
}

// Waits for the child's word that it has loaded. False if it died first or
// this process was asked to stop.
bool WaitUntilLoaded(int ready_fd, const RunControl& control) {
  char byte;
  ssize_t n;
  do {
    n = read(ready_fd, &byte, 1);
  } while (n < 0 && errno == EINTR && !control.stopped());
  return n == 1;
}

}  // namespace

RunResult RunRecoveryBenchmark(const BenchConfig& config) {
  RunResult result;
  RunControl control;

  std::unique_ptr<PoolLocation> location = LocatePool(config, control, &result);
  if (location == nullptr) return Finish(control, std::move(result));

  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    control.Fail(Status::IOError("pipe failed"), "starting the loading child");
    return Finish(control, std::move(result));
  }
  std::fflush(nullptr);  // or the child would print our buffered output too
  const pid_t child = fork();
  if (child < 0) {
    control.Fail(Status::IOError("fork failed"), "starting the loading child");
    return Finish(control, std::move(result));
  }
  if (child == 0) {
    close(pipe_fds[0]);
    // _exit: the parent owns the pool location and its cleanup.
    _exit(LoadUntilKilled(config, location->path(), pipe_fds[1]));
  }
  close(pipe_fds[1]);
  const bool loaded = WaitUntilLoaded(pipe_fds[0], control);
  close(pipe_fds[0]);
  if (loaded) {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(config.kill_after));
  }
  kill(child, SIGKILL);  // harmless if it has died already
  waitpid(child, nullptr, 0);
  if (control.stopped()) return Finish(control, std::move(result));
  if (!loaded) {
    control.Fail(Status::IOError("it exited before finishing its load"),
                 "loading child");
    return Finish(control, std::move(result));
  }

  const KeySpace keys(config.key_size, config.value_size, config.key_order);
  const uint64_t rss_baseline = ResidentAnonymousBytes();
  std::unique_ptr<Engine> engine;
  const auto start = std::chrono::steady_clock::now();
  Status status =
      OpenEngine(config.engine, location->path(), /*create=*/false, &engine);
  result.recovery_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  result.seconds = result.recovery_seconds;
  if (!status.ok()) {
    control.Fail(status, "reopening after the crash");
    return Finish(control, std::move(result));
  }
  status =
      RecordEngineFigures(*engine, EngineStats(), 0, rss_baseline, &result);
  if (!status.ok()) control.Fail(status, "reading engine stats");
  // Every load was acknowledged before the crash, so every loaded record
  // must have survived it.
  const PhaseContext context{config,  *engine, keys,
                             control, nullptr, config.progress};
  return VerifyAndClose(context, {}, std::move(result));
}

}  // namespace plush::bench
