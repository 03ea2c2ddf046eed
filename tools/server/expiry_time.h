// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The expiry times that commands are given, read as Redis 7 reads them
// (its getExpireMillisecondsOrReply and expireGenericCommand): in seconds
// or milliseconds, from now or as a Unix time, turned into the absolute
// Unix millisecond that the engine stores (WriteOptions::expires_at_ms),
// with Redis's errors for what is not an integer or overflows.

#ifndef PLUSH_TOOLS_SERVER_EXPIRY_TIME_H_
#define PLUSH_TOOLS_SERVER_EXPIRY_TIME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "reply_writer.h"

namespace plush::server {

// How an expiry argument counts: SET's EX, PX, EXAT and PXAT, and the
// EXPIRE family's units likewise.
struct TimeForm {
  bool seconds;   // else milliseconds
  bool absolute;  // a Unix time, else a time from now
  bool operator==(const TimeForm&) const = default;
};
inline constexpr TimeForm kEx{.seconds = true, .absolute = false};
inline constexpr TimeForm kPx{.seconds = false, .absolute = false};
inline constexpr TimeForm kExAt{.seconds = true, .absolute = true};
inline constexpr TimeForm kPxAt{.seconds = false, .absolute = true};

// Why an expiry argument is refused.
enum class ExpiryError {
  kNone,
  kNotInteger,  // "ERR value is not an integer or out of range"
  kInvalid,       // "ERR invalid expire time in '<command>' command"
};

// An expiry argument read: the time it names in Unix milliseconds, or the
// error.
struct ExpiryTime {
  ExpiryError error = ExpiryError::kNone;
  int64_t at_ms = 0;
};

// The positive expiry of SET, SETEX, PSETEX and GETEX: an integer above 0
// whose conversion to milliseconds, and sum with `now_ms` for a time from
// now, do not overflow. A time already past (EXAT 1) is valid.
ExpiryTime PositiveExpiry(std::string_view arg, TimeForm form, int64_t now_ms);

// The expiry of EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: any integer
// (zero and negative ones name times past) whose conversion and sum with
// `now_ms` do not overflow.
ExpiryTime AnyExpiry(std::string_view arg, TimeForm form, int64_t now_ms);

// Answers `error` (not kNone) of the command `command` (lower case).
void ReplyExpiryError(ReplyWriter& reply, ExpiryError error,
                      std::string_view command);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_EXPIRY_TIME_H_
