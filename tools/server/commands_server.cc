// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The server commands: INFO, SAVE, PLUSH.VERIFY, LASTSAVE, SHUTDOWN,
// COMMAND, TIME, WAIT.

#include <chrono>
#include <ctime>
#include <string>

#include "command_handlers.h"
#include "info_report.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

// One entry of COMMAND's reply, in Redis 7's layout: name, arity, flags,
// first key, last key, key step, then ACL categories, tips, key
// specifications and subcommands, which this server does not describe.
void ReplyCommandSpec(ReplyWriter& reply, const CommandSpec& spec) {
  static constexpr std::pair<uint32_t, std::string_view> kFlagNames[] = {
      {CommandSpec::kWrite, "write"}, {CommandSpec::kReadOnly, "readonly"},
      {CommandSpec::kAdmin, "admin"}, {CommandSpec::kNoAuth, "no_auth"},
      {CommandSpec::kFast, "fast"},     {CommandSpec::kNoMulti, "no_multi"},
  };
  reply.ArrayHeader(10);
  reply.Bulk(spec.name);
  reply.Integer(spec.arity);
  size_t flags = 0;
  for (const auto& [flag, name] : kFlagNames) flags += (spec.flags & flag) != 0;
  reply.ArrayHeader(flags);
  for (const auto& [flag, name] : kFlagNames) {
    if ((spec.flags & flag) != 0) reply.Status(name);
  }
  reply.Integer(spec.first_key);
  reply.Integer(spec.last_key);
  reply.Integer(spec.key_step);
  for (int i = 0; i < 4; ++i) reply.ArrayHeader(0);
}

}  // namespace

// INFO [section ...]
void RunInfo(CommandCall& call) {
  std::string text;
  Status s = InfoReport(call.server, call.args.subspan(1), &text);
  if (s.ok()) {
    call.reply.Text(text);
  } else {
    ReplyError(call.reply, s);
  }
}

// SAVE: a checkpoint (DB::Checkpoint), which on the file back end also
// syncs the pool, so that what was written survives a power failure.
void RunSave(CommandCall& call) {
  Status s;
  {
    SharedGateLock gate(&call.server.gate);  // the pool stays (FLUSHDB)
    s = call.server.db->Checkpoint();
  }
  if (s.ok()) {
    call.server.last_save_time.store(std::time(nullptr));
    call.reply.Ok();
  } else {
    ReplyError(call.reply, s);
  }
}

// PLUSH.VERIFY: DB::Verify of the live pool, online (writers wait at most
// for the check of their own unit; readers never). The reply is the report
// `plush verify` prints: one line per problem found, then "OK" or the
// count and first problem; an error only if the check could not be made.
void RunPlushVerify(CommandCall& call) {
  std::string report;
  Status s;
  {
    SharedGateLock gate(&call.server.gate);  // the pool stays (FLUSHDB)
    s = call.server.db->Verify(&report);
  }
  if (!s.ok() && !s.IsCorruption()) {
    ReplyError(call.reply, s);
    return;
  }
  report += s.ok() ? "OK" : s.ToString();
  report += '\n';
  call.reply.Bulk(report);
}

// LASTSAVE: the Unix time of the last successful SAVE, or of the server's
// start if there was none.
void RunLastSave(CommandCall& call) {
  call.reply.Integer(call.server.last_save_time.load());
}

// SHUTDOWN [NOSAVE|SAVE]: stops the server, which then closes the pool
// (making every write durable). NOSAVE changes nothing: every answered
// write is durable already. Like Redis, answers nothing on success.
void RunShutdown(CommandCall& call) {
  if (call.args.size() > 2 ||
      (call.args.size() == 2 && !IsKeyword(call.args[1], "save") &&
       !IsKeyword(call.args[1], "nosave"))) {
    call.reply.Error(kSyntaxError);
    return;
  }
  call.session.close_after_reply = true;
  call.server.request_shutdown();
}

// COMMAND [COUNT | LIST | INFO [name ...]]
void RunCommand(CommandCall& call) {
  const std::span<const CommandSpec> all = AllCommands();
  if (call.args.size() == 1) {
    call.reply.ArrayHeader(all.size());
    for (const CommandSpec& spec : all) ReplyCommandSpec(call.reply, spec);
    return;
  }
  const std::string_view sub = call.args[1];
  if (IsKeyword(sub, "count") && call.args.size() == 2) {
    call.reply.Integer(static_cast<int64_t>(all.size()));
  } else if (IsKeyword(sub, "list") && call.args.size() == 2) {
    call.reply.ArrayHeader(all.size());
    for (const CommandSpec& spec : all) call.reply.Bulk(spec.name);
  } else if (IsKeyword(sub, "info")) {
    if (call.args.size() == 2) {
      call.reply.ArrayHeader(all.size());
      for (const CommandSpec& spec : all) ReplyCommandSpec(call.reply, spec);
      return;
    }
    call.reply.ArrayHeader(call.args.size() - 2);
    for (std::string_view name : call.args.subspan(2)) {
      const CommandSpec* spec = FindCommand(name);
      if (spec != nullptr) {
        ReplyCommandSpec(call.reply, *spec);
      } else {
        call.reply.Null();
      }
    }
  } else {
    call.reply.Error("ERR unknown subcommand '" + std::string(sub) +
                     "'. Try COMMAND HELP.");
  }
}

// TIME: the Unix time as seconds and the microseconds into the second,
// two bulk strings (Redis's reply).
void RunTime(CommandCall& call) {
  const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  call.reply.ArrayHeader(2);
  call.reply.Bulk(std::to_string(now / 1000000));
  call.reply.Bulk(std::to_string(now % 1000000));
}

// WAIT numreplicas timeout: how many replicas acknowledged this client's
// writes. There are none, so 0, at once: where Redis has fewer replicas
// than asked for, it blocks until the timeout (forever for 0) and then
// answers how many acknowledged, which here can only be 0.
void RunWait(CommandCall& call) {
  const std::optional<int64_t> timeout = ParseInteger(call.args[2]);
  if (!ParseInteger(call.args[1])) {
    call.reply.Error(kNotAnInteger);
  } else if (!timeout) {
    call.reply.Error("ERR timeout is not an integer or out of range");
  } else if (*timeout < 0) {
    call.reply.Error("ERR timeout is negative");
  } else {
    call.reply.Integer(0);
  }
}

}  // namespace plush::server
