// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/wall_clock.h"

namespace plush {

const Clock& SystemClock() {
  static const WallClock clock;
  return clock;
}

}  // namespace plush
