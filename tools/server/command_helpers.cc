// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What the commands share (command_handlers.h).

#include <cctype>
#include <string>

#include "command_handlers.h"

namespace plush::server {

size_t TransactionBytes(std::span<const std::string_view> args) {
  size_t bytes = 0;
  for (std::string_view arg : args) bytes += arg.size() + kHeldArgumentBytes;
  return bytes;
}

void KeyWritten(CommandCall& call, std::string_view key) {
  Keys(call).KeyWritten(key);
}

void PutAndReply(CommandCall& call, std::span<const KeyValue> pairs) {
  const Status s = Keys(call).Put(pairs);
  call.wrote = s.ok();
  if (s.ok()) {
    call.reply.Ok();
  } else {
    ReplyError(call.reply, s);
  }
}

void ReplyError(ReplyWriter& reply, const Status& status) {
  reply.Error("ERR " + status.ToString());
}

void ReplyOptionalValue(ReplyWriter& reply,
                        const std::optional<std::string>& value) {
  if (value) {
    reply.Bulk(*value);
  } else {
    reply.Null();
  }
}

bool IsKeyword(std::string_view arg, std::string_view keyword) {
  if (arg.size() != keyword.size()) return false;
  for (size_t i = 0; i < arg.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(arg[i])) != keyword[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace plush::server
