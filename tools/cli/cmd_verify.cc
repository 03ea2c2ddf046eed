// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush verify POOL: checks every structure of the pool.

#include <iostream>

#include "command.h"
#include "exit_code.h"

namespace plush::cli {
namespace {

int RunVerify(const PoolArgs& pool) {
  std::string report;
  Status s = WithPool(ExistingPoolOptions(pool), pool.path,
                      [&](DB* db) { return db->Verify(&report); });
  std::cout << report;
  if (!report.empty() && report.back() != '\n') std::cout << '\n';
  if (s.ok()) std::cout << pool.path << ": OK\n";
  int code = ExitWith(s);
  // Damage found by Open() or by Verify() is the answer to the question
  // asked, not a failure to answer it.
  return s.IsCorruption() ? kExitProblemsFound : code;
}

}  // namespace

void AddVerifyCommand(CLI::App* app, int* exit_code) {
  auto pool = std::make_shared<PoolArgs>();
  CLI::App* cmd = app->add_subcommand(
      "verify",
      "Check the pool's superblock, allocator, levels and logs; print one "
      "line per problem and exit 1 if there is any");
  AddPoolArgs(cmd, pool.get());
  cmd->callback([pool, exit_code] { *exit_code = RunVerify(*pool); });
}

}  // namespace plush::cli
