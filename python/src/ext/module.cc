// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush._plush: the bindings. The public package, plush, re-exports them
// next to the exception classes; see python/src/plush/_plush.pyi for the
// documented signatures.
//
// Every argument arrives as a plain object and is converted by args.h, so
// that a wrong type or value raises a one-line TypeError or ValueError
// naming the method and the argument.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "batch.h"
#include "database.h"
#include "expiry.h"
#include "options.h"
#include "plush/db.h"
#include "scan.h"

namespace py = pybind11;

namespace plush::python {
namespace {

// Raises KeyError(key), the mapping protocol's answer for a missing key.
[[noreturn]] void ThrowKeyError(const std::string& key) {
  PyErr_SetObject(PyExc_KeyError, py::bytes(key).ptr());
  throw py::error_already_set();
}

Database& Self(py::handle self) { return self.cast<Database&>(); }

// The WriteOptions of a write method's keyword arguments `log` and `sync`.
WriteOptions WriteArgs(const char* where, py::handle log, py::handle sync) {
  WriteOptions options;
  options.log = BoolArg(log, where, "log");
  options.sync = BoolArg(sync, where, "sync");
  return options;
}

// The same for the methods that take no `log`: they always log.
WriteOptions WriteArgs(const char* where, py::handle sync) {
  return WriteArgs(where, py::bool_(true), sync);
}

// The same with the expiry of keyword arguments `expires_at` and `ttl`
// (expiry.h). Neither gives 0, with which a put removes the key's expiry
// (as Redis's SET does).
WriteOptions WriteArgs(const char* where, py::handle log, py::handle sync,
                       py::handle expires_at, py::handle ttl) {
  WriteOptions options = WriteArgs(where, log, sync);
  options.expires_at_ms = ExpiryArg(expires_at, ttl, where).value_or(0);
  return options;
}

// The expiry of `key` (Unix ms, 0 = none); KeyError if it does not exist.
uint64_t ExpiryOf(Database& db, py::handle key, const char* where) {
  const std::string k = BytesArg(key, where, "key");
  const std::optional<uint64_t> expiry = db.GetExpiry(k);
  if (!expiry) ThrowKeyError(k);
  return *expiry;
}

std::unique_ptr<Scan> MakeScan(py::object self, std::optional<std::string> start,
                               std::optional<std::string> end,
                               std::optional<uint64_t> limit,
                               Scan::Yield yield) {
  Database* db = &Self(self);
  return std::make_unique<Scan>(std::move(self), db, std::move(start),
                                std::move(end), limit, yield);
}

// The binding of a method that walks the whole DB.
auto ScanAll(Scan::Yield yield) {
  return [yield](py::object self) {
    return MakeScan(std::move(self), std::nullopt, std::nullopt, std::nullopt,
                    yield);
  };
}

// (key, value) pairs from a mapping (its items()) or an iterable of pairs.
std::vector<std::pair<std::string, std::string>> Pairs(py::handle source,
                                                       const char* where) {
  py::object items = py::reinterpret_borrow<py::object>(source);
  if (py::hasattr(source, "items")) items = source.attr("items")();
  std::vector<std::pair<std::string, std::string>> pairs;
  py::iterator it;
  try {
    it = py::iter(items);
  } catch (const py::error_already_set&) {
    throw py::type_error(std::string(where) +
                         "(): expected a mapping or an iterable of (key, "
                         "value) pairs");
  }
  for (py::handle pair : it) {
    if (!py::isinstance<py::sequence>(pair) || py::len(pair) != 2) {
      throw py::type_error(std::string(where) +
                           "(): every item must be a (key, value) pair");
    }
    pairs.emplace_back(BytesArg(pair[py::int_(0)], where, "key"),
                       BytesArg(pair[py::int_(1)], where, "value"));
  }
  return pairs;
}

void DefineBatch(py::module_& m) {
  py::class_<Batch>(m, "WriteBatch")
      .def(
          "put",
          [](Batch& b, py::object key, py::object value, py::object expires_at,
             py::object ttl) {
            const char* where = "WriteBatch.put";
            b.Put(BytesArg(key, where, "key"), BytesArg(value, where, "value"),
                  ExpiryArg(expires_at, ttl, where).value_or(0));
          },
          py::arg("key"), py::arg("value"), py::kw_only(),
          py::arg("expires_at") = py::none(), py::arg("ttl") = py::none())
      .def("delete",
           [](Batch& b, py::object key) {
             b.Delete(BytesArg(key, "WriteBatch.delete", "key"));
           },
           py::arg("key"))
      .def("__len__", &Batch::Count)
      .def("commit", &Batch::Commit)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](Batch& b, py::object type, py::args) {
        if (type.is_none()) {
          b.Commit();
        } else {
          b.Discard();  // the block failed: none of its writes
        }
        return false;  // never swallow the exception of the block
      });
}

void DefineDB(py::module_& m) {
  py::class_<Database>(m, "DB")
      .def(
          "put",
          [](Database& db, py::object key, py::object value, py::object log,
             py::object sync, py::object expires_at, py::object ttl) {
            db.Put(BytesArg(key, "put", "key"), BytesArg(value, "put", "value"),
                   WriteArgs("put", log, sync, expires_at, ttl));
          },
          py::arg("key"), py::arg("value"), py::kw_only(),
          py::arg("log") = true, py::arg("sync") = false,
          py::arg("expires_at") = py::none(), py::arg("ttl") = py::none())
      .def("__setitem__",
           [](Database& db, py::object key, py::object value) {
             db.Put(BytesArg(key, "__setitem__", "key"),
                    BytesArg(value, "__setitem__", "value"), WriteOptions());
           })
      .def(
          "get",
          [](Database& db, py::object key, py::object default_value) {
            std::optional<py::bytes> value = db.Get(BytesArg(key, "get", "key"));
            return value ? py::object(*value) : default_value;
          },
          py::arg("key"), py::arg("default") = py::none())
      .def(
          "get_many",
          [](Database& db, py::object keys) {
            std::vector<std::string> bytes;
            for (py::handle key : py::iter(keys))
              bytes.push_back(BytesArg(key, "get_many", "every key"));
            return db.GetMany(bytes);
          },
          py::arg("keys"))
      .def("__getitem__",
           [](Database& db, py::object key) {
             const std::string k = BytesArg(key, "__getitem__", "key");
             std::optional<py::bytes> value = db.Get(k);
             if (!value) ThrowKeyError(k);
             return *value;
           })
      .def("__contains__",
           [](Database& db, py::object key) {
             return db.Get(BytesArg(key, "__contains__", "key")).has_value();
           })
      .def(
          "delete",
          [](Database& db, py::object key, py::object log, py::object sync) {
            db.Delete(BytesArg(key, "delete", "key"),
                      WriteArgs("delete", log, sync));
          },
          py::arg("key"), py::kw_only(), py::arg("log") = true,
          py::arg("sync") = false)
      .def("__delitem__",
           [](Database& db, py::object key) {
             const std::string k = BytesArg(key, "__delitem__", "key");
             // The engine deletes missing keys silently; the mapping
             // protocol wants KeyError. Not atomic with the delete.
             if (!db.Get(k)) ThrowKeyError(k);
             db.Delete(k, WriteOptions());
           })
      .def(
          "write_batch",
          [](py::object self, py::object log, py::object sync) {
            Database* db = &Self(self);
            return std::make_unique<Batch>(
                std::move(self), db, WriteArgs("write_batch", log, sync));
          },
          py::kw_only(), py::arg("log") = true, py::arg("sync") = false)
      .def(
          "update",
          [](Database& db, py::object other, py::object log, py::object sync,
             py::object expires_at, py::object ttl) {
            // Checked before `other`, which may be an iterator, is used up.
            const WriteOptions options =
                WriteArgs("update", log, sync, expires_at, ttl);
            WriteBatch batch;
            for (const auto& [key, value] : Pairs(other, "update"))
              batch.Put(key, value);
            db.Write(&batch, options);
          },
          py::arg("other"), py::kw_only(), py::arg("log") = true,
          py::arg("sync") = false, py::arg("expires_at") = py::none(),
          py::arg("ttl") = py::none())
      .def(
          "increment",
          [](Database& db, py::object key, py::object delta, py::object sync) {
            return db.Increment(BytesArg(key, "increment", "key"),
                                IntArg(delta, "increment", "delta"),
                                WriteArgs("increment", sync));
          },
          py::arg("key"), py::arg("delta") = 1, py::kw_only(),
          py::arg("sync") = false)
      .def(
          "setdefault",
          [](Database& db, py::object key, py::object default_value,
             py::object sync) {
            return db.SetDefault(
                BytesArg(key, "setdefault", "key"),
                BytesArg(default_value, "setdefault", "default"),
                WriteArgs("setdefault", sync));
          },
          py::arg("key"), py::arg("default"), py::kw_only(),
          py::arg("sync") = false)
      .def(
          "expire",
          [](Database& db, py::object key, py::object expires_at,
             py::object ttl, py::object sync) {
            const std::string k = BytesArg(key, "expire", "key");
            const std::optional<uint64_t> expiry =
                ExpiryArg(expires_at, ttl, "expire");
            if (!expiry) {
              throw py::type_error(
                  "expire(): give expires_at or ttl (persist() removes an "
                  "expiry)");
            }
            return db.Expire(k, *expiry, WriteArgs("expire", sync));
          },
          py::arg("key"), py::kw_only(), py::arg("expires_at") = py::none(),
          py::arg("ttl") = py::none(), py::arg("sync") = false)
      .def(
          "persist",
          [](Database& db, py::object key, py::object sync) {
            return db.Expire(BytesArg(key, "persist", "key"), 0,
                             WriteArgs("persist", sync));
          },
          py::arg("key"), py::kw_only(), py::arg("sync") = false)
      .def(
          "ttl",
          [](Database& db, py::object key) {
            return SecondsLeft(ExpiryOf(db, key, "ttl"));
          },
          py::arg("key"))
      .def(
          "expires_at",
          [](Database& db, py::object key) {
            return ExpiresAtSeconds(ExpiryOf(db, key, "expires_at"));
          },
          py::arg("key"))
      .def(
          "checkpoint",
          [](Database& db, py::object threads) {
            db.Checkpoint(static_cast<unsigned>(
                CountArg(threads, "checkpoint", "threads", 1024)));
          },
          py::arg("threads") = 1)
      .def("sync", &Database::Sync)
      .def("rebalance", &Database::Rebalance)
      .def("verify", &Database::Verify)
      .def("stats", &Database::Stats)
      .def(
          "backup",
          [](Database& db, py::object path) {
            if (!py::isinstance<py::str>(path) &&
                !py::hasattr(path, "__fspath__")) {
              throw py::type_error(
                  std::string("backup(): path must be str or os.PathLike, "
                              "not ") +
                  Py_TYPE(path.ptr())->tp_name);
            }
            db.Backup(py::str(py::module_::import("os").attr("fspath")(path)));
          },
          py::arg("path"))
      .def(
          "scan",
          [](py::object self, py::object start, py::object end,
             py::object limit) {
            std::optional<std::string> start_key;
            if (!start.is_none()) start_key = BytesArg(start, "scan", "start");
            std::optional<std::string> end_key;
            if (!end.is_none()) end_key = BytesArg(end, "scan", "end");
            return MakeScan(std::move(self), std::move(start_key),
                            std::move(end_key),
                            OptionalCountArg(limit, "scan", "limit"),
                            Scan::Yield::kItems);
          },
          py::arg("start") = py::none(), py::arg("end") = py::none(),
          py::arg("limit") = py::none())
      .def("items", ScanAll(Scan::Yield::kItems))
      .def("keys", ScanAll(Scan::Yield::kKeys))
      .def("values", ScanAll(Scan::Yield::kValues))
      .def("__iter__", ScanAll(Scan::Yield::kKeys))
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
}

void DefineModule(py::module_& m) {
  m.doc() = "Bindings of the Plush key-value store; use the plush package.";
  m.attr("FORMAT_VERSION") = kFormatVersion;
  m.attr("MAX_KEY_SIZE") = kMaxKeySize;
  m.attr("MAX_VALUE_SIZE") = kMaxValueSize;
  m.attr("MAX_BATCH_RECORDS") = kMaxBatchRecords;

  py::class_<Scan>(m, "Scan")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Scan::Next);
  DefineBatch(m);
  DefineDB(m);

  m.def(
      "open",
      [](py::object path, const py::kwargs& kwargs) {
        if (!py::isinstance<py::str>(path) &&
            !py::hasattr(path, "__fspath__")) {
          throw py::type_error(
              std::string("open(): path must be str or os.PathLike, not ") +
              Py_TYPE(path.ptr())->tp_name);
        }
        const std::string p =
            py::str(py::module_::import("os").attr("fspath")(path));
        const Options options = OptionsFromKwargs(kwargs);
        auto db = std::make_unique<Database>(p, options);
        try {
          CheckCreationParameters(kwargs, options, db->Stats(), p);
        } catch (...) {
          db->Close();
          throw;
        }
        return db;
      },
      py::arg("path"));
}

}  // namespace
}  // namespace plush::python

PYBIND11_MODULE(_plush, m) { plush::python::DefineModule(m); }
