// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Expiry times between Python and the engine: Python speaks seconds (a
// `ttl` from now, or an absolute `expires_at` in Unix time, as time.time()
// gives it), the engine Unix milliseconds (WriteOptions::expires_at_ms,
// where 0 means "never").

#ifndef PLUSH_PYTHON_EXT_EXPIRY_H_
#define PLUSH_PYTHON_EXT_EXPIRY_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

namespace plush::python {

// The expiry asked for by a method's keyword arguments `expires_at` and
// `ttl` (None: not given), in Unix milliseconds rounded to the nearest;
// nullopt if neither is given. Each is an int or a float >= 0; giving both
// is a TypeError. A time already past (expires_at=0 included) becomes
// 1 ms, also past, so that the record is absent at once: 0 would make it
// never expire. `where` names the method.
std::optional<uint64_t> ExpiryArg(pybind11::handle expires_at,
                                  pybind11::handle ttl, const char* where);

// An engine expiry as Python sees it: Unix seconds, or None for 0 (none).
pybind11::object ExpiresAtSeconds(uint64_t expires_at_ms);

// The seconds from now until `expires_at_ms` (0 once it is past), or None
// for 0 (no expiry).
pybind11::object SecondsLeft(uint64_t expires_at_ms);

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_EXPIRY_H_
