// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "args.h"

#include <string>

namespace py = pybind11;

namespace plush::python {
namespace {

std::string TypeName(py::handle value) {
  return Py_TYPE(value.ptr())->tp_name;
}

[[noreturn]] void Wrong(const char* where, const char* name,
                        const char* expected, py::handle value) {
  throw py::type_error(std::string(where) + "(): " + name + " must be " +
                       expected + ", not " + TypeName(value));
}

// An int that is not a bool (bool is an int subclass in Python).
bool IsInt(py::handle value) {
  return PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr());
}

}  // namespace

std::string BytesArg(py::handle value, const char* where, const char* name) {
  PyObject* o = value.ptr();
  if (PyBytes_Check(o)) {
    return std::string(PyBytes_AS_STRING(o),
                       static_cast<size_t>(PyBytes_GET_SIZE(o)));
  }
  if (PyByteArray_Check(o)) {
    return std::string(PyByteArray_AS_STRING(o),
                       static_cast<size_t>(PyByteArray_GET_SIZE(o)));
  }
  if (PyObject_CheckBuffer(o) && !PyUnicode_Check(o)) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) == 0) {
      std::string bytes(static_cast<const char*>(view.buf),
                        static_cast<size_t>(view.len));
      PyBuffer_Release(&view);
      return bytes;
    }
    PyErr_Clear();
  }
  Wrong(where, name, "bytes", value);
}

uint64_t CountArg(py::handle value, const char* where, const char* name,
                  uint64_t max) {
  if (!IsInt(value)) Wrong(where, name, "an int", value);
  const auto too_large = [&] {
    return py::value_error(std::string(where) + "(): " + name +
                           " must be at most " + std::to_string(max));
  };
  if (py::reinterpret_borrow<py::int_>(value) < py::int_(0)) {
    throw py::value_error(std::string(where) + "(): " + name +
                          " must not be negative");
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();  // beyond 64 bits
    throw too_large();
  }
  if (v > max) throw too_large();
  return v;
}

std::optional<uint64_t> OptionalCountArg(py::handle value, const char* where,
                                         const char* name) {
  if (value.is_none()) return std::nullopt;
  return CountArg(value, where, name);
}

int64_t IntArg(py::handle value, const char* where, const char* name) {
  if (!IsInt(value)) Wrong(where, name, "an int", value);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0) {
    throw py::value_error(std::string(where) + "(): " + name +
                          " does not fit a signed 64-bit integer");
  }
  return v;
}

bool BoolArg(py::handle value, const char* where, const char* name) {
  if (!PyBool_Check(value.ptr())) Wrong(where, name, "a bool", value);
  return value.ptr() == Py_True;
}

}  // namespace plush::python
