// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Protected mode, as Redis has it: a server with no password serves only
// clients on the loopback interface, so that one bound to a public
// address by mistake (--bind 0.0.0.0) serves no stranger. Other clients
// are refused when they connect, with kProtectedModeError telling them
// why and how to change it: per connection rather than at start, as in
// Redis, so that such a server still serves this host's clients.
// --protected-mode no turns it off.

#ifndef PLUSH_TOOLS_SERVER_PROTECTED_MODE_H_
#define PLUSH_TOOLS_SERVER_PROTECTED_MODE_H_

#include <string_view>

#include "server_config.h"

namespace plush::server {

// What a refused client reads before the server closes the connection.
inline constexpr std::string_view kProtectedModeError =
    "-DENIED plush-server is running in protected mode because no password "
    "is set: it serves only clients on the loopback interface (127.0.0.0/8 "
    "and ::1). To serve clients of other hosts, restart it with a password "
    "(--requirepass-file FILE), or, if every host that can reach it is "
    "trusted, with --protected-mode no.\r\n";

// True iff `address` (an IPv4 or IPv6 address in text) is one of the
// loopback interface: 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped to IPv6
// (::ffff:127.0.0.1, how a server bound to :: sees an IPv4 client).
// False for anything else, text that is no address included.
bool IsLoopbackAddress(std::string_view address);

// True iff protected mode is on and has effect: no password is set.
bool ProtectedModeApplies(const ServerConfig& config);

// True iff a client connecting from `peer_address` is refused.
bool ProtectedModeRefuses(const ServerConfig& config,
                          std::string_view peer_address);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_PROTECTED_MODE_H_
