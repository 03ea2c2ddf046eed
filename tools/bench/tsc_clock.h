// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Timestamps for latency measurement from the CPU's time-stamp counter.
//
// Timing every operation (--latency all) must cost little next to an
// operation of a few hundred nanoseconds. Reading the counter directly
// skips what steady_clock::now() adds around the same read (a vDSO call,
// the kernel's clock-data sequence lock, the scaling): a Begin()/End()
// pair costs ~45 ns on the 2-core VM of docs/benchmarks.md, two now()
// calls ~60 ns. The reads are ordered only as far as accuracy needs:
// Begin() waits for the instructions before it (the key was built), End()
// for those before it to finish executing (the operation's loads have
// completed); neither holds back later work. The ordering is most of the
// cost: unordered reads would be cheaper, but could end an interval before
// the operation's last cache miss.
//
// The counter ticks at a constant rate on every x86-64 CPU of the last
// 15 years (Linux's constant_tsc and nonstop_tsc), the same on every core.
// Plush needs x86-64 anyway (clwb, AVX-512).

#ifndef PLUSH_TOOLS_BENCH_TSC_CLOCK_H_
#define PLUSH_TOOLS_BENCH_TSC_CLOCK_H_

#include <x86intrin.h>

#include <cstdint>

namespace plush::bench {

class TscClock {
 public:
  static uint64_t Begin() {
    _mm_lfence();
    return __rdtsc();
  }
  static uint64_t End() {
    unsigned int core;
    return __rdtscp(&core);
  }

  // Nanoseconds per tick, measured against steady_clock the first time it
  // is asked (20 ms, sleeping).
  static double NanosPerTick();
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_TSC_CLOCK_H_
