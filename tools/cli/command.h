// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The subcommands of the plush CLI and the pieces they share. Each
// Add*Command registers one subcommand; when it is the one selected on the
// command line, its callback runs it and stores the process exit code (see
// exit_code.h) in *exit_code.

#ifndef PLUSH_TOOLS_CLI_COMMAND_H_
#define PLUSH_TOOLS_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "codec.h"
#include "plush/db.h"

namespace plush::cli {

void AddCreateCommand(CLI::App* app, int* exit_code);
void AddInfoCommand(CLI::App* app, int* exit_code);
void AddStatsCommand(CLI::App* app, int* exit_code);
void AddVerifyCommand(CLI::App* app, int* exit_code);
void AddPutCommand(CLI::App* app, int* exit_code);
void AddGetCommand(CLI::App* app, int* exit_code);
void AddDeleteCommand(CLI::App* app, int* exit_code);
void AddScanCommand(CLI::App* app, int* exit_code);
void AddDumpCommand(CLI::App* app, int* exit_code);
void AddLoadCommand(CLI::App* app, int* exit_code);
void AddBackupCommand(CLI::App* app, int* exit_code);

// Where a subcommand finds its pool: the positional POOL and --backend.
struct PoolArgs {
  std::string path;
  Backend backend = Backend::kAuto;
};

// Adds the positional POOL argument and the --backend option.
void AddPoolArgs(CLI::App* cmd, PoolArgs* args);

// Adds the mutually exclusive --hex and --base64 flags.
void AddEncodingFlags(CLI::App* cmd, Encoding* encoding);

// Options that open an existing pool (never create one).
Options ExistingPoolOptions(const PoolArgs& args);

// Opens the pool at `path`, runs `body` and closes the pool. Returns the
// first error.
Status WithPool(const Options& options, const std::string& path,
                const std::function<Status(DB*)>& body);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_COMMAND_H_
