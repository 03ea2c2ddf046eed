// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush rebalance POOL: splits the heavy units of a range pool. A range
// pool re-balances online (DB::Rebalance; the background thread does the
// same as units become heavy): the command opens it and asks for it.

#include <iostream>

#include "command.h"

namespace plush::cli {
namespace {

void PrintBalance(const Stats& before, const Stats& after) {
  std::cout << "records per unit (min, median, max) " << before.unit_records_min
            << ", " << before.unit_records_median << ", "
            << before.unit_records_max << " -> " << after.unit_records_min
            << ", " << after.unit_records_median << ", "
            << after.unit_records_max;
}

Status Rebalance(const PoolArgs& args, DB* db) {
  Stats before;
  Status s = db->GetStats(&before);
  if (!s.ok()) return s;
  // NotSupported, as DB::Rebalance and db.rebalance() answer a hash pool:
  // one error, and so one exit code, whichever interface is asked.
  if (before.partitioning != "range") {
    return Status::NotSupported(
        "pool '" + args.path +
        "' is hash-partitioned: its keys spread by hash already; rebalance "
        "re-partitions range pools");
  }
  uint64_t moves = 0;
  s = db->Rebalance(&moves);
  Stats after;
  if (s.ok()) s = db->GetStats(&after);
  if (!s.ok()) return s.WithContext("rebalancing '" + args.path + "'");
  std::cout << "rebalanced " << args.path << ": " << moves << " moves; ";
  PrintBalance(before, after);
  std::cout << '\n';
  return Status::OK();
}

}  // namespace

void AddRebalanceCommand(CLI::App* app, int* exit_code) {
  auto pool = std::make_shared<PoolArgs>();
  CLI::App* cmd = app->add_subcommand(
      "rebalance",
      "Split the heavy units of a range pool now (online, as its "
      "background thread does)");
  AddPoolArgs(cmd, pool.get());
  cmd->callback([pool, exit_code] {
    *exit_code = ExitWith(WithPool(ExistingPoolOptions(*pool), pool->path,
                                   [&](DB* db) { return Rebalance(*pool, db); }));
  });
}

}  // namespace plush::cli
