// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool_args.h"

#include "command_line.h"

namespace plush::tools {

void AddBackendOption(CLI::App* app, Backend* backend) {
  AddChoice(app, "--backend",
            "auto: pmem if the file can be mapped with MAP_SYNC, else file",
            BackendChoices(), backend);
}

Options ExistingPoolOptions(const PoolArgs& args) {
  Options options;
  options.create_if_missing = false;
  options.backend = args.backend;
  return options;
}

}  // namespace plush::tools
