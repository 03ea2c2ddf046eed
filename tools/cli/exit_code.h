// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The plush CLI's exit codes. A failed engine call exits with the numeric
// value of its Status::Code (stable by contract, see status.h), so scripts
// can tell a missing key from a busy or damaged pool without parsing text.

#ifndef PLUSH_TOOLS_CLI_EXIT_CODE_H_
#define PLUSH_TOOLS_CLI_EXIT_CODE_H_

#include <string_view>

#include "plush/status.h"

namespace plush::cli {

// `plush verify` found problems; equal to NotFound's code on purpose: both
// mean "the answer is no" rather than "the command failed".
inline constexpr int kExitProblemsFound = 1;

// The exit-code table printed at the end of `plush --help`.
inline constexpr std::string_view kExitCodeHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  NotFound: the key does not exist (get); verify found problems\n"
    "  2  InvalidArgument: bad command line or input data, missing pool\n"
    "  3  Corruption: the pool's bytes are inconsistent\n"
    "  4  NoSpace: the pool or its file system is full\n"
    "  5  IOError: the operating system refused an operation\n"
    "  6  Busy: the pool is open in another process\n"
    "  7  NotSupported: valid request this pool or build cannot serve\n";

// Returns 0 for OK; otherwise prints "plush: <status>" to stderr and returns
// the status's exit code.
int ExitWith(const Status& status);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_EXIT_CODE_H_
