// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// CLIENT: SETNAME, GETNAME, ID, INFO, LIST, KILL, as Redis 7 answers them,
// over the server's registry of connections (client_registry.h).
//
// CLIENT LIST's lines have Redis's layout and, of its fields, those that
// mean something here: id, addr, laddr, fd, name, age, idle (seconds since
// the client's last command began), flags (x: in MULTI, d: a key it
// WATCHes was written, N: neither), db=0, sub=0 psub=0 ssub=0 (there is no
// pub/sub), multi (commands queued, -1 outside MULTI), watch (keys
// watched, as Redis 7.4 reports it), cmd (the last command, with its
// subcommand for CLIENT, CONFIG and COMMAND; NULL before the first),
// user=default, redir=-1, resp. Redis's memory and buffer fields (qbuf,
// omem, tot-mem...) are left out rather than made up.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "command_handlers.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

// Redis's rule for client names: printable ASCII without spaces.
bool IsValidClientName(std::string_view name) {
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return c >= '!' && c <= '~'; });
}

int64_t SecondsSince(std::chrono::steady_clock::time_point then,
                     std::chrono::steady_clock::time_point now) {
  return std::chrono::duration_cast<std::chrono::seconds>(now - then).count();
}

// One line of CLIENT LIST (and CLIENT INFO), newline included.
std::string ClientLine(CommandCall& call, const ClientRecord& client) {
  const ClientActivity a = client.activity();
  const auto now = std::chrono::steady_clock::now();
  std::string flags;
  if (a.state.multi >= 0) flags += 'x';
  if (call.server.watched_keys.Touched(client.id)) flags += 'd';
  if (flags.empty()) flags = "N";
  std::string command = a.command.empty() ? "NULL" : std::string(a.command);
  if (!a.subcommand.empty()) command += "|" + a.subcommand;
  const bool ran = !a.command.empty();
  return "id=" + std::to_string(client.id) + " addr=" + client.addr +
         " laddr=" + client.laddr + " fd=" + std::to_string(client.fd) +
         " name=" + a.state.name +
         " age=" + std::to_string(SecondsSince(client.created, now)) +
         " idle=" +
         std::to_string(SecondsSince(ran ? a.last_command : client.created,
                                     now)) +
         " flags=" + flags + " db=0 sub=0 psub=0 ssub=0 multi=" +
         std::to_string(a.state.multi) +
         " watch=" + std::to_string(a.state.watched) +
         " cmd=" + command + " user=default redir=-1 resp=" +
         std::to_string(a.state.protocol) + "\n";
}

// Redis's client types: every client here is a normal one. nullopt for a
// name that is not a type.
std::optional<bool> IsNormalType(std::string_view type) {
  if (IsKeyword(type, "normal")) return true;
  if (IsKeyword(type, "master") || IsKeyword(type, "replica") ||
      IsKeyword(type, "slave") || IsKeyword(type, "pubsub")) {
    return false;
  }
  return std::nullopt;
}

void ReplyUnknownType(CommandCall& call, std::string_view type) {
  call.reply.Error("ERR Unknown client type '" + std::string(type) + "'");
}

// CLIENT LIST [TYPE type | ID id [id ...]]
void ListClients(CommandCall& call) {
  std::vector<int64_t> ids;
  bool none = false;  // a TYPE no client here has
  if (call.args.size() == 4 && IsKeyword(call.args[2], "type")) {
    const std::optional<bool> normal = IsNormalType(call.args[3]);
    if (!normal) return ReplyUnknownType(call, call.args[3]);
    none = !*normal;
  } else if (call.args.size() >= 4 && IsKeyword(call.args[2], "id")) {
    for (std::string_view arg : call.args.subspan(3)) {
      const std::optional<int64_t> id = ParseInteger(arg);
      if (!id) return call.reply.Error("ERR Invalid client ID");
      ids.push_back(*id);
    }
  } else if (call.args.size() != 2) {
    return call.reply.Error(kSyntaxError);
  }
  std::string lines;
  if (!none) {
    for (const ClientRegistry::Client& c : call.server.clients.List()) {
      const auto id = static_cast<int64_t>(c.record->id);
      if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) {
        continue;
      }
      lines += ClientLine(call, *c.record);
    }
  }
  call.reply.Bulk(lines);
}

// What CLIENT KILL's filters ask for (all of them must match).
struct KillFilter {
  std::optional<uint64_t> id;
  std::optional<std::string_view> addr, laddr;
  bool skip_me = true;
  bool none = false;  // a TYPE no client here has

  bool Matches(const ClientRecord& client) const {
    return !none && (!id || client.id == *id) &&
           (!addr || client.addr == *addr) &&
           (!laddr || client.laddr == *laddr);
  }
};

// Parses CLIENT KILL's filter pairs; false once it has answered an error.
bool ParseKillFilter(CommandCall& call, KillFilter* filter) {
  for (size_t i = 2; i < call.args.size(); i += 2) {
    const std::string_view option = call.args[i];
    const std::string_view value = call.args[i + 1];
    if (IsKeyword(option, "id")) {
      const std::optional<int64_t> id = ParseInteger(value);
      if (!id || *id <= 0) {
        call.reply.Error("ERR client-id should be greater than 0");
        return false;
      }
      filter->id = static_cast<uint64_t>(*id);
    } else if (IsKeyword(option, "addr")) {
      filter->addr = value;
    } else if (IsKeyword(option, "laddr")) {
      filter->laddr = value;
    } else if (IsKeyword(option, "skipme") && IsKeyword(value, "yes")) {
      filter->skip_me = true;
    } else if (IsKeyword(option, "skipme") && IsKeyword(value, "no")) {
      filter->skip_me = false;
    } else if (IsKeyword(option, "type")) {
      const std::optional<bool> normal = IsNormalType(value);
      if (!normal) {
        ReplyUnknownType(call, value);
        return false;
      }
      filter->none = filter->none || !*normal;
    } else if (IsKeyword(option, "user")) {
      if (value != "default") {
        call.reply.Error("ERR No such user '" + std::string(value) + "'");
        return false;
      }
    } else {
      call.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// Closes the clients `filter` matches and answers how many: the others on
// their own event loops (ClientHandle::Close), this one once its reply is
// sent, as Redis does.
int64_t KillClients(CommandCall& call, const KillFilter& filter) {
  int64_t killed = 0;
  for (const ClientRegistry::Client& c : call.server.clients.List()) {
    if (!filter.Matches(*c.record)) continue;
    if (c.record->id == call.session.id) {
      if (filter.skip_me) continue;
      call.session.close_after_reply = true;
    } else {
      c.handle->Close();
    }
    ++killed;
  }
  return killed;
}

// CLIENT KILL ip:port (the old form: OK or an error), or CLIENT KILL with
// filters: ID, ADDR, LADDR, SKIPME, TYPE, USER (the number killed).
void Kill(CommandCall& call) {
  if (call.args.size() == 3) {
    KillFilter filter;
    filter.addr = call.args[2];
    filter.skip_me = false;
    if (KillClients(call, filter) == 0) {
      call.reply.Error("ERR No such client");
    } else {
      call.reply.Ok();
    }
    return;
  }
  if (call.args.size() % 2 != 0) return call.reply.Error(kSyntaxError);
  KillFilter filter;
  if (ParseKillFilter(call, &filter)) {
    call.reply.Integer(KillClients(call, filter));
  }
}

}  // namespace

bool SetClientName(CommandCall& call, std::string_view name) {
  if (!IsValidClientName(name)) {
    call.reply.Error(
        "ERR Client names cannot contain spaces, newlines or special "
        "characters.");
    return false;
  }
  call.session.name = name;
  return true;
}

void RunClient(CommandCall& call) {
  const std::string_view sub = call.args[1];
  struct Subcommand {
    std::string_view name;
    int arity;  // Redis's convention, "client" and the subcommand included
  };
  static constexpr Subcommand kSubcommands[] = {
      {"getname", 2}, {"id", 2},   {"info", 2},
      {"kill", -3},   {"list", -2}, {"setname", 3}};
  const Subcommand* found = nullptr;
  for (const Subcommand& s : kSubcommands) {
    if (IsKeyword(sub, s.name)) found = &s;
  }
  if (found == nullptr) {
    call.reply.Error("ERR unknown subcommand '" + std::string(sub) +
                     "'. Try CLIENT HELP.");
    return;
  }
  const size_t arguments = call.args.size();
  if (found->arity >= 0 ? arguments != static_cast<size_t>(found->arity)
                        : arguments < static_cast<size_t>(-found->arity)) {
    call.reply.Error("ERR wrong number of arguments for 'client|" +
                     std::string(found->name) + "' command");
  } else if (found->name == "setname") {
    if (SetClientName(call, call.args[2])) call.reply.Ok();
  } else if (found->name == "getname") {
    if (call.session.name.empty()) {
      call.reply.Null();
    } else {
      call.reply.Bulk(call.session.name);
    }
  } else if (found->name == "id") {
    call.reply.Integer(static_cast<int64_t>(call.session.id));
  } else if (found->name == "info") {
    call.reply.Bulk(ClientLine(call, *call.session.client));
  } else if (found->name == "list") {
    ListClients(call);
  } else {
    Kill(call);
  }
}

}  // namespace plush::server
