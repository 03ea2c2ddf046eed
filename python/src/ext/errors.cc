// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "errors.h"

#include <pybind11/pybind11.h>

#include <string>

namespace py = pybind11;

namespace plush::python {
namespace {

// The class in plush._errors for each non-OK code. The hierarchy lives in
// Python because its classes have several bases (InvalidArgumentError is
// also a ValueError, IOError an OSError), which Python states best.
const char* ErrorClassName(Status::Code code) {
  switch (code) {
    case Status::Code::kInvalidArgument:
      return "InvalidArgumentError";
    case Status::Code::kCorruption:
      return "CorruptionError";
    case Status::Code::kNoSpace:
      return "NoSpaceError";
    case Status::Code::kIOError:
      return "IOError";
    case Status::Code::kBusy:
      return "BusyError";
    case Status::Code::kNotSupported:
      return "NotSupportedError";
    case Status::Code::kOk:
    case Status::Code::kNotFound:  // callers turn it into KeyError or None
      break;
  }
  return "Error";
}

}  // namespace

void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  py::object error_class =
      py::module_::import("plush._errors").attr(ErrorClassName(status.code()));
  PyErr_SetString(error_class.ptr(), std::string(status.message()).c_str());
  throw py::error_already_set();
}

}  // namespace plush::python
