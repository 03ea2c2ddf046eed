// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// CONFIG: GET answers the parameters that clients and tools read (e.g.
// redis-benchmark asks for save and appendonly before it starts) with what
// is true of this server. Nothing can be changed while it runs: SET
// accepts only the values the parameters have already, RESETSTAT and
// REWRITE answer errors.

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "command_handlers.h"
#include "glob.h"

namespace plush::server {
namespace {

struct Parameter {
  std::string_view name;  // lower case
  std::string value;
};

std::vector<Parameter> Parameters(const ServerContext& server) {
  const ServerConfig& config = server.config;
  return {
      // No append-only file: answered writes are durable in the pool's
      // own logs (docs/api.md, "Durability of answered writes").
      {"appendonly", "no"},
      {"bind", config.bind},
      {"databases", "1"},
      {"maxclients", std::to_string(config.maxclients)},
      // No memory limit to evict at: a full pool refuses writes (NoSpace).
      {"maxmemory", "0"},
      {"maxmemory-policy", "noeviction"},
      {"port", std::to_string(server.port.load())},
      {"protected-mode", config.protected_mode ? "yes" : "no"},
      // No snapshots on a schedule: SAVE checkpoints when asked.
      {"save", ""},
      {"timeout", std::to_string(config.idle_timeout_seconds)},
  };
}

// CONFIG GET pattern [pattern ...]: a map of every parameter a pattern
// matches, each once. A pattern without glob characters is looked up by
// name (any case) and the reply names the parameter as the client spelled
// it, as Redis does; a glob pattern answers the parameters' own names.
void ConfigGet(CommandCall& call) {
  const std::vector<Parameter> parameters = Parameters(call.server);
  std::vector<std::optional<std::string_view>> reply_names(parameters.size());
  std::vector<size_t> order;
  for (std::string_view pattern : call.args.subspan(2)) {
    const bool glob = pattern.find_first_of("*?[") != std::string_view::npos;
    // The names are lower case: matching the lower-cased pattern is
    // Redis's case-insensitive match.
    std::string lower(pattern);
    std::ranges::transform(lower, lower.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (reply_names[i]) continue;
      if (glob ? GlobMatch(lower, parameters[i].name)
               : IsKeyword(pattern, parameters[i].name)) {
        reply_names[i] = glob ? parameters[i].name : pattern;
        order.push_back(i);
      }
    }
  }
  call.reply.MapHeader(order.size());
  for (size_t i : order) {
    call.reply.Bulk(*reply_names[i]);
    call.reply.Bulk(parameters[i].value);
  }
}

// CONFIG SET parameter value [parameter value ...]: OK only if every value
// is the one its parameter has (nothing to change: e.g. `CONFIG SET save
// ""`, which scripts send to turn snapshots off); otherwise Redis's error
// for the first parameter that is unknown or would change.
void ConfigSet(CommandCall& call) {
  if (call.args.size() % 2 != 0) {
    call.reply.Error(kSyntaxError);
    return;
  }
  const std::vector<Parameter> parameters = Parameters(call.server);
  for (size_t i = 2; i < call.args.size(); i += 2) {
    const std::string_view name = call.args[i];
    const auto it = std::ranges::find_if(parameters, [&](const Parameter& p) {
      return IsKeyword(name, p.name);
    });
    if (it == parameters.end()) {
      call.reply.Error(
          "ERR Unknown option or number of arguments for CONFIG SET - '" +
          std::string(name) + "'");
      return;
    }
    if (call.args[i + 1] != it->value) {
      call.reply.Error("ERR CONFIG SET failed (possibly related to argument '" +
                       std::string(name) + "') - can't set immutable config");
      return;
    }
  }
  call.reply.Ok();
}

}  // namespace

// CONFIG GET | SET | RESETSTAT | REWRITE
void RunConfig(CommandCall& call) {
  const std::string_view sub = call.args[1];
  struct Subcommand {
    std::string_view name;
    int arity;  // Redis's convention, "config" and the subcommand included
  };
  static constexpr Subcommand kSubcommands[] = {
      {"get", -3}, {"set", -4}, {"resetstat", 2}, {"rewrite", 2}};
  const Subcommand* found = nullptr;
  for (const Subcommand& s : kSubcommands) {
    if (IsKeyword(sub, s.name)) found = &s;
  }
  if (found == nullptr) {
    call.reply.Error("ERR unknown subcommand '" + std::string(sub) +
                     "'. Try CONFIG HELP.");
    return;
  }
  const size_t arguments = call.args.size();
  if (found->arity >= 0 ? arguments != static_cast<size_t>(found->arity)
                        : arguments < static_cast<size_t>(-found->arity)) {
    call.reply.Error("ERR wrong number of arguments for 'config|" +
                     std::string(found->name) + "' command");
  } else if (found->name == "get") {
    ConfigGet(call);
  } else if (found->name == "set") {
    ConfigSet(call);
  } else if (found->name == "resetstat") {
    // Answering OK would claim INFO's counters start again from zero: the
    // pool's cannot.
    call.reply.Error(
        "ERR CONFIG RESETSTAT is not supported: the pool's counters in INFO "
        "stats (plush_*) cannot be reset, so none is");
  } else {
    call.reply.Error("ERR The server is running without a config file");
  }
}

}  // namespace plush::server
