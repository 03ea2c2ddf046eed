// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The Python iterator behind DB.scan(), DB.items(), DB.keys(), DB.values()
// and iter(DB).

#ifndef PLUSH_PYTHON_EXT_SCAN_H_
#define PLUSH_PYTHON_EXT_SCAN_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "database.h"
#include "plush/iterator.h"

namespace plush::python {

// Yields records (in key order on a range pool), fetched in batches: one
// GIL release per batch rather than per record. One engine iterator serves
// the whole scan, so that a long scan seeks once; the DB destroys it when
// it closes (the scan then raises InvalidArgumentError).
class Scan {
 public:
  enum class Yield { kItems, kKeys, kValues };

  // `owner` is the Python DB object: the scan keeps it alive.
  // `end`: exclusive upper bound (ReadOptions::iterate_upper_bound).
  Scan(pybind11::object owner, Database* db, std::optional<std::string> start,
       std::optional<std::string> end, std::optional<uint64_t> limit,
       Yield yield);
  ~Scan();

  // The next key, value or (key, value) tuple; raises StopIteration at the
  // end and ValueError if called while already running in another thread.
  pybind11::object Next();

 private:
  friend class Database;
  // Refills batch_ from the iterator.
  void Fetch();

  pybind11::object owner_;
  Database* const db_;
  const Yield yield_;
  const std::optional<std::string> start_;
  const std::optional<std::string> end_;
  uint64_t remaining_;  // records still allowed by the limit
  std::unique_ptr<Iterator> it_;  // guarded by the DB's locks
  bool positioned_ = false;       // it_ has been positioned at start_
  std::vector<Database::Record> batch_;
  size_t next_ = 0;         // index into batch_
  bool exhausted_ = false;  // the iterator has no records after batch_
  bool running_ = false;    // Next() is in progress
};

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_SCAN_H_
