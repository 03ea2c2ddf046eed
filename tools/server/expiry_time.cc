// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "expiry_time.h"

#include <limits>
#include <optional>

#include "command_handlers.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

}  // namespace

ExpiryTime PositiveExpiry(std::string_view arg, TimeForm form,
                          int64_t now_ms) {
  const std::optional<int64_t> count = ParseInteger(arg);
  if (!count) return {.error = ExpiryError::kNotInteger};
  if (*count <= 0 || (form.seconds && *count > kMax / 1000)) {
    return {.error = ExpiryError::kInvalid};
  }
  const int64_t ms = form.seconds ? *count * 1000 : *count;
  if (form.absolute) return {.at_ms = ms};
  if (ms > kMax - now_ms) return {.error = ExpiryError::kInvalid};
  return {.at_ms = now_ms + ms};
}

ExpiryTime AnyExpiry(std::string_view arg, TimeForm form, int64_t now_ms) {
  const std::optional<int64_t> count = ParseInteger(arg);
  if (!count) return {.error = ExpiryError::kNotInteger};
  if (form.seconds && (*count > kMax / 1000 || *count < kMin / 1000)) {
    return {.error = ExpiryError::kInvalid};
  }
  const int64_t ms = form.seconds ? *count * 1000 : *count;
  const int64_t base = form.absolute ? 0 : now_ms;
  if (ms > kMax - base) return {.error = ExpiryError::kInvalid};
  return {.at_ms = ms + base};
}

void ReplyExpiryError(ReplyWriter& reply, ExpiryError error,
                      std::string_view command) {
  if (error == ExpiryError::kNotInteger) {
    reply.Error(kNotAnInteger);
  } else {
    reply.Error("ERR invalid expire time in '" + std::string(command) +
                "' command");
  }
}

}  // namespace plush::server
