// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "string_options.h"

#include "command_handlers.h"

namespace plush::server {
namespace {

// The expiry option `arg` names, if it is one.
std::optional<TimeForm> ExpiryOption(std::string_view arg) {
  if (IsKeyword(arg, "ex")) return kEx;
  if (IsKeyword(arg, "px")) return kPx;
  if (IsKeyword(arg, "exat")) return kExAt;
  if (IsKeyword(arg, "pxat")) return kPxAt;
  return std::nullopt;
}

}  // namespace

bool ParseStringOptions(std::span<const std::string_view> args,
                        StringCommand command, StringOptions* options) {
  const bool set = command == StringCommand::kSet;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const std::optional<TimeForm> form = ExpiryOption(arg);
    if (set && IsKeyword(arg, "nx") && !options->only_if_present) {
      options->only_if_absent = true;
    } else if (set && IsKeyword(arg, "xx") && !options->only_if_absent) {
      options->only_if_present = true;
    } else if (set && IsKeyword(arg, "get")) {
      options->reply_old_value = true;
    } else if (set && IsKeyword(arg, "keepttl") && !options->expiry_form) {
      options->keep_expiry = true;
    } else if (!set && IsKeyword(arg, "persist") && !options->expiry_form) {
      options->persist = true;
    } else if (form && !options->keep_expiry && !options->persist &&
               (!options->expiry_form || options->expiry_form == form) &&
               i + 1 < args.size()) {
      options->expiry_form = form;
      options->expiry = args[++i];
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace plush::server
