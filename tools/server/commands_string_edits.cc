// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands that read or write part of a value: APPEND, GETRANGE,
// SETRANGE. The writes are an Update of the keyspace, atomic under the
// key's lock (the value they write depends on the one before), and keep
// the key's expiry, like INCR.
//
// Redis refuses strings over 512 MB (proto-max-bulk-len); here a value
// holds at most kMaxValueSize bytes, and a write that would make a longer
// one answers Redis's error with this limit in it instead.

#include <algorithm>
#include <optional>
#include <string>

#include "command_handlers.h"
#include "plush/limits.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

const std::string kTooLong =
    "ERR string exceeds maximum allowed size (values up to " +
    std::to_string(kMaxValueSize) + " bytes)";

// Writes `part` at `offset` into the key's value (missing: empty), padding
// with zero bytes up to `offset`, and answers the new length. APPEND and
// SETRANGE; `offset` nullopt appends. An empty part changes nothing (Redis
// creates the key only for APPEND, which `create_if_empty` asks for).
void WritePart(CommandCall& call, std::optional<size_t> offset,
               std::string_view part, bool create_if_empty) {
  bool too_long = false;
  bool stored = false;
  size_t length = 0;
  Status s = Keys(call).Update(
      call.args[1], kKeepExpiry,
      [&](const std::string* current, std::string* next) {
        const size_t old_length = current == nullptr ? 0 : current->size();
        const size_t at = offset.value_or(old_length);
        length = old_length;
        too_long = false;
        stored = false;
        if (part.empty() && !(current == nullptr && create_if_empty)) {
          return DB::UpdateAction::kKeep;
        }
        // No overflow: `at` is at most kMaxValueSize (RunSetRange checks
        // an offset, a length is within it) and `part` is one argument.
        if (at + part.size() > kMaxValueSize) {
          too_long = true;
          return DB::UpdateAction::kKeep;
        }
        next->assign(current == nullptr ? std::string_view() : *current);
        next->resize(std::max(old_length, at + part.size()), '\0');
        next->replace(at, part.size(), part);
        length = next->size();
        stored = true;
        return DB::UpdateAction::kPut;
      });
  call.wrote = s.ok() && stored;
  // An APPEND of nothing to an existing value stores nothing, but Redis
  // counts it as a write of the key (WATCH); SETRANGE's does not.
  if (call.wrote || (s.ok() && !too_long && !offset)) {
    KeyWritten(call, call.args[1]);
  }
  if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (too_long) {
    call.reply.Error(kTooLong);
  } else {
    call.reply.Integer(static_cast<int64_t>(length));
  }
}

}  // namespace

// APPEND key value: the length after it; a missing key is created.
void RunAppend(CommandCall& call) {
  WritePart(call, std::nullopt, call.args[2], /*create_if_empty=*/true);
}

// SETRANGE key offset value: the length after it. As in Redis, an empty
// value neither creates the key nor checks the offset against the limit.
void RunSetRange(CommandCall& call) {
  const std::optional<int64_t> offset = ParseInteger(call.args[2]);
  if (!offset) {
    call.reply.Error(kNotAnInteger);
  } else if (*offset < 0) {
    call.reply.Error("ERR offset is out of range");
  } else if (static_cast<uint64_t>(*offset) > kMaxValueSize &&
             !call.args[3].empty()) {
    call.reply.Error(kTooLong);  // before the size_t sum could overflow
  } else {
    WritePart(call, static_cast<size_t>(*offset), call.args[3],
              /*create_if_empty=*/false);
  }
}

// GETRANGE key start end: the bytes from start to end, both included;
// negative indexes count from the end (-1 the last byte). Redis 7's
// clamping, quirk included: an end before the start of the value becomes
// 0, so GETRANGE of "Hello" from 0 to -100 answers "H" (Redis 8 answers
// "" there).
void RunGetRange(CommandCall& call) {
  const std::optional<int64_t> start_arg = ParseInteger(call.args[2]);
  const std::optional<int64_t> end_arg = ParseInteger(call.args[3]);
  if (!start_arg || !end_arg) {
    call.reply.Error(kNotAnInteger);
    return;
  }
  std::string value;
  Status s = Keys(call).Get(call.args[1], &value);
  if (!s.ok() && !s.IsNotFound()) {
    ReplyError(call.reply, s);
    return;
  }
  const auto length = static_cast<int64_t>(value.size());
  int64_t start = *start_arg;
  int64_t end = *end_arg;
  if (start < 0 && end < 0 && start > end) {
    call.reply.Bulk("");
    return;
  }
  if (start < 0) start = std::max<int64_t>(length + start, 0);
  if (end < 0) end = std::max<int64_t>(length + end, 0);
  end = std::min(end, length - 1);
  if (start > end) {  // an empty value included (end is -1)
    call.reply.Bulk("");
  } else {
    call.reply.Bulk(std::string_view(value).substr(
        static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
  }
}

}  // namespace plush::server
