// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The subcommands of the plush CLI and the pieces they share. Each
// Add*Command registers one subcommand; when it is the one selected on the
// command line, its callback runs it and stores the process exit code in
// *exit_code. A failed engine call exits with the numeric value of its
// Status::Code (stable by contract, see status.h), so scripts can tell a
// missing key from a busy or damaged pool without parsing text.

#ifndef PLUSH_TOOLS_CLI_COMMAND_H_
#define PLUSH_TOOLS_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "codec.h"
#include "plush/db.h"
#include "pool_args.h"

namespace plush::cli {

// `plush verify` found problems; equal to NotFound's code on purpose: both
// mean "the answer is no" rather than "the command failed".
inline constexpr int kExitProblemsFound = 1;

// The exit-code table printed at the end of `plush --help`.
inline constexpr std::string_view kExitCodeHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  NotFound: the key does not exist (get, ttl, expire); verify found "
    "problems\n"
    "  2  InvalidArgument: bad command line or input data, missing pool\n"
    "  3  Corruption: the pool's bytes are inconsistent\n"
    "  4  NoSpace: the pool or its file system is full\n"
    "  5  IOError: the operating system refused an operation\n"
    "  6  Busy: the pool is open in another process\n"
    "  7  NotSupported: valid request this pool or build cannot serve\n";

// Returns 0 for OK; otherwise prints "plush: <status>" to stderr and returns
// the status's exit code.
int ExitWith(const Status& status);

void AddCreateCommand(CLI::App* app, int* exit_code);
void AddInfoCommand(CLI::App* app, int* exit_code);
void AddStatsCommand(CLI::App* app, int* exit_code);
void AddVerifyCommand(CLI::App* app, int* exit_code);
void AddPutCommand(CLI::App* app, int* exit_code);
void AddGetCommand(CLI::App* app, int* exit_code);
void AddDeleteCommand(CLI::App* app, int* exit_code);
void AddTtlCommand(CLI::App* app, int* exit_code);
void AddExpireCommand(CLI::App* app, int* exit_code);
void AddScanCommand(CLI::App* app, int* exit_code);
void AddDumpCommand(CLI::App* app, int* exit_code);
void AddLoadCommand(CLI::App* app, int* exit_code);
void AddBackupCommand(CLI::App* app, int* exit_code);
void AddRebalanceCommand(CLI::App* app, int* exit_code);

// The pool a subcommand works on (pool_args.h, shared with plush-server).
using tools::ExistingPoolOptions;
using tools::PoolArgs;
// Adds the positional POOL argument and the --backend option.
void AddPoolArgs(CLI::App* cmd, PoolArgs* args);

// Adds the mutually exclusive --hex and --base64 flags.
void AddEncodingFlags(CLI::App* cmd, Encoding* encoding);

// Opens the pool at `path`, runs `body` and closes the pool. Returns the
// first error.
Status WithPool(const Options& options, const std::string& path,
                const std::function<Status(DB*)>& body);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_COMMAND_H_
