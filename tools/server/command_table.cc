// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The table of commands, and Execute(): what every request goes through
// before its command runs.

#include "command_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "command_handlers.h"

namespace plush::server {
namespace {

using F = CommandSpec::Flag;

// Alphabetical: FindCommand searches it by bisection.
constexpr std::array kCommands = {
    CommandSpec{"append", 3, F::kWrite | F::kFast, 1, 1, 1, RunAppend},
    CommandSpec{"auth", -2, F::kNoAuth | F::kFast, 0, 0, 0, RunAuth},
    CommandSpec{"client", -2, F::kSubcommands, 0, 0, 0, RunClient},
    CommandSpec{"command", -1, F::kSubcommands, 0, 0, 0, RunCommand},
    CommandSpec{"config", -2, F::kAdmin | F::kSubcommands, 0, 0, 0,
                RunConfig},
    CommandSpec{"dbsize", 1, F::kReadOnly, 0, 0, 0, RunDbSize},
    CommandSpec{"decr", 2, F::kWrite | F::kFast, 1, 1, 1, RunDecr},
    CommandSpec{"decrby", 3, F::kWrite | F::kFast, 1, 1, 1, RunDecrBy},
    CommandSpec{"del", -2, F::kWrite, 1, -1, 1, RunDel},
    CommandSpec{"discard", 1, F::kFast | F::kRunsInMulti, 0, 0, 0, RunDiscard},
    CommandSpec{"echo", 2, F::kFast, 0, 0, 0, RunEcho},
    CommandSpec{"exec", 1, F::kRunsInMulti | F::kAlone, 0, 0, 0, RunExec},
    CommandSpec{"exists", -2, F::kReadOnly | F::kFast, 1, -1, 1, RunExists},
    CommandSpec{"expire", -3, F::kWrite | F::kFast, 1, 1, 1, RunExpire},
    CommandSpec{"expireat", -3, F::kWrite | F::kFast, 1, 1, 1, RunExpireAt},
    CommandSpec{"expiretime", 2, F::kReadOnly | F::kFast, 1, 1, 1,
                RunExpireTime},
    CommandSpec{"flushall", -1, F::kWrite | F::kAlone, 0, 0, 0, RunFlush},
    CommandSpec{"flushdb", -1, F::kWrite | F::kAlone, 0, 0, 0, RunFlush},
    CommandSpec{"get", 2, F::kReadOnly | F::kFast, 1, 1, 1, RunGet},
    CommandSpec{"getdel", 2, F::kWrite | F::kFast, 1, 1, 1, RunGetDel},
    CommandSpec{"getex", -2, F::kWrite | F::kFast, 1, 1, 1, RunGetEx},
    CommandSpec{"getrange", 4, F::kReadOnly, 1, 1, 1, RunGetRange},
    CommandSpec{"getset", 3, F::kWrite | F::kFast, 1, 1, 1, RunGetSet},
    CommandSpec{"hello", -1, F::kNoAuth | F::kFast, 0, 0, 0, RunHello},
    CommandSpec{"incr", 2, F::kWrite | F::kFast, 1, 1, 1, RunIncr},
    CommandSpec{"incrby", 3, F::kWrite | F::kFast, 1, 1, 1, RunIncrBy},
    CommandSpec{"incrbyfloat", 3, F::kWrite | F::kFast, 1, 1, 1,
                RunIncrByFloat},
    CommandSpec{"info", -1, 0, 0, 0, 0, RunInfo},
    CommandSpec{"keys", 2, F::kReadOnly, 0, 0, 0, RunKeys},
    CommandSpec{"lastsave", 1, F::kFast, 0, 0, 0, RunLastSave},
    CommandSpec{"mget", -2, F::kReadOnly | F::kFast, 1, -1, 1, RunMGet},
    CommandSpec{"mset", -3, F::kWrite, 1, -1, 2, RunMSet},
    CommandSpec{"multi", 1, F::kFast | F::kRunsInMulti, 0, 0, 0, RunMulti},
    CommandSpec{"persist", 2, F::kWrite | F::kFast, 1, 1, 1, RunPersist},
    CommandSpec{"pexpire", -3, F::kWrite | F::kFast, 1, 1, 1, RunPExpire},
    CommandSpec{"pexpireat", -3, F::kWrite | F::kFast, 1, 1, 1, RunPExpireAt},
    CommandSpec{"pexpiretime", 2, F::kReadOnly | F::kFast, 1, 1, 1,
                RunPExpireTime},
    CommandSpec{"ping", -1, F::kFast, 0, 0, 0, RunPing},
    CommandSpec{"plush.verify", 1, F::kAdmin | F::kNoMulti, 0, 0, 0,
                RunPlushVerify},
    CommandSpec{"psetex", 4, F::kWrite, 1, 1, 1, RunSetEx},
    CommandSpec{"pttl", 2, F::kReadOnly | F::kFast, 1, 1, 1, RunPTtl},
    CommandSpec{"quit", -1, F::kNoAuth | F::kFast | F::kRunsInMulti, 0, 0, 0,
                RunQuit},
    CommandSpec{"randomkey", 1, F::kReadOnly, 0, 0, 0, RunRandomKey},
    CommandSpec{"rename", 3, F::kWrite | F::kOneBatch, 1, 2, 1, RunRename},
    CommandSpec{"renamenx", 3, F::kWrite | F::kFast | F::kOneBatch, 1, 2, 1,
                RunRenameNx},
    CommandSpec{"reset", 1, F::kNoAuth | F::kFast | F::kRunsInMulti, 0, 0, 0,
                RunReset},
    CommandSpec{"save", 1, F::kAdmin | F::kNoMulti, 0, 0, 0, RunSave},
    CommandSpec{"scan", -2, F::kReadOnly, 0, 0, 0, RunScan},
    CommandSpec{"select", 2, F::kFast, 0, 0, 0, RunSelect},
    CommandSpec{"set", -3, F::kWrite, 1, 1, 1, RunSet},
    CommandSpec{"setex", 4, F::kWrite, 1, 1, 1, RunSetEx},
    CommandSpec{"setnx", 3, F::kWrite | F::kFast, 1, 1, 1, RunSetNx},
    CommandSpec{"setrange", 4, F::kWrite, 1, 1, 1, RunSetRange},
    CommandSpec{"shutdown", -1, F::kAdmin | F::kNoMulti, 0, 0, 0, RunShutdown},
    CommandSpec{"strlen", 2, F::kReadOnly | F::kFast, 1, 1, 1, RunStrLen},
    CommandSpec{"time", 1, F::kFast, 0, 0, 0, RunTime},
    CommandSpec{"touch", -2, F::kReadOnly | F::kFast, 1, -1, 1, RunExists},
    CommandSpec{"ttl", 2, F::kReadOnly | F::kFast, 1, 1, 1, RunTtl},
    CommandSpec{"type", 2, F::kReadOnly | F::kFast, 1, 1, 1, RunType},
    CommandSpec{"unlink", -2, F::kWrite | F::kFast, 1, -1, 1, RunDel},
    CommandSpec{"unwatch", 1, F::kFast, 0, 0, 0, RunUnwatch},
    CommandSpec{"wait", 3, 0, 0, 0, 0, RunWait},
    CommandSpec{"watch", -2, F::kFast | F::kRunsInMulti | F::kAlone, 1, -1, 1,
                RunWatch},
};

static_assert(std::is_sorted(kCommands.begin(), kCommands.end(),
                             [](const CommandSpec& a, const CommandSpec& b) {
                               return a.name < b.name;
                             }));

}  // namespace

const CommandSpec* FindCommand(std::string_view name) {
  constexpr size_t kLongestName = 16;
  if (name.size() > kLongestName) return nullptr;
  char lower[kLongestName];
  for (size_t i = 0; i < name.size(); ++i) {
    lower[i] =
        static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  const std::string_view key(lower, name.size());
  auto it = std::lower_bound(kCommands.begin(), kCommands.end(), key,
                             [](const CommandSpec& spec, std::string_view n) {
                               return spec.name < n;
                             });
  return it != kCommands.end() && it->name == key ? &*it : nullptr;
}

namespace {

// Redis's "ERR unknown command 'x', with args beginning with: 'a' 'b' ".
std::string UnknownCommandError(std::span<const std::string_view> args) {
  constexpr size_t kQuoted = 128;  // of each argument, as Redis does
  std::string line = "ERR unknown command '";
  line.append(args[0].substr(0, kQuoted));
  line += "', with args beginning with: ";
  for (size_t i = 1; i < args.size() && line.size() < 1024; ++i) {
    line += '\'';
    line.append(args[i].substr(0, kQuoted));
    line += "' ";
  }
  return line;
}

bool ArityMatches(const CommandSpec& spec, size_t arguments) {
  return spec.arity >= 0 ? arguments == static_cast<size_t>(spec.arity)
                         : arguments >= static_cast<size_t>(-spec.arity);
}

}  // namespace

std::span<const CommandSpec> AllCommands() { return kCommands; }

bool MayWrite(std::span<const std::string_view> args) {
  const CommandSpec* spec = FindCommand(args[0]);
  return spec != nullptr &&
         (spec->flags & (F::kWrite | F::kAlone | F::kOneBatch)) != 0;
}

namespace {

// Between MULTI and EXEC, a command refused before it is queued (unknown,
// wrong arity, not allowed) makes EXEC fail, as in Redis.
void Refuse(CommandCall& call, std::string_view error) {
  call.reply.Error(error);
  if (call.session.transaction) call.session.transaction->refused_command = true;
}

// Runs a command through the keyspace gate (keyspace_gate.h).
void RunThroughGate(const CommandSpec& spec, CommandCall& call) {
  if ((spec.flags & F::kOneBatch) != 0) {
    ExclusiveGateLock gate(&call.server.gate);
    const std::span<const std::string_view> commands[] = {call.args};
    RunInOneBatch(call, commands);
  } else if ((spec.flags & F::kAlone) != 0) {
    ExclusiveGateLock gate(&call.server.gate);
    spec.run(call);
  } else if ((spec.flags & (F::kReadOnly | F::kWrite)) != 0) {
    SharedGateLock gate(&call.server.gate);
    spec.run(call);
  } else {
    spec.run(call);
  }
}

// What CLIENT LIST shows of a command: its subcommand, in lower case, if
// it takes one (and the name is short enough to be one).
std::string SubcommandOf(const CommandSpec& spec,
                         std::span<const std::string_view> args) {
  constexpr size_t kLongestSubcommand = 32;
  std::string sub;
  if ((spec.flags & F::kSubcommands) == 0 || args.size() < 2 ||
      args[1].size() > kLongestSubcommand) {
    return sub;
  }
  for (char c : args[1]) {
    sub += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return sub;
}

// Execute() but for what the client registry learns.
void Dispatch(CommandCall& call, const CommandSpec* spec) {
  // Before AUTH, nothing but AUTH, HELLO, QUIT and RESET: not even whether
  // a command exists.
  if (!call.session.authenticated &&
      (spec == nullptr || (spec->flags & F::kNoAuth) == 0)) {
    call.reply.Error("NOAUTH Authentication required.");
    return;
  }
  if (spec == nullptr) {
    Refuse(call, UnknownCommandError(call.args));
    return;
  }
  if (!ArityMatches(*spec, call.args.size())) {
    const std::string error = "wrong number of arguments for '" +
                              std::string(spec->name) + "' command";
    if (spec->run == RunExec) {
      // Redis's words for EXEC, which ends the transaction (if any).
      DiscardTransaction(call);
      call.reply.Error("EXECABORT Transaction discarded because of: " + error);
    } else {
      Refuse(call, "ERR " + error);
    }
    return;
  }
  if (call.session.transaction && (spec->flags & F::kRunsInMulti) == 0) {
    if ((spec->flags & F::kNoMulti) != 0) {
      Refuse(call, "ERR Command not allowed inside a transaction");
    } else {
      QueueCommand(call);
    }
    return;
  }
  RunThroughGate(*spec, call);
}

}  // namespace

void Execute(CommandCall& call) {
  call.server.commands_processed.fetch_add(1, std::memory_order_relaxed);
  const CommandSpec* spec = FindCommand(call.args[0]);
  ClientRecord& client = *call.session.client;
  // Before it runs, so that CLIENT LIST and INFO show themselves running.
  if (spec != nullptr) {
    client.CommandStarted(&spec->name, SubcommandOf(*spec, call.args));
  }
  Dispatch(call, spec);
  const Session& session = call.session;
  client.Update(session.name,
                session.transaction
                    ? static_cast<int64_t>(session.transaction->commands.size())
                    : -1,
                session.watched.size(), call.reply.protocol());
}

}  // namespace plush::server
