// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush._plush: the bindings. The public package, plush, re-exports them
// next to the exception classes; see python/src/plush/_plush.pyi for the
// documented signatures.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "database.h"
#include "options.h"
#include "plush/db.h"
#include "scan.h"

namespace py = pybind11;

namespace plush::python {
namespace {

// Raises KeyError(key), the mapping protocol's answer for a missing key.
[[noreturn]] void ThrowKeyError(const py::bytes& key) {
  PyErr_SetObject(PyExc_KeyError, key.ptr());
  throw py::error_already_set();
}

std::unique_ptr<Scan> MakeScan(Database& db, std::optional<py::bytes> start,
                               std::optional<uint64_t> limit,
                               Scan::Yield yield) {
  std::optional<std::string> start_key;
  if (start) start_key = std::string(*start);
  return std::make_unique<Scan>(&db, std::move(start_key), limit, yield);
}

// The binding of a method that scans the whole DB.
auto ScanAll(Scan::Yield yield) {
  return [yield](Database& db) {
    return MakeScan(db, std::nullopt, std::nullopt, yield);
  };
}

// Scans hold a pointer to their DB: keep the DB alive while one exists.
constexpr auto kScanKeepsDbAlive = py::keep_alive<0, 1>();

void DefineModule(py::module_& m) {
  m.doc() = "Bindings of the Plush key-value store; use the plush package.";
  m.attr("FORMAT_VERSION") = kFormatVersion;
  m.attr("MAX_KEY_SIZE") = kMaxKeySize;
  m.attr("MAX_VALUE_SIZE") = kMaxValueSize;

  py::class_<Scan>(m, "Scan")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Scan::Next);

  py::class_<Database>(m, "DB")
      .def(
          "put",
          [](Database& db, const py::bytes& key, const py::bytes& value,
             bool log) { db.Put(key, value, log); },
          py::arg("key"), py::arg("value"), py::kw_only(),
          py::arg("log") = true)
      .def("__setitem__",
           [](Database& db, const py::bytes& key, const py::bytes& value) {
             db.Put(key, value, /*log=*/true);
           })
      .def(
          "get",
          [](Database& db, const py::bytes& key, py::object default_value) {
            std::optional<py::bytes> value = db.Get(key);
            return value ? py::object(*value) : default_value;
          },
          py::arg("key"), py::arg("default") = py::none())
      .def("__getitem__",
           [](Database& db, const py::bytes& key) {
             std::optional<py::bytes> value = db.Get(key);
             if (!value) ThrowKeyError(key);
             return *value;
           })
      .def("__contains__",
           [](Database& db, const py::bytes& key) {
             return db.Get(key).has_value();
           })
      .def(
          "delete",
          [](Database& db, const py::bytes& key, bool log) {
            db.Delete(key, log);
          },
          py::arg("key"), py::kw_only(), py::arg("log") = true)
      .def("__delitem__",
           [](Database& db, const py::bytes& key) {
             // The engine deletes missing keys silently; the mapping
             // protocol wants KeyError. Not atomic with the delete.
             if (!db.Get(key)) ThrowKeyError(key);
             db.Delete(key, /*log=*/true);
           })
      .def("checkpoint", &Database::Checkpoint, py::arg("threads") = 1)
      .def("sync", &Database::Sync)
      .def("verify", &Database::Verify)
      .def("stats", &Database::Stats)
      .def(
          "scan",
          [](Database& db, std::optional<py::bytes> start,
             std::optional<uint64_t> limit) {
            return MakeScan(db, std::move(start), limit, Scan::Yield::kItems);
          },
          py::arg("start") = py::none(), py::arg("limit") = py::none(),
          kScanKeepsDbAlive)
      .def("items", ScanAll(Scan::Yield::kItems), kScanKeepsDbAlive)
      .def("keys", ScanAll(Scan::Yield::kKeys), kScanKeepsDbAlive)
      .def("values", ScanAll(Scan::Yield::kValues), kScanKeepsDbAlive)
      .def("__iter__", ScanAll(Scan::Yield::kKeys), kScanKeepsDbAlive)
      .def("close", &Database::Close)
      .def_property_readonly("closed", &Database::closed)
      .def_property_readonly("path", &Database::path)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](Database& db, py::args) {
             db.Close();
             return false;  // never swallow the exception of the block
           })
      .def("__repr__", [](Database& db) {
        return "<plush.DB " + std::string(py::repr(py::str(db.path()))) +
               (db.closed() ? " closed>" : ">");
      });

  m.def(
      "open",
      [](const std::filesystem::path& path, const py::kwargs& options) {
        return std::make_unique<Database>(path.string(),
                                          OptionsFromKwargs(options));
      },
      py::arg("path"));
}

}  // namespace
}  // namespace plush::python

PYBIND11_MODULE(_plush, m) { plush::python::DefineModule(m); }
