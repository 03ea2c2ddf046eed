// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush verify POOL: checks every structure of the pool.
// plush backup POOL DEST: a consistent copy of the pool in a new file.

#include <iostream>

#include "command.h"

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

int RunBackup(const PoolArgs& pool, const std::string& dest) {
  Status s = WithPool(ExistingPoolOptions(pool), pool.path,
                      [&](DB* db) { return db->Backup(dest); });
  if (s.ok()) std::cout << "backed up " << pool.path << " to " << dest << '\n';
  return ExitWith(s);
}

}  // namespace

void AddBackupCommand(CLI::App* app, int* exit_code) {
  auto pool = std::make_shared<PoolArgs>();
  auto dest = std::make_shared<std::string>();
  CLI::App* cmd = app->add_subcommand(
      "backup",
      "Copy the pool, consistently, to the new file DEST (never "
      "overwritten); the copy opens like any pool");
  AddPoolArgs(cmd, pool.get());
  cmd->add_option("DEST", *dest, "The copy's path (must not exist)")
      ->required();
  cmd->callback(
      [pool, dest, exit_code] { *exit_code = RunBackup(*pool, *dest); });
}

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
