// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush verify POOL: checks every structure of the pool.
// plush verify --online HOST:PORT: the same, of the pool a running
//   plush-server holds, while it serves (its PLUSH.VERIFY).
// plush backup POOL DEST: a consistent copy of the pool in a new file.

#include <iostream>
#include <string>
#include <vector>

#include "command.h"
#include "server_request.h"

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

// The server's reply is the report `plush verify` prints, its last line
// "OK" or the Corruption status. With a password, an AUTH goes first.
int RunVerifyOnline(const std::string& address, const std::string& password) {
  std::vector<std::vector<std::string>> commands;
  if (!password.empty()) commands.push_back({"AUTH", password});
  commands.push_back({"PLUSH.VERIFY"});
  std::string report;
  Status s = RequestFromServer(address, commands, &report);
  if (!s.ok()) return ExitWith(s);
  std::cout << report;
  std::string_view last(report);
  if (!last.empty() && last.back() == '\n') last.remove_suffix(1);
  last = last.substr(last.rfind('\n') + 1);  // (npos + 1: all of it)
  if (last == "OK") return 0;
  if (last.rfind("Corruption", 0) == 0) return kExitProblemsFound;
  return ExitWith(Status::IOError("plush-server at " + address +
                                  ": a report that ends in neither OK nor "
                                  "Corruption"));
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
  auto address = std::make_shared<std::string>();
  auto password = std::make_shared<std::string>();
  CLI::App* cmd = app->add_subcommand(
      "verify",
      "Check the pool's superblock, allocator, levels and logs; print one "
      "line per problem and exit 1 if there is any");
  CLI::Option* path = cmd->add_option(
      "POOL", pool->path, "Path of the pool file (not with --online)");
  tools::AddBackendOption(cmd, &pool->backend);
  CLI::Option* online = cmd->add_option(
      "--online", *address,
      "Check instead the pool a running plush-server holds, while it serves "
      "(its PLUSH.VERIFY): the server's HOST:PORT");
  path->excludes(online);
  cmd->add_option("--password", *password,
                  "With --online: the server's password (requirepass), also "
                  "read from PLUSH_SERVER_PASSWORD, which other users' ps "
                  "does not show")
      ->envname("PLUSH_SERVER_PASSWORD");
  cmd->callback([pool, address, password, path, online, exit_code] {
    if (online->count() > 0) {
      *exit_code = RunVerifyOnline(*address, *password);
    } else if (path->count() > 0) {
      *exit_code = RunVerify(*pool);
    } else {
      *exit_code = ExitWith(Status::InvalidArgument(
          "verify needs a POOL, or --online HOST:PORT"));
    }
  });
}

}  // namespace plush::cli
