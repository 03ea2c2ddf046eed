// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush info POOL         a summary for people
// plush stats POOL        every statistic, as text or --json

#include <iostream>

#include "command.h"
#include "stats_report.h"

namespace plush::cli {
namespace {

struct InfoArgs {
  PoolArgs pool;
  bool json = false;  // stats only
};

// Opens the pool, reads its statistics and prints them with `render`.
int PrintStats(const PoolArgs& pool,
               const std::function<std::string(const Stats&)>& render) {
  return ExitWith(WithPool(ExistingPoolOptions(pool), pool.path, [&](DB* db) {
    Stats stats;
    Status s = db->GetStats(&stats);
    if (s.ok()) std::cout << render(stats);
    return s;
  }));
}

}  // namespace

void AddInfoCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app->add_subcommand(
      "info", "Show a pool's format, back end, durability, levels and size");
  AddPoolArgs(cmd, &args->pool);
  cmd->callback([args, exit_code] {
    *exit_code = PrintStats(args->pool, [&](const Stats& stats) {
      return "pool:               " + args->pool.path + '\n' +
             StatsSummary(stats);
    });
  });
}

void AddStatsCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd =
      app->add_subcommand("stats", "Print every statistic of a pool");
  AddPoolArgs(cmd, &args->pool);
  cmd->add_flag("--json", args->json, "One JSON object, for machines");
  cmd->callback([args, exit_code] {
    *exit_code = PrintStats(args->pool, [&](const Stats& stats) {
      return args->json ? StatsToJson(stats) + '\n' : StatsToText(stats);
    });
  });
}

}  // namespace plush::cli
