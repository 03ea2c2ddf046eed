// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// SET's and GETEX's options, read as Redis 7 reads them
// (parseExtendedStringArgumentsOrReply): SET takes NX, XX, GET, KEEPTTL,
// GETEX PERSIST, both EX, PX, EXAT and PXAT with an argument. Options that
// exclude each other (NX and XX; KEEPTTL, PERSIST and the four expiries)
// may not meet, but one may repeat (the last expiry given wins: SET k v EX
// 10 EX 20 expires in 20 s); anything else is a syntax error. The expiry's
// argument is checked by the command (expiry_time.h), after the options.

#ifndef PLUSH_TOOLS_SERVER_STRING_OPTIONS_H_
#define PLUSH_TOOLS_SERVER_STRING_OPTIONS_H_

#include <optional>
#include <span>
#include <string_view>

#include "expiry_time.h"

namespace plush::server {

struct StringOptions {
  bool only_if_absent = false;   // NX
  bool only_if_present = false;  // XX
  bool reply_old_value = false;  // GET
  bool keep_expiry = false;      // KEEPTTL
  bool persist = false;          // PERSIST
  std::optional<TimeForm> expiry_form;  // EX, PX, EXAT or PXAT ...
  std::string_view expiry;              // ... and its argument
};

// Which command's options: SET's or GETEX's.
enum class StringCommand { kSet, kGetEx };

// Parses `args` (those after SET's value, or after GETEX's key) into
// *options; false if they are a syntax error.
bool ParseStringOptions(std::span<const std::string_view> args,
                        StringCommand command, StringOptions* options);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_STRING_OPTIONS_H_
