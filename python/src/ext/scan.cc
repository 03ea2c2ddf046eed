// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "scan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

namespace py = pybind11;

namespace plush::python {
namespace {

// Records per batch: amortizes the GIL hand-off while bounding the memory
// a batch of large values takes.
constexpr size_t kBatchSize = 256;

// The engine refuses Seek and ReadOptions::iterate_upper_bound on a hash
// pool in the terms of its C++ API; a Python caller passed start or end.
Status OrderedScanOfHashPool(bool start, bool end) {
  const char* given = start && end ? "start and end need"
                      : start      ? "start needs"
                                   : "end needs";
  return Status::NotSupported(
      std::string("scan(): ") + given +
      " a range-partitioned pool (one created with partitioning=\"range\"); "
      "this one is hash-partitioned: its keys have no order, so scan it "
      "without start and end");
}

}  // namespace

Scan::Scan(py::object owner, Database* db, std::optional<std::string> start,
           std::optional<std::string> end, std::optional<uint64_t> limit,
           Yield yield)
    : owner_(std::move(owner)),
      db_(db),
      yield_(yield),
      start_(std::move(start)),
      end_(std::move(end)),
      remaining_(limit.value_or(std::numeric_limits<uint64_t>::max())) {}

Scan::~Scan() { db_->Forget(this); }

py::object Scan::Next() {
  // Python's own generators refuse re-entry the same way; without this,
  // two threads could refill the batch at once.
  if (running_) throw py::value_error("scan already running in another thread");
  running_ = true;
  try {
    if (next_ == batch_.size() && !exhausted_ && remaining_ > 0) Fetch();
  } catch (...) {
    running_ = false;
    throw;
  }
  running_ = false;
  if (next_ == batch_.size() || remaining_ == 0) throw py::stop_iteration();
  --remaining_;
  Database::Record& record = batch_[next_++];
  switch (yield_) {
    case Yield::kKeys:
      return py::bytes(record.first);
    case Yield::kValues:
      return py::bytes(record.second);
    case Yield::kItems:
      break;
  }
  return py::make_tuple(py::bytes(record.first), py::bytes(record.second));
}

void Scan::Fetch() {
  const size_t want =
      static_cast<size_t>(std::min<uint64_t>(kBatchSize, remaining_));
  batch_.clear();
  next_ = 0;
  db_->WithIterator(this, [&](Iterator* it) {
    if (!positioned_) {
      if (start_) {
        it->Seek(*start_);
      } else {
        it->SeekToFirst();
      }
      positioned_ = true;
    } else if (it->Valid()) {
      it->Next();  // past the last record of the previous batch
    }
    for (; it->Valid(); it->Next()) {
      batch_.emplace_back(it->key(), it->value());
      if (batch_.size() == want) break;
    }
    // Stopped on a record: it is the last of this batch.
    exhausted_ = !it->Valid();
    const Status s = it->status();
    // Nothing else an iterator does is NotSupported.
    if (s.IsNotSupported() && (start_ || end_))
      return OrderedScanOfHashPool(start_.has_value(), end_.has_value());
    return s;
  });
}

}  // namespace plush::python
