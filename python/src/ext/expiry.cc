// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "expiry.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "plush/options.h"

namespace py = pybind11;

namespace plush::python {
namespace {

// 2^64: the first count of milliseconds that does not fit the engine's.
constexpr double kMsLimit = 18446744073709551616.0;

std::string Named(const char* where, const char* name) {
  return std::string(where) + "(): " + name;
}

[[noreturn]] void TooLarge(const char* where, const char* name) {
  throw py::value_error(Named(where, name) +
                        " is too large: the expiry must fit 64-bit Unix "
                        "milliseconds");
}

// Seconds (an int or a float, not a bool) in milliseconds, rounded to the
// nearest.
uint64_t Milliseconds(py::handle value, const char* where, const char* name) {
  PyObject* o = value.ptr();
  if (PyBool_Check(o) || !(PyLong_Check(o) || PyFloat_Check(o))) {
    throw py::type_error(Named(where, name) +
                         " must be an int or a float (seconds), not " +
                         Py_TYPE(o)->tp_name);
  }
  double seconds = PyFloat_AsDouble(o);
  if (seconds == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();  // an int beyond a double's range, of either sign
    const bool negative =
        py::reinterpret_borrow<py::int_>(value) < py::int_(0);
    seconds = negative ? -HUGE_VAL : HUGE_VAL;
  }
  if (std::isnan(seconds)) {
    throw py::value_error(Named(where, name) + " must not be NaN");
  }
  if (seconds < 0) {
    throw py::value_error(Named(where, name) + " must not be negative");
  }
  const double ms = std::round(seconds * 1000);
  if (!(ms < kMsLimit)) TooLarge(where, name);  // infinity included
  return static_cast<uint64_t>(ms);
}

}  // namespace

std::optional<uint64_t> ExpiryArg(py::handle expires_at, py::handle ttl,
                                  const char* where) {
  if (!expires_at.is_none() && !ttl.is_none()) {
    throw py::type_error(std::string(where) +
                         "(): give expires_at or ttl, not both");
  }
  if (!expires_at.is_none()) {
    return std::max<uint64_t>(1, Milliseconds(expires_at, where, "expires_at"));
  }
  if (!ttl.is_none()) {
    const uint64_t ms = Milliseconds(ttl, where, "ttl");
    const uint64_t now = SystemClock().NowMs();
    if (ms > UINT64_MAX - now) TooLarge(where, "ttl");
    return now + ms;
  }
  return std::nullopt;
}

py::object ExpiresAtSeconds(uint64_t expires_at_ms) {
  if (expires_at_ms == 0) return py::none();
  return py::float_(static_cast<double>(expires_at_ms) / 1000);
}

py::object SecondsLeft(uint64_t expires_at_ms) {
  if (expires_at_ms == 0) return py::none();
  const uint64_t now = SystemClock().NowMs();
  const uint64_t left = expires_at_ms > now ? expires_at_ms - now : 0;
  return py::float_(static_cast<double>(left) / 1000);
}

}  // namespace plush::python
