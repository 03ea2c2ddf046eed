// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush.WriteBatch, from DB.write_batch(): writes collected in Python and
// applied together by DB::Write — atomically, with one persistence barrier.
// As a context manager it commits when the block ends normally and
// discards its writes when the block raises.

#ifndef PLUSH_PYTHON_EXT_BATCH_H_
#define PLUSH_PYTHON_EXT_BATCH_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string_view>

#include "database.h"
#include "plush/write_batch.h"

namespace plush::python {

class Batch {
 public:
  // `owner` is the Python DB object: the batch keeps it alive.
  Batch(pybind11::object owner, Database* db, const WriteOptions& options)
      : owner_(std::move(owner)), db_(db), options_(options) {}

  // expires_at_ms: Unix ms, 0 = never. (The batch's WriteOptions carry no
  // expiry, so a put without one is a plain Put.)
  void Put(std::string_view key, std::string_view value,
           uint64_t expires_at_ms) {
    batch_.PutWithExpiry(key, value, expires_at_ms);
  }
  void Delete(std::string_view key) { batch_.Delete(key); }
  size_t Count() const { return batch_.Count(); }
  // Writes the collected operations and empties the batch; on an error
  // nothing was written and the batch keeps them.
  void Commit() {
    db_->Write(&batch_, options_);
    batch_.Clear();
  }
  void Discard() { batch_.Clear(); }

 private:
  pybind11::object owner_;
  Database* const db_;
  const WriteOptions options_;
  WriteBatch batch_;
};

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_BATCH_H_
