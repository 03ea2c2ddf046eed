// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The Python iterator behind DB.scan(), DB.items(), DB.keys() and iter(DB).

#ifndef PLUSH_PYTHON_EXT_SCAN_H_
#define PLUSH_PYTHON_EXT_SCAN_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "database.h"

namespace plush::python {

// Yields records in key order, fetched in batches: one GIL release per
// batch rather than per record, and no engine iterator held between two
// calls from Python. Each batch sees the writes completed before it.
class Scan {
 public:
  enum class Yield { kItems, kKeys, kValues };

  // REQUIRES: `db` outlives the Scan (the binding keeps it alive).
  Scan(Database* db, std::optional<std::string> start,
       std::optional<uint64_t> limit, Yield yield);

  // The next key, value or (key, value) tuple; raises StopIteration at the
  // end and ValueError if called while already running in another thread.
  pybind11::object Next();

 private:
  // Refills batch_ with the records after the last one returned.
  void Fetch();

  Database* const db_;
  const Yield yield_;
  std::optional<std::string> start_;  // the next batch starts here...
  bool after_start_ = false;          // ...or just after it
  uint64_t remaining_;                // records still allowed by the limit
  std::vector<Database::Record> batch_;
  size_t next_ = 0;         // index into batch_
  bool exhausted_ = false;  // the engine has no records after batch_
  bool running_ = false;    // Next() is in progress
};

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_SCAN_H_
