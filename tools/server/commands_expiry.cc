// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands on keys' expiries: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT,
// TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST; and GETEX and GETDEL, which
// read a value and change its expiry or delete it. Redis 7's replies and
// errors.
//
// Each write is one atomic step of the keyspace (keyspace.h), which sees
// the key's expiry and decides the new one (UpdateWithExpiry): EXPIRE
// judges its condition (NX, XX, GT, LT) on it and writes the value back
// with the new expiry (or, the time already past, deletes the key, as
// Redis does); PERSIST and GETEX PERSIST write the value back without
// one, GETEX EX with its new one; GETDEL deletes. None holds the keyspace
// gate alone: other clients' commands run beside them, and none comes
// between the read and the write of one of these.

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "command_handlers.h"
#include "expiry_time.h"
#include "string_options.h"

namespace plush::server {
namespace {

// EXPIRE's conditions on the key's current expiry.
struct ExpireConditions {
  bool nx = false;  // it has none
  bool xx = false;  // it has one
  bool gt = false;  // the new one is later (none counts as never)
  bool lt = false;  // the new one is earlier (likewise)
};

// Parses args[3...] into *conditions: Redis's error line, or "".
std::string ParseConditions(std::span<const std::string_view> args,
                            ExpireConditions* conditions) {
  for (std::string_view arg : args.subspan(3)) {
    if (IsKeyword(arg, "nx")) {
      conditions->nx = true;
    } else if (IsKeyword(arg, "xx")) {
      conditions->xx = true;
    } else if (IsKeyword(arg, "gt")) {
      conditions->gt = true;
    } else if (IsKeyword(arg, "lt")) {
      conditions->lt = true;
    } else {
      return "ERR Unsupported option " + std::string(arg);
    }
  }
  const ExpireConditions& c = *conditions;
  if (c.nx && (c.xx || c.gt || c.lt)) {
    return "ERR NX and XX, GT or LT options at the same time are not "
           "compatible";
  }
  if (c.gt && c.lt) {
    return "ERR GT and LT options at the same time are not compatible";
  }
  return "";
}

// Whether `conditions` let an expiry at `when` replace `current` (0: none).
bool Allowed(const ExpireConditions& conditions, uint64_t current,
             int64_t when) {
  const bool later = when >= 0 && static_cast<uint64_t>(when) > current;
  const bool earlier = when < 0 || static_cast<uint64_t>(when) < current;
  if (conditions.nx && current != 0) return false;
  if (conditions.xx && current == 0) return false;
  if (conditions.gt && (current == 0 || !later)) return false;
  if (conditions.lt && current != 0 && !earlier) return false;
  return true;
}

// EXPIRE key time [NX|XX|GT|LT] and its kin, `form` saying how `time`
// counts: 1 if the expiry was set (or, the time being past, the key
// deleted), 0 if the key is missing or a condition failed.
void Expire(CommandCall& call, TimeForm form, std::string_view command) {
  ExpireConditions conditions;
  const std::string error = ParseConditions(call.args, &conditions);
  if (!error.empty()) {
    call.reply.Error(error);
    return;
  }
  const int64_t now = NowMs(call);
  const ExpiryTime when = AnyExpiry(call.args[2], form, now);
  if (when.error != ExpiryError::kNone) {
    ReplyExpiryError(call.reply, when.error, command);
    return;
  }
  const std::string_view key = call.args[1];
  bool written = false;
  const Status s = Keys(call).UpdateWithExpiry(
      key, [&](const std::string* current, uint64_t* expiry,
               std::string* next) {
        written =
            current != nullptr && Allowed(conditions, *expiry, when.at_ms);
        if (!written) return DB::UpdateAction::kKeep;
        if (when.at_ms <= now) return DB::UpdateAction::kDelete;
        *next = *current;
        *expiry = static_cast<uint64_t>(when.at_ms);
        return DB::UpdateAction::kPut;
      });
  if (!s.ok()) {
    ReplyError(call.reply, s);
    return;
  }
  call.wrote = written;
  if (written) KeyWritten(call, key);
  call.reply.Integer(written ? 1 : 0);
}

// TTL and its kin: -2 for a missing key, -1 for one without an expiry,
// else the time left (or, `absolute`, the expiry itself), in milliseconds
// or in seconds rounded to the nearest, as Redis rounds.
void ReplyExpiry(CommandCall& call, bool seconds, bool absolute) {
  uint64_t at = 0;
  const Status s = Keys(call).GetExpiry(call.args[1], &at);
  if (s.IsNotFound()) {
    call.reply.Integer(-2);
  } else if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (at == 0) {
    call.reply.Integer(-1);
  } else {
    // Redis's times fit in an int64_t; one the C++ API wrote may not.
    const uint64_t now = static_cast<uint64_t>(NowMs(call));
    uint64_t ms = std::min<uint64_t>(at, std::numeric_limits<int64_t>::max());
    if (!absolute) ms = ms > now ? ms - now : 0;
    call.reply.Integer(static_cast<int64_t>(seconds ? (ms + 500) / 1000 : ms));
  }
}

// Drops the key's expiry if it has one (*dropped), in one
// UpdateWithExpiry: PERSIST, GETEX PERSIST. *value (unless null): the
// key's value, nullopt if it is missing.
Status Persist(CommandCall& call, std::string_view key, bool* dropped,
               std::optional<std::string>* value) {
  const Status s = Keys(call).UpdateWithExpiry(
      key, [&](const std::string* current, uint64_t* expiry,
               std::string* next) {
        if (value != nullptr) {
          *value = current == nullptr ? std::nullopt
                                      : std::optional<std::string>(*current);
        }
        *dropped = current != nullptr && *expiry != 0;
        if (!*dropped) return DB::UpdateAction::kKeep;
        *next = *current;
        *expiry = 0;
        return DB::UpdateAction::kPut;
      });
  call.wrote = s.ok() && *dropped;
  if (call.wrote) KeyWritten(call, key);
  return s;
}

// GETEX key PERSIST: the value, its expiry dropped.
void GetExPersist(CommandCall& call) {
  bool dropped = false;
  std::optional<std::string> value;
  const Status s = Persist(call, call.args[1], &dropped, &value);
  if (s.ok()) {
    ReplyOptionalValue(call.reply, value);
  } else {
    ReplyError(call.reply, s);
  }
}

// The end of GETEX and GETDEL, whose Update `s` wrote the key if it had a
// value: its watchers touched, then the value (null for a missing key) or
// the error answered.
void ReplyToValueUpdate(CommandCall& call, std::string_view key,
                        const Status& s,
                        const std::optional<std::string>& value) {
  call.wrote = s.ok() && value;
  if (call.wrote) KeyWritten(call, key);
  if (s.ok()) {
    ReplyOptionalValue(call.reply, value);
  } else {
    ReplyError(call.reply, s);
  }
}

// GETEX key EX|PX|EXAT|PXAT time: the value, written back with its new
// expiry in one Update; an EXAT or PXAT already past deletes the key.
void GetExWithExpiry(CommandCall& call, const StringOptions& options) {
  Keyspace& keys = Keys(call);
  const std::string_view key = call.args[1];
  const int64_t now = NowMs(call);
  const ExpiryTime time =
      PositiveExpiry(options.expiry, *options.expiry_form, now);
  if (time.error != ExpiryError::kNone) {
    // As Redis: a missing key answers null before the time is checked.
    std::string value;
    const Status s = keys.Get(key, &value);
    if (s.IsNotFound()) {
      call.reply.Null();
    } else if (!s.ok()) {
      ReplyError(call.reply, s);
    } else {
      ReplyExpiryError(call.reply, time.error, "getex");
    }
    return;
  }
  const bool past = options.expiry_form->absolute && time.at_ms <= now;
  std::optional<std::string> value;
  const Status s = keys.Update(
      key, past ? kKeepExpiry : static_cast<uint64_t>(time.at_ms),
      [&](const std::string* current, std::string* next) {
        value.reset();
        if (current == nullptr) return DB::UpdateAction::kKeep;
        value = *current;
        if (past) return DB::UpdateAction::kDelete;
        *next = *current;
        return DB::UpdateAction::kPut;
      });
  ReplyToValueUpdate(call, key, s, value);
}

}  // namespace

void RunExpire(CommandCall& call) { Expire(call, kEx, "expire"); }

void RunPExpire(CommandCall& call) { Expire(call, kPx, "pexpire"); }

void RunExpireAt(CommandCall& call) { Expire(call, kExAt, "expireat"); }

void RunPExpireAt(CommandCall& call) { Expire(call, kPxAt, "pexpireat"); }

void RunTtl(CommandCall& call) { ReplyExpiry(call, true, false); }

void RunPTtl(CommandCall& call) { ReplyExpiry(call, false, false); }

void RunExpireTime(CommandCall& call) { ReplyExpiry(call, true, true); }

void RunPExpireTime(CommandCall& call) { ReplyExpiry(call, false, true); }

// PERSIST key: 1 if the key had an expiry, now dropped; else 0.
void RunPersist(CommandCall& call) {
  bool dropped = false;
  const Status s = Persist(call, call.args[1], &dropped, nullptr);
  if (s.ok()) {
    call.reply.Integer(dropped ? 1 : 0);
  } else {
    ReplyError(call.reply, s);
  }
}

// GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]
void RunGetEx(CommandCall& call) {
  StringOptions options;
  if (!ParseStringOptions(call.args.subspan(2), StringCommand::kGetEx,
                          &options)) {
    call.reply.Error(kSyntaxError);
  } else if (options.persist) {
    GetExPersist(call);
  } else if (options.expiry_form) {
    GetExWithExpiry(call, options);
  } else {
    RunGet(call);
  }
}

// GETDEL key: the value, and the key deleted; null if it was missing.
void RunGetDel(CommandCall& call) {
  const std::string_view key = call.args[1];
  std::optional<std::string> value;
  const Status s = Keys(call).Update(
      key, kKeepExpiry, [&](const std::string* current, std::string*) {
        value.reset();
        if (current == nullptr) return DB::UpdateAction::kKeep;
        value = *current;
        return DB::UpdateAction::kDelete;
      });
  ReplyToValueUpdate(call, key, s, value);
}

}  // namespace plush::server
