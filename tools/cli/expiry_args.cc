// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "expiry_args.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace plush::cli {
namespace {

// The most seconds --ttl and --expires-at take: in milliseconds below
// 2^63, so that now plus a --ttl fits the engine's 64 bits (the year
// 285,000,000 is far enough).
constexpr double kMaxSeconds = 9e15;

// Refuses what is not a number of seconds within [0, kMaxSeconds] (NaN
// and infinity included, which CLI11 would take as numbers).
CLI::Validator Seconds() {
  return CLI::Validator(
      [](const std::string& text) {
        char* end = nullptr;
        const double seconds = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && *end == '\0';
        return number && seconds >= 0 && seconds <= kMaxSeconds
                   ? std::string()
                   : "expected seconds from 0 to 9e15, got '" + text + "'";
      },
      "", "SECONDS");
}

uint64_t Milliseconds(double seconds) {
  return static_cast<uint64_t>(std::round(seconds * 1000));
}

}  // namespace

uint64_t ExpiryArgs::ExpiresAtMs(uint64_t now_ms) const {
  if (ttl_option != nullptr && ttl_option->count() > 0) {
    return now_ms + Milliseconds(ttl);
  }
  if (expires_at_option != nullptr && expires_at_option->count() > 0) {
    return std::max<uint64_t>(1, Milliseconds(expires_at));
  }
  return 0;
}

void AddExpiryOptions(CLI::App* cmd, bool persist, ExpiryArgs* args) {
  // `plush expire` needs exactly one of its three options: a group of
  // them says so, and CLI11 reports a missing one or two at once.
  CLI::App* options = persist ? cmd->add_option_group(
                                    "Expiry", "The expiry to set")
                              : cmd;
  args->ttl_option =
      options
          ->add_option("--ttl", args->ttl,
                       "Expire this many seconds from now (a fraction is "
                       "kept to the millisecond)")
          ->type_name("SECONDS")
          ->check(Seconds());
  args->expires_at_option =
      options
          ->add_option("--expires-at", args->expires_at,
                       "Expire at this Unix time, in seconds (a time past "
                       "makes the record absent at once)")
          ->type_name("UNIX_SECONDS")
          ->check(Seconds());
  if (persist) {
    options->add_flag("--persist")->description("Remove the expiry");
    options->require_option(1);
  } else {
    args->ttl_option->excludes(args->expires_at_option);
  }
}

std::string FormatSeconds(uint64_t ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%llu.%03llu",
                static_cast<unsigned long long>(ms / 1000),
                static_cast<unsigned long long>(ms % 1000));
  return text;
}

}  // namespace plush::cli
