// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush.open()'s keyword arguments, which mirror the fields of
// plush::Options.

#ifndef PLUSH_PYTHON_EXT_OPTIONS_H_
#define PLUSH_PYTHON_EXT_OPTIONS_H_

#include <pybind11/pybind11.h>

#include <string>

#include "plush/options.h"

namespace plush::python {

// Builds Options from keyword arguments named like the fields of Options,
// plus small=True to start from Options::SmallProfile() (explicit arguments
// still win). Enumerations are spelled as in Stats: backend 'auto' | 'file'
// | 'pmem', partitioning 'hash' | 'range', required_granularity 'byte' |
// 'cache-line' | 'page'. Raises TypeError for an unknown name or a value of
// the wrong type and InvalidArgumentError for an unknown spelling.
Options OptionsFromKwargs(const pybind11::kwargs& kwargs);

// Raises InvalidArgumentError if a keyword argument names a creation
// parameter that differs from the one the pool has (its stats): such
// arguments apply only when a pool is created, and would otherwise be
// ignored without a word. (small=True is a profile for creating a pool,
// not a request about an existing one: it is not checked.)
void CheckCreationParameters(const pybind11::kwargs& kwargs,
                             const Options& options,
                             const pybind11::dict& stats,
                             const std::string& path);

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_OPTIONS_H_
