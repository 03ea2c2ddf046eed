// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Statuses become the Python exceptions of plush._errors.

#ifndef PLUSH_PYTHON_EXT_ERRORS_H_
#define PLUSH_PYTHON_EXT_ERRORS_H_

#include "plush/status.h"

namespace plush::python {

// Does nothing for OK; otherwise raises the exception class of the status's
// code (BusyError for Busy, ...) and throws pybind11::error_already_set.
// REQUIRES: the GIL is held.
void ThrowIfError(const Status& status);

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_ERRORS_H_
