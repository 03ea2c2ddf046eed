// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush.DB: the engine's DB as Python sees it.

#ifndef PLUSH_PYTHON_EXT_DATABASE_H_
#define PLUSH_PYTHON_EXT_DATABASE_H_

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plush/db.h"

namespace plush::python {

class Scan;

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
  ~Database();

  void Put(std::string_view key, std::string_view value,
           const WriteOptions& options);
  // The value of `key`, or nullopt if it does not exist.
  std::optional<pybind11::bytes> Get(std::string_view key);
  // Get of every key: a list with a bytes value or None per key.
  pybind11::list GetMany(const std::vector<std::string>& keys);
  void Delete(std::string_view key, const WriteOptions& options);
  void Write(WriteBatch* batch, const WriteOptions& options);
  // The key's value; if it had none, stores `value` first (atomically).
  pybind11::bytes SetDefault(std::string_view key, std::string_view value,
                             const WriteOptions& options);
  int64_t Increment(std::string_view key, int64_t delta,
                    const WriteOptions& options);
  // Sets the key's expiry (Unix ms; 0 = never); false if the key is absent
  // or expired.
  bool Expire(std::string_view key, uint64_t expires_at_ms,
              const WriteOptions& options);
  // The key's expiry (Unix ms; 0 = none), or nullopt if it does not exist.
  std::optional<uint64_t> GetExpiry(std::string_view key);
  void Checkpoint(unsigned threads);
  void Sync();
  uint64_t Rebalance();
  // The verification report; raises CorruptionError (with the report) if
  // the pool has problems.
  std::string Verify();
  void Backup(const std::string& path);
  // Every Stats field, by name.
  pybind11::dict Stats();
  // Closes the pool and frees the engine, after the iterators of every
  // scan still alive; idempotent. Later calls raise InvalidArgumentError.
  void Close();

  bool closed();
  const std::string& path() const { return path_; }

  // For Scan: runs fn(iterator) under the shared lock, the scan's engine
  // iterator made at its first use (and destroyed by Close()).
  void WithIterator(Scan* scan, const std::function<Status(Iterator*)>& fn);
  // For Scan's destructor.
  void Forget(Scan* scan);

 private:
  // Runs fn(db) with the GIL released and Close() held off; returns
  // InvalidArgument if the DB is closed.
  template <typename Fn>
  Status Call(Fn&& fn);

  const std::string path_;
  std::shared_mutex mu_;
  std::unique_ptr<DB> db_;  // null once closed; guarded by mu_
  std::mutex scans_mu_;
  std::set<Scan*> scans_;  // with an engine iterator; guarded by scans_mu_
};

}  // namespace plush::python

#endif  // PLUSH_PYTHON_EXT_DATABASE_H_
