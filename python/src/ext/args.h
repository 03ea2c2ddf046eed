// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Arguments from Python, checked by hand: the bindings take plain objects
// and convert them here, so that a wrong type is a one-line TypeError (or
// ValueError) that names the method and the argument, never pybind11's
// list of signatures — and never reaches the engine.

#ifndef PLUSH_PYTHON_EXT_ARGS_H_
#define PLUSH_PYTHON_EXT_ARGS_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

namespace plush::python {

// A key or value: bytes, bytearray or any object with a contiguous buffer
// (memoryview). `where` names the method, `name` the argument.
std::string BytesArg(pybind11::handle value, const char* where,
                     const char* name);

// A non-negative integer up to `max` (not a bool, not a float).
uint64_t CountArg(pybind11::handle value, const char* where, const char* name,
                  uint64_t max = UINT64_MAX);
// The same, or nullopt for None.
std::optional<uint64_t> OptionalCountArg(pybind11::handle value,
                                         const char* where, const char* name);

// A signed 64-bit integer (not a bool, not a float).
int64_t IntArg(pybind11::handle value, const char* where, const char* name);

// True or False exactly.
bool BoolArg(pybind11::handle value, const char* where, const char* name);

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_ARGS_H_
