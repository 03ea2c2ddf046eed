// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The system's wall clock as a plush::Clock: what expiry is judged by
// unless Options::clock names another (plush::SystemClock() is one).

#ifndef PLUSH_UTIL_WALL_CLOCK_H_
#define PLUSH_UTIL_WALL_CLOCK_H_

#include <time.h>

#include <cstdint>

#include "plush/options.h"

namespace plush {

class WallClock final : public Clock {
 public:
  uint64_t NowMs() const override {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000 +
           static_cast<uint64_t>(ts.tv_nsec) / 1000000;
  }
};

}  // namespace plush

#endif  // PLUSH_UTIL_WALL_CLOCK_H_
