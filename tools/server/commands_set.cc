// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands that set a key's whole value: SET, SETNX, GETSET, SETEX,
// PSETEX, and what they do to its expiry: as in Redis, a SET drops it
// unless KEEPTTL keeps it or EX, PX, EXAT or PXAT sets another.
//
// Plain puts — SET without NX, XX, GET or KEEPTTL, SETEX, PSETEX — are a
// Put of the keyspace, each with its expiry. The other writes depend on
// the current value: an UpdateWithExpiry of the keyspace (keyspace.h), on
// its own a DB::UpdateWithExpiry, atomic under the key's lock (a
// WriteBatch cannot hold a condition); in a transaction a write of its
// overlay. It decides
// the new version's expiry with its value — dropped, kept (KEEPTTL) or
// set — so that SET XX and GETSET drop a TTL in the same atomic step.

#include <optional>
#include <span>
#include <string>

#include "command_handlers.h"
#include "expiry_time.h"
#include "string_options.h"

namespace plush::server {
namespace {

// What a SET, SETEX or PSETEX asks for.
struct SetRequest {
  std::string_view key;
  std::string_view value;
  StringOptions options;
  std::string_view command;  // its name in lower case, for errors
};

// `args` as a SET, SETEX or PSETEX; nullopt for another command, a wrong
// number of arguments or a syntax error.
std::optional<SetRequest> ParseSet(std::span<const std::string_view> args) {
  if (IsKeyword(args[0], "set") && args.size() >= 3) {
    SetRequest request{.key = args[1], .value = args[2], .command = "set"};
    if (!ParseStringOptions(args.subspan(3), StringCommand::kSet,
                            &request.options)) {
      return std::nullopt;
    }
    return request;
  }
  const bool seconds = IsKeyword(args[0], "setex");
  if ((seconds || IsKeyword(args[0], "psetex")) && args.size() == 4) {
    return SetRequest{.key = args[1],
                      .value = args[3],
                      .options = {.expiry_form = seconds ? kEx : kPx,
                                  .expiry = args[2]},
                      .command = seconds ? "setex" : "psetex"};
  }
  return std::nullopt;
}

// Whether the request only puts: it depends on nothing the key holds.
bool IsPlain(const StringOptions& o) {
  return !o.only_if_absent && !o.only_if_present && !o.reply_old_value &&
         !o.keep_expiry;
}

// A SET that is not a plain put: one UpdateWithExpiry of the keyspace,
// its value expiring at `expires_at_ms` (0: never), or as the key's did
// with KEEPTTL. On success *stored says whether the value was written
// (and so call.wrote), *old holds the value before (nullopt if the key
// was absent; filled only for GET).
Status ConditionalSet(CommandCall& call, const SetRequest& request,
                      uint64_t expires_at_ms, bool* stored,
                      std::optional<std::string>* old) {
  const StringOptions& o = request.options;
  // The function may run more than once; only its last run counts.
  const Status s = Keys(call).UpdateWithExpiry(
      request.key, [&](const std::string* current, uint64_t* expiry,
                       std::string* next) {
        if (o.reply_old_value) {
          *old = current == nullptr ? std::nullopt
                                    : std::optional<std::string>(*current);
        }
        *stored = current == nullptr ? !o.only_if_present : !o.only_if_absent;
        if (!*stored) return DB::UpdateAction::kKeep;
        next->assign(request.value);
        if (!o.keep_expiry) *expiry = expires_at_ms;
        return DB::UpdateAction::kPut;
      });
  call.wrote = s.ok() && *stored;
  if (call.wrote) KeyWritten(call, request.key);
  return s;
}

// SET, SETEX and PSETEX once parsed. As Redis, an invalid expiry answers
// its error before anything is read.
void RunSetRequest(CommandCall& call, const SetRequest& request) {
  const StringOptions& o = request.options;
  uint64_t expires_at_ms = 0;
  if (o.expiry_form) {
    const ExpiryTime time =
        PositiveExpiry(o.expiry, *o.expiry_form, NowMs(call));
    if (time.error != ExpiryError::kNone) {
      ReplyExpiryError(call.reply, time.error, request.command);
      return;
    }
    expires_at_ms = static_cast<uint64_t>(time.at_ms);
  }
  if (IsPlain(o)) {
    // 0 drops the key's expiry.
    const KeyValue put{request.key, request.value, expires_at_ms};
    PutAndReply(call, {&put, 1});
    return;
  }
  bool stored = false;
  std::optional<std::string> old;
  const Status s = ConditionalSet(call, request, expires_at_ms, &stored, &old);
  if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (o.reply_old_value) {
    ReplyOptionalValue(call.reply, old);
  } else if (stored) {
    call.reply.Ok();
  } else {
    call.reply.Null();
  }
}

}  // namespace

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]
void RunSet(CommandCall& call) {
  const std::optional<SetRequest> request = ParseSet(call.args);
  if (request) {
    RunSetRequest(call, *request);
  } else {
    call.reply.Error(kSyntaxError);
  }
}

// SETEX key seconds value, PSETEX key milliseconds value: SET with EX, PX.
void RunSetEx(CommandCall& call) { RunSetRequest(call, *ParseSet(call.args)); }

void RunSetNx(CommandCall& call) {
  bool stored = false;
  std::optional<std::string> old;
  const SetRequest request{.key = call.args[1],
                           .value = call.args[2],
                           .options = {.only_if_absent = true}};
  Status s = ConditionalSet(call, request, 0, &stored, &old);
  if (s.ok()) {
    call.reply.Integer(stored ? 1 : 0);
  } else {
    ReplyError(call.reply, s);
  }
}

// GETSET key value: SET key value GET, its expiry dropped.
void RunGetSet(CommandCall& call) {
  bool stored = false;
  std::optional<std::string> old;
  const SetRequest request{.key = call.args[1],
                           .value = call.args[2],
                           .options = {.reply_old_value = true}};
  Status s = ConditionalSet(call, request, 0, &stored, &old);
  if (s.ok()) {
    ReplyOptionalValue(call.reply, old);
  } else {
    ReplyError(call.reply, s);
  }
}

}  // namespace plush::server
