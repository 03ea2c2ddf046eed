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

// Sends `args` as one command to the server at `address` ("host:port")
// and reads its reply, a bulk or simple string, into *reply.
// InvalidArgument for an address without a port, or an error reply (its
// text); IOError if the server cannot be reached or its reply is cut off
// or not one this client reads.
Status RequestFromServer(const std::string& address,
                         const std::vector<std::string>& args,
                         std::string* reply);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_SERVER_REQUEST_H_
