// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "exit_code.h"

#include <iostream>

namespace plush::cli {

int ExitWith(const Status& status) {
  if (status.ok()) return 0;
  std::cerr << "plush: " << status.ToString() << '\n';
  return static_cast<int>(status.code());
}

}  // namespace plush::cli
