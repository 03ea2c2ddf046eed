// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The connection commands: PING, ECHO, QUIT, AUTH, HELLO, SELECT, RESET
// (CLIENT: commands_client.cc).

#include <string>

#include "command_handlers.h"
#include "password.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";

// Checks a username and password against --requirepass-file (there is one
// user, Redis's "default") and marks the session authenticated if they
// match. REQUIRES: a password is configured.
bool Authenticate(CommandCall& call, std::string_view user,
                  std::string_view password) {
  const bool match = PasswordMatches(password, *call.server.config.password) &&
                     user == "default";
  // A failed attempt does not undo an earlier success (as in Redis).
  if (match) call.session.authenticated = true;
  return match;
}

}  // namespace

void RunPing(CommandCall& call) {
  if (call.args.size() > 2) {
    call.reply.Error("ERR wrong number of arguments for 'ping' command");
  } else if (call.args.size() == 2) {
    call.reply.Bulk(call.args[1]);
  } else {
    call.reply.Status("PONG");
  }
}

void RunEcho(CommandCall& call) { call.reply.Bulk(call.args[1]); }

void RunQuit(CommandCall& call) {
  call.reply.Ok();
  call.session.close_after_reply = true;
}

// AUTH [username] password
void RunAuth(CommandCall& call) {
  if (call.args.size() > 3) {
    call.reply.Error(kSyntaxError);
    return;
  }
  if (!call.server.config.password) {
    call.reply.Error(
        "ERR AUTH <password> called without any password configured for the "
        "default user. Are you sure your configuration is correct?");
    return;
  }
  const std::string_view user =
      call.args.size() == 3 ? call.args[1] : "default";
  if (Authenticate(call, user, call.args.back())) {
    call.reply.Ok();
  } else {
    call.reply.Error(kWrongPass);
  }
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]: switches
// to RESP3 (or stays with RESP2) and describes the server.
void RunHello(CommandCall& call) {
  int protocol = call.reply.protocol();
  if (call.args.size() > 1) {
    const std::optional<int64_t> version = ParseInteger(call.args[1]);
    if (!version) {
      call.reply.Error(
          "ERR Protocol version is not an integer or out of range");
      return;
    }
    if (*version != 2 && *version != 3) {
      call.reply.Error("NOPROTO unsupported protocol version");
      return;
    }
    protocol = static_cast<int>(*version);
  }
  std::optional<std::pair<std::string_view, std::string_view>> auth;
  std::optional<std::string_view> name;
  for (size_t i = 2; i < call.args.size(); ++i) {
    const size_t left = call.args.size() - i - 1;
    if (IsKeyword(call.args[i], "auth") && left >= 2) {
      auth.emplace(call.args[i + 1], call.args[i + 2]);
      i += 2;
    } else if (IsKeyword(call.args[i], "setname") && left >= 1) {
      name = call.args[++i];
    } else {
      call.reply.Error("ERR Syntax error in HELLO option '" +
                       std::string(call.args[i]) + "'");
      return;
    }
  }
  if (auth) {
    if (!call.server.config.password) {
      call.reply.Error(
          "ERR AUTH <password> called without any password configured for "
          "the default user. Are you sure your configuration is correct?");
      return;
    }
    if (!Authenticate(call, auth->first, auth->second)) {
      call.reply.Error(kWrongPass);
      return;
    }
  }
  if (!call.session.authenticated) {
    call.reply.Error(
        "NOAUTH HELLO must be called with the client already authenticated, "
        "otherwise the HELLO <proto> AUTH <user> <pass> option can be used "
        "to authenticate the client and select the RESP protocol version at "
        "the same time");
    return;
  }
  if (name && !SetClientName(call, *name)) return;
  call.reply.set_protocol(protocol);
  call.reply.MapHeader(7);
  call.reply.Bulk("server");
  call.reply.Bulk("plush");
  call.reply.Bulk("version");
  call.reply.Bulk(PLUSH_VERSION);
  call.reply.Bulk("proto");
  call.reply.Integer(protocol);
  call.reply.Bulk("id");
  call.reply.Integer(static_cast<int64_t>(call.session.id));
  call.reply.Bulk("mode");
  call.reply.Bulk("standalone");
  call.reply.Bulk("role");
  call.reply.Bulk("master");
  call.reply.Bulk("modules");
  call.reply.ArrayHeader(0);
}

// SELECT 0: the pool is database 0, the only one.
void RunSelect(CommandCall& call) {
  const std::optional<int64_t> index = ParseInteger(call.args[1]);
  if (!index) {
    call.reply.Error(kNotAnInteger);
  } else if (*index != 0) {
    call.reply.Error("ERR DB index is out of range");
  } else {
    call.reply.Ok();
  }
}

// RESET: the connection as it was when it opened, as Redis: no
// transaction, no watched keys, RESP2, no name, and (with a password) not
// authenticated.
void RunReset(CommandCall& call) {
  DiscardTransaction(call);
  call.session.name.clear();
  call.session.authenticated = !call.server.config.password.has_value();
  call.reply.set_protocol(2);
  call.reply.Status("RESET");
}

}  // namespace plush::server
