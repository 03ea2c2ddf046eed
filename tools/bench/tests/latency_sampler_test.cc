// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The time-stamp counter against steady_clock, and the sampler's share of
// timed operations.

#include "latency_sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "tsc_clock.h"

namespace plush::bench {
namespace {

using Clock = std::chrono::steady_clock;

TEST(TscClockTest, AgreesWithSteadyClock) {
  const double nanos_per_tick = TscClock::NanosPerTick();
  ASSERT_GT(nanos_per_tick, 0);
  // A preemption between the two clocks' reads skews one attempt; on a
  // busy machine, some attempt gets through unpreempted.
  double best_error = 1;
  for (int attempt = 0; attempt < 10 && best_error > 0.01; ++attempt) {
    const uint64_t start_ticks = TscClock::Begin();
    const Clock::time_point start = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const uint64_t end_ticks = TscClock::End();
    const Clock::time_point end = Clock::now();
    const double tsc_nanos =
        static_cast<double>(end_ticks - start_ticks) * nanos_per_tick;
    const double steady_nanos =
        std::chrono::duration<double, std::nano>(end - start).count();
    best_error =
        std::min(best_error, std::abs(tsc_nanos - steady_nanos) / steady_nanos);
  }
  EXPECT_LT(best_error, 0.01);
}

TEST(LatencySamplerTest, AllTimesEveryOperationInNanoseconds) {
  LatencySampler sampler(1, TscClock::NanosPerTick(), 1);
  for (int i = 0; i < 1000; ++i) {
    sampler.Begin();
    sampler.End();
  }
  EXPECT_EQ(sampler.histogram().count(), 1000u);
  sampler.Begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  sampler.End();
  EXPECT_GE(sampler.histogram().max(), 2'000'000u);
  EXPECT_LT(sampler.histogram().max(), 1'000'000'000u);
}

TEST(LatencySamplerTest, SamplesTheRequestedFraction) {
  constexpr int kOperations = 200000;
  for (double fraction : {0.0, 0.01, 0.3}) {
    LatencySampler sampler(fraction, 1.0, 7);
    for (int i = 0; i < kOperations; ++i) {
      sampler.Begin();
      sampler.End();
    }
    // Binomial: within 5 standard deviations.
    const double expected = fraction * kOperations;
    const double sd = std::sqrt(expected * (1 - fraction));
    EXPECT_NEAR(static_cast<double>(sampler.histogram().count()), expected,
                5 * sd + 1e-9)
        << fraction;
  }
}

}  // namespace
}  // namespace plush::bench
