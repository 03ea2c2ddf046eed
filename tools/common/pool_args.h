// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// How the plush CLI and plush-server name an existing pool: its path and
// the back end to open it with (--backend), spelled alike in both.

#ifndef PLUSH_TOOLS_COMMON_POOL_ARGS_H_
#define PLUSH_TOOLS_COMMON_POOL_ARGS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "plush/options.h"

namespace plush::tools {

struct PoolArgs {
  std::string path;
  Backend backend = Backend::kAuto;
};

// Adds the --backend option, stored in *backend.
void AddBackendOption(CLI::App* app, Backend* backend);

// Options that open an existing pool (never create one).
Options ExistingPoolOptions(const PoolArgs& args);

}  // namespace plush::tools

#endif  // PLUSH_TOOLS_COMMON_POOL_ARGS_H_
