// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The command layer: runs one request (an argument list, the command name
// first) against the pool and writes its reply. It knows nothing of
// sockets, so that the tests can drive it directly; connection.h feeds it.
//
// Every command that is not in the table, and every option a command does
// not support, answers an error: nothing is ignored silently.

#ifndef PLUSH_TOOLS_SERVER_COMMAND_TABLE_H_
#define PLUSH_TOOLS_SERVER_COMMAND_TABLE_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "keyspace.h"
#include "reply_writer.h"
#include "server_context.h"

namespace plush::server {

struct CommandCall {
  ServerContext& server;
  Session& session;
  std::span<const std::string_view> args;
  ReplyWriter& reply;
  // Set by a command that wrote: with --sync-writes its reply may go out
  // only after a sync that began after it (reply_sync.h).
  bool wrote = false;
  // What the command reads and writes keys through (Keys()): null for the
  // pool itself (server.keyspace); a transaction's overlay in EXEC.
  Keyspace* keyspace = nullptr;
};

// Runs call.args: authentication, lookup, arity, then the command —
// or, between MULTI and EXEC, queues it.
void Execute(CommandCall& call);

// Whether `args` names a command that may write keys (a write, EXEC, a
// command run as one batch, FLUSHDB), whatever its arguments.
bool MayWrite(std::span<const std::string_view> args);

// What COMMAND reports of each command.
struct CommandSpec {
  enum Flag : uint32_t {
    kWrite = 1,     // changes the pool
    kReadOnly = 2,  // reads the pool
    kAdmin = 4,     // SAVE, SHUTDOWN, CONFIG
    kNoAuth = 8,    // allowed before AUTH (AUTH, HELLO, QUIT)
    kFast = 16,     // O(1) (Redis's meaning)
    kNoMulti = 32,  // refused between MULTI and EXEC (SAVE, SHUTDOWN)
    // Runs at once between MULTI and EXEC instead of being queued (EXEC,
    // DISCARD, MULTI, WATCH, QUIT, RESET). Not reported by COMMAND.
    kRunsInMulti = 64,
    // Runs with the keyspace gate held alone (EXEC, WATCH, FLUSHDB);
    // commands that read or write keys (kReadOnly, kWrite) hold it shared.
    // Not reported.
    kAlone = 128,
    // Writes several keys (RENAME, RENAMENX): runs with the gate held
    // alone against a transaction's overlay, its writes one batch
    // (RunInOneBatch), as if it were a transaction of its own. Not
    // reported.
    kOneBatch = 256,
    // Takes a subcommand (CLIENT, CONFIG, COMMAND): CLIENT LIST shows it
    // with the name. Not reported.
    kSubcommands = 512,
  };
  std::string_view name;  // lower case
  // Redis's convention, the name included: N exactly N arguments, -N at
  // least N.
  int arity;
  uint32_t flags;
  // Positions of the keys among the arguments: first, last (-1: the last
  // argument), step; 0 0 0 for none.
  int first_key, last_key, key_step;
  void (*run)(CommandCall& call);
};

// Every command this server knows, in alphabetical order.
std::span<const CommandSpec> AllCommands();

// The command called `name` (any case), or null.
const CommandSpec* FindCommand(std::string_view name);

// An engine error as an error reply: "ERR NoSpace: <message>".
void ReplyError(ReplyWriter& reply, const Status& status);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_COMMAND_TABLE_H_
