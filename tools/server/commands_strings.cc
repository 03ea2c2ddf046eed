// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The string commands: GET, MGET, MSET, STRLEN and the INCR family
// (INCRBYFLOAT included); SET and its kin are in commands_set.cc.
//
// MSET's puts are one Put of the keyspace, and drop the keys' expiries as
// Redis's MSET does. The INCR family's writes depend on the current value:
// an Update of the keyspace (keyspace.h), on its own a DB::Update, atomic
// under the key's lock with its own persistence barrier; in a transaction
// a write of its overlay. They keep the key's expiry, as Redis's do.

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "command_handlers.h"
#include "redis_float.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

// INCRBY: the key's value read and written as a decimal integer (Redis's
// representation, so that GET shows it), atomically under the key's lock.
void Increment(CommandCall& call, std::string_view key, int64_t delta) {
  enum class Outcome { kDone, kNotAnInteger, kOverflow } outcome{};
  int64_t result = 0;
  Status s = Keys(call).Update(
      key, kKeepExpiry, [&](const std::string* current, std::string* next) {
        std::optional<int64_t> value = 0;
        if (current != nullptr) value = ParseInteger(*current);
        if (!value) {
          outcome = Outcome::kNotAnInteger;
          return DB::UpdateAction::kKeep;
        }
        std::optional<int64_t> sum = CheckedAdd(*value, delta);
        if (!sum) {
          outcome = Outcome::kOverflow;
          return DB::UpdateAction::kKeep;
        }
        outcome = Outcome::kDone;
        result = *sum;
        *next = std::to_string(result);
        return DB::UpdateAction::kPut;
      });
  call.wrote = s.ok() && outcome == Outcome::kDone;
  if (call.wrote) KeyWritten(call, key);
  if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (outcome == Outcome::kNotAnInteger) {
    call.reply.Error(kNotAnInteger);
  } else if (outcome == Outcome::kOverflow) {
    call.reply.Error("ERR increment or decrement would overflow");
  } else {
    call.reply.Integer(result);
  }
}

constexpr std::string_view kInvalidFloat = "ERR value is not a valid float";

// INCRBYFLOAT: the key's value read and written as Redis spells floats
// (redis_float.h), atomically under the key's lock.
void IncrementFloat(CommandCall& call, std::string_view key,
                    long double delta) {
  enum class Outcome { kDone, kNotAFloat, kNotFinite } outcome{};
  std::string result;
  Status s = Keys(call).Update(
      key, kKeepExpiry, [&](const std::string* current, std::string* next) {
        std::optional<long double> value = 0.0L;
        if (current != nullptr) value = ParseFloat(*current);
        if (!value) {
          outcome = Outcome::kNotAFloat;
          return DB::UpdateAction::kKeep;
        }
        const long double sum = *value + delta;
        if (!std::isfinite(sum)) {
          outcome = Outcome::kNotFinite;
          return DB::UpdateAction::kKeep;
        }
        outcome = Outcome::kDone;
        result = FormatFloat(sum);
        *next = result;
        return DB::UpdateAction::kPut;
      });
  call.wrote = s.ok() && outcome == Outcome::kDone;
  if (call.wrote) KeyWritten(call, key);
  if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (outcome == Outcome::kNotAFloat) {
    call.reply.Error(kInvalidFloat);
  } else if (outcome == Outcome::kNotFinite) {
    call.reply.Error("ERR increment would produce NaN or Infinity");
  } else {
    call.reply.Bulk(result);
  }
}

}  // namespace

void RunGet(CommandCall& call) {
  std::string value;
  Status s = Keys(call).Get(call.args[1], &value);
  if (s.ok()) {
    call.reply.Bulk(value);
  } else if (s.IsNotFound()) {
    call.reply.Null();
  } else {
    ReplyError(call.reply, s);
  }
}

void RunMGet(CommandCall& call) {
  const std::vector<std::string_view> keys(call.args.begin() + 1,
                                           call.args.end());
  std::vector<std::string> values;
  const std::vector<Status> statuses =
      Keys(call).MultiGet(keys, &values);
  const size_t start = call.reply.size();
  call.reply.ArrayHeader(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].ok()) {
      call.reply.Bulk(values[i]);
    } else if (statuses[i].IsNotFound()) {
      call.reply.Null();
    } else {
      call.reply.Truncate(start);
      ReplyError(call.reply, statuses[i]);
      return;
    }
    if (call.reply.size() - start > kMaxReplyBytes) {
      call.reply.Truncate(start);
      call.reply.Error("ERR the reply would exceed " +
                       std::to_string(kMaxReplyBytes) +
                       " bytes: ask for fewer keys at a time");
      return;
    }
  }
}

// MSET key value [key value ...]: one WriteBatch, so all or nothing.
void RunMSet(CommandCall& call) {
  if (call.args.size() % 2 == 0) {
    call.reply.Error("ERR wrong number of arguments for 'mset' command");
    return;
  }
  std::vector<KeyValue> puts;
  puts.reserve(call.args.size() / 2);
  for (size_t i = 1; i < call.args.size(); i += 2) {
    puts.push_back({call.args[i], call.args[i + 1]});
  }
  PutAndReply(call, puts);
}

void RunStrLen(CommandCall& call) {
  std::string value;
  Status s = Keys(call).Get(call.args[1], &value);
  if (s.ok() || s.IsNotFound()) {
    call.reply.Integer(static_cast<int64_t>(value.size()));
  } else {
    ReplyError(call.reply, s);
  }
}

void RunIncr(CommandCall& call) { Increment(call, call.args[1], 1); }

void RunDecr(CommandCall& call) { Increment(call, call.args[1], -1); }

void RunIncrBy(CommandCall& call) {
  const std::optional<int64_t> delta = ParseInteger(call.args[2]);
  if (!delta) {
    call.reply.Error(kNotAnInteger);
    return;
  }
  Increment(call, call.args[1], *delta);
}

void RunDecrBy(CommandCall& call) {
  const std::optional<int64_t> delta = ParseInteger(call.args[2]);
  if (!delta) {
    call.reply.Error(kNotAnInteger);
  } else if (*delta == std::numeric_limits<int64_t>::min()) {
    call.reply.Error("ERR decrement would overflow");  // -delta would
  } else {
    Increment(call, call.args[1], -*delta);
  }
}

// INCRBYFLOAT key increment
void RunIncrByFloat(CommandCall& call) {
  const std::optional<long double> delta = ParseFloat(call.args[2]);
  if (!delta) {
    call.reply.Error(kInvalidFloat);
    return;
  }
  IncrementFloat(call, call.args[1], *delta);
}

}  // namespace plush::server
