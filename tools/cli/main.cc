// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush: the command-line tool for Plush pools. Run `plush --help` for the
// subcommands and the exit codes.

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "command.h"
#include "command_line.h"

int main(int argc, char** argv) {
  CLI::App app("Create, inspect and edit Plush key-value pools.", "plush");
  app.footer(std::string(plush::cli::kExitCodeHelp));
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string(PLUSH_VERSION) + " (pool format " +
                           std::to_string(plush::kFormatVersion) + ")");

  int exit_code = 0;
  for (auto add : {plush::cli::AddCreateCommand, plush::cli::AddInfoCommand,
                   plush::cli::AddStatsCommand, plush::cli::AddVerifyCommand,
                   plush::cli::AddPutCommand, plush::cli::AddGetCommand,
                   plush::cli::AddDeleteCommand, plush::cli::AddTtlCommand,
                   plush::cli::AddExpireCommand, plush::cli::AddScanCommand,
                   plush::cli::AddDumpCommand, plush::cli::AddLoadCommand,
                   plush::cli::AddBackupCommand,
                   plush::cli::AddRebalanceCommand}) {
    add(&app, &exit_code);
  }

  if (auto code = plush::tools::Parse(
          &app, argc, argv,
          static_cast<int>(plush::Status::Code::kInvalidArgument))) {
    return *code;
  }
  // Output is buffered: a full disk or closed pipe shows up only here.
  std::cout.flush();
  if (!std::cout && exit_code == 0) {
    return plush::cli::ExitWith(
        plush::Status::IOError("cannot write to standard output"));
  }
  return exit_code;
}
