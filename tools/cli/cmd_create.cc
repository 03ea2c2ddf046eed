// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush create POOL [--size BYTES] [--range] [--small]

#include <iostream>

#include "command.h"
#include "display.h"
#include "stats_report.h"

namespace plush::cli {
namespace {

struct CreateArgs {
  PoolArgs pool;
  uint64_t size = 0;
  CLI::Option* size_option = nullptr;  // set iff --size was declared
  bool range = false;
  bool small = false;
};

int RunCreate(const CreateArgs& args) {
  Options options = args.small ? Options::SmallProfile() : Options();
  options.error_if_exists = true;
  options.backend = args.pool.backend;
  if (args.size_option->count() > 0) options.initial_pool_size = args.size;
  if (args.range) options.partitioning = Partitioning::kRange;
  return ExitWith(WithPool(options, args.pool.path, [&](DB* db) {
    Stats stats;
    Status s = db->GetStats(&stats);
    if (s.ok()) {
      std::cout << "created " << args.pool.path << ": "
                << (args.range ? "range" : "hash") << "-partitioned, "
                << stats.backend << " back end, "
                << tools::HumanBytes(stats.pool_bytes) << '\n';
    }
    return s;
  }));
}

}  // namespace

void AddCreateCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<CreateArgs>();
  CLI::App* cmd = app->add_subcommand("create", "Create a new, empty pool");
  AddPoolArgs(cmd, &args->pool);
  args->size_option =
      cmd->add_option("--size", args->size,
                      "Initial size of the pool file, e.g. 64MiB (it grows "
                      "on demand)")
          ->transform(CLI::AsSizeValue(/*kb_is_1000=*/false));
  cmd->add_flag("--range", args->range,
                "Range-partition keys: enables scan and dump");
  cmd->add_flag("--small", args->small,
                "Small profile: tiny DRAM level and logs, for tests and "
                "small machines");
  cmd->callback([args, exit_code] { *exit_code = RunCreate(*args); });
}

}  // namespace plush::cli
