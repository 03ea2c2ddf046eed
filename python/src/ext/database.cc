// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "database.h"

#include <pybind11/stl.h>

#include <mutex>

#include "errors.h"

namespace py = pybind11;

namespace plush::python {

Database::Database(const std::string& path, const Options& options)
    : path_(path) {
  Status s;
  {
    // Opening may recover a crashed pool, which takes a while.
    py::gil_scoped_release release;
    s = DB::Open(options, path, &db_);
  }
  ThrowIfError(s);  // the engine's messages name the pool
}

template <typename Fn>
Status Database::Call(Fn&& fn) {
  py::gil_scoped_release release;
  std::shared_lock lock(mu_);
  if (db_ == nullptr) return Status::InvalidArgument("the DB is closed");
  return fn(db_.get());
}

void Database::Put(std::string_view key, std::string_view value, bool log) {
  WriteOptions options;
  options.log = log;
  ThrowIfError(Call([&](DB* db) { return db->Put(options, key, value); }));
}

std::optional<py::bytes> Database::Get(std::string_view key) {
  std::string value;
  Status s = Call([&](DB* db) { return db->Get(ReadOptions(), key, &value); });
  if (s.IsNotFound()) return std::nullopt;
  ThrowIfError(s);
  return py::bytes(value);
}

void Database::Delete(std::string_view key, bool log) {
  WriteOptions options;
  options.log = log;
  ThrowIfError(Call([&](DB* db) { return db->Delete(options, key); }));
}

void Database::Checkpoint(unsigned threads) {
  ThrowIfError(Call([&](DB* db) { return db->Checkpoint(threads); }));
}

void Database::Sync() {
  ThrowIfError(Call([](DB* db) { return db->Sync(); }));
}

std::string Database::Verify() {
  std::string report;
  Status s = Call([&](DB* db) { return db->Verify(&report); });
  if (s.IsCorruption() && !report.empty()) {
    s = Status::Corruption(std::string(s.message()) + "\n" + report);
  }
  ThrowIfError(s);
  return report;
}

py::dict Database::Stats() {
  plush::Stats s;
  ThrowIfError(Call([&](DB* db) { return db->GetStats(&s); }));
  py::dict d;
  d["backend"] = s.backend;
  d["power_fail_durable"] = s.power_fail_durable;
  d["guarantee"] = s.guarantee;
  d["granularity"] = s.granularity;
  d["partitioning"] = s.partitioning;
  d["format_version"] = s.format_version;
  d["dram_bytes"] = s.dram_bytes;
  d["pool_bytes"] = s.pool_bytes;
  d["pool_used_bytes"] = s.pool_used_bytes;
  d["levels"] = s.levels;
  d["records_per_level"] = s.records_per_level;
  d["migrations"] = s.migrations;
  d["log_compactions"] = s.log_compactions;
  d["log_forced_migrations"] = s.log_forced_migrations;
  d["payload_chunks"] = s.payload_chunks;
  d["payload_bytes"] = s.payload_bytes;
  d["payload_gc_runs"] = s.payload_gc_runs;
  d["payload_gc_moved"] = s.payload_gc_moved;
  d["payload_gc_skipped"] = s.payload_gc_skipped;
  d["persist_calls"] = s.persist_calls;
  d["flushed_lines"] = s.flushed_lines;
  d["user_bytes_written"] = s.user_bytes_written;
  d["media_bytes_written"] = s.media_bytes_written;
  d["media_write_amp"] = s.media_write_amp;
  d["recovery_seconds"] = s.recovery_seconds;
  d["recovered_log_entries"] = s.recovered_log_entries;
  return d;
}

void Database::ReadRecords(const std::string* start, bool after_start,
                           size_t max, std::vector<Record>* out) {
  ThrowIfError(Call([&](DB* db) {
    // The engine iterator lives only for this call: an iterator must not
    // outlive its DB, and Python may close the DB between two batches.
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    if (start == nullptr) {
      it->SeekToFirst();
    } else {
      it->Seek(*start);
      if (after_start && it->Valid() && it->key() == *start) it->Next();
    }
    for (; it->Valid() && out->size() < max; it->Next()) {
      out->emplace_back(it->key(), it->value());
    }
    return it->status();
  }));
}

void Database::Close() {
  Status s;
  {
    py::gil_scoped_release release;
    std::unique_lock lock(mu_);
    if (db_ != nullptr) s = db_->Close();
    // Free the DRAM level now, not when Python collects the object.
    db_.reset();
  }
  ThrowIfError(s);
}

bool Database::closed() {
  std::shared_lock lock(mu_);
  return db_ == nullptr;
}

}  // namespace plush::python
