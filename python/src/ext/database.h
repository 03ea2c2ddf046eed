// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush.DB: the engine's DB as Python sees it.

#ifndef PLUSH_PYTHON_EXT_DATABASE_H_
#define PLUSH_PYTHON_EXT_DATABASE_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plush/db.h"

namespace plush::python {

// Every engine call runs with the GIL released, so that Python threads
// using one DB scale, and under a shared lock that close() takes
// exclusively: the engine forbids Close() racing other calls, and Python
// code cannot be trusted to avoid it. Methods raise plush._errors
// exceptions; they are safe to call from any thread.
class Database {
 public:
  using Record = std::pair<std::string, std::string>;

  // Opens the pool at `path`; raises on failure.
  Database(const std::string& path, const Options& options);

  void Put(std::string_view key, std::string_view value, bool log);
  // The value of `key`, or nullopt if it does not exist.
  std::optional<pybind11::bytes> Get(std::string_view key);
  void Delete(std::string_view key, bool log);
  void Checkpoint(unsigned threads);
  void Sync();
  // The verification report; raises CorruptionError (with the report) if
  // the pool has problems.
  std::string Verify();
  // Every Stats field, by name.
  pybind11::dict Stats();
  // Appends to *out up to `max` records in key order, starting at the first
  // key >= *start (or > *start if `after_start`), or at the first key if
  // `start` is null. Raises NotSupportedError on hash-partitioned pools.
  void ReadRecords(const std::string* start, bool after_start, size_t max,
                   std::vector<Record>* out);
  // Closes the pool and frees the engine; idempotent. Later calls raise
  // InvalidArgumentError.
  void Close();

  bool closed();
  const std::string& path() const { return path_; }

 private:
  // Runs fn(db) with the GIL released and Close() held off; returns
  // InvalidArgument if the DB is closed.
  template <typename Fn>
  Status Call(Fn&& fn);

  const std::string path_;
  std::shared_mutex mu_;
  std::unique_ptr<DB> db_;  // null once closed; guarded by mu_
};

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_DATABASE_H_
