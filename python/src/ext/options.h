// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush.open()'s keyword arguments, which mirror the fields of
// plush::Options.

#ifndef PLUSH_PYTHON_EXT_OPTIONS_H_
#define PLUSH_PYTHON_EXT_OPTIONS_H_

#include <pybind11/pybind11.h>

#include "plush/options.h"

namespace plush::python {

// Builds Options from keyword arguments named like the fields of Options,
// plus small=True to start from Options::SmallProfile() (explicit arguments
// still win). Enumerations are spelled as in Stats: backend 'auto' | 'file'
// | 'pmem', partitioning 'hash' | 'range', required_granularity 'byte' |
// 'cache-line' | 'page'. Raises TypeError for an unknown name or a value of
// the wrong type and InvalidArgumentError for an unknown spelling.
Options OptionsFromKwargs(const pybind11::kwargs& kwargs);

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_OPTIONS_H_
