// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The expiry options of `plush put` and `plush expire`: --ttl SECONDS from
// now, --expires-at UNIX_SECONDS, and for expire --persist (no expiry).
// Seconds may have a fraction; the engine keeps Unix milliseconds
// (WriteOptions::expires_at_ms, where 0 means "never"), so they are
// rounded to the nearest millisecond.

#ifndef PLUSH_TOOLS_CLI_EXPIRY_ARGS_H_
#define PLUSH_TOOLS_CLI_EXPIRY_ARGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace plush::cli {

struct ExpiryArgs {
  double ttl = 0;
  double expires_at = 0;
  CLI::Option* ttl_option = nullptr;
  CLI::Option* expires_at_option = nullptr;

  // The expiry asked for, in Unix ms, now being `now_ms`; 0 (never) if
  // neither --ttl nor --expires-at was given. A time already past (0
  // included) gives 1 ms, also past: the record is absent at once.
  uint64_t ExpiresAtMs(uint64_t now_ms) const;
};

// Adds --ttl and --expires-at, which exclude each other; with `persist`
// (`plush expire`) also the flag --persist, and exactly one of the three
// is required.
void AddExpiryOptions(CLI::App* cmd, bool persist, ExpiryArgs* args);

// Milliseconds as seconds with three decimals: "12.345".
std::string FormatSeconds(uint64_t ms);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_EXPIRY_ARGS_H_
