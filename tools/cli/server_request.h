// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// One command sent to a running plush-server over the Redis protocol, for
// what the CLI asks of a pool that a server holds open (its lock keeps the
// CLI from opening it): `plush verify --online` (PLUSH.VERIFY).

#ifndef PLUSH_TOOLS_CLI_SERVER_REQUEST_H_
#define PLUSH_TOOLS_CLI_SERVER_REQUEST_H_

#include <string>
#include <vector>

#include "plush/status.h"

namespace plush::cli {

// Sends `commands` (each its arguments) to the server at `address`
// ("host:port") in one write, and reads a reply to each, a bulk or simple
// string; the last one's goes into *reply. Stops at the first error reply:
// InvalidArgument with its text (also for an address without a port);
// IOError if the server cannot be reached or a reply is cut off or not one
// this client reads.
Status RequestFromServer(const std::string& address,
                         const std::vector<std::vector<std::string>>& commands,
                         std::string* reply);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_SERVER_REQUEST_H_
