// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Runs the threads of a phase and times them.

#ifndef PLUSH_TOOLS_BENCH_PHASE_THREADS_H_
#define PLUSH_TOOLS_BENCH_PHASE_THREADS_H_

#include <cstdint>
#include <functional>

namespace plush::bench {

// Thread `thread`'s contiguous share of `count` items: [begin, end). Shares
// differ by at most one item.
struct Slice {
  uint64_t begin;
  uint64_t end;
};
inline Slice ThreadSlice(uint64_t count, unsigned threads, unsigned thread) {
  const uint64_t share = count / threads;
  const uint64_t extra = count % threads;
  const uint64_t begin = share * thread + (thread < extra ? thread : extra);
  return {begin, begin + share + (thread < extra ? 1 : 0)};
}

// Runs body(thread) for every thread in [0, threads), each on its own
// thread. The clock starts once every thread exists and is released, so
// thread creation is not timed. Returns the seconds until the last body
// returned.
double RunOnThreads(unsigned threads,
                    const std::function<void(unsigned)>& body);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_PHASE_THREADS_H_
