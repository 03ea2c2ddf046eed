// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "database.h"

#include <pybind11/stl.h>

#include <mutex>

#include "errors.h"
#include "scan.h"

namespace py = pybind11;

namespace plush::python {
namespace {

// Stats fields into a dict, from the one list of fields (plush/stats.h).
class StatsDict final : public StatsVisitor {
 public:
  void Text(std::string_view name, const std::string& value) override {
    dict[py::str(std::string(name))] = value;
  }
  void Flag(std::string_view name, bool value) override {
    dict[py::str(std::string(name))] = value;
  }
  void Count(std::string_view name, uint64_t value) override {
    dict[py::str(std::string(name))] = value;
  }
  void Ratio(std::string_view name, double value) override {
    dict[py::str(std::string(name))] = value;
  }
  void Counts(std::string_view name,
              const std::vector<uint64_t>& values) override {
    dict[py::str(std::string(name))] = values;
  }
  py::dict dict;
};

}  // namespace

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

// Live scans keep their DB alive (Scan::owner_), so none is left here.
Database::~Database() = default;

template <typename Fn>
Status Database::Call(Fn&& fn) {
  py::gil_scoped_release release;
  std::shared_lock lock(mu_);
  if (db_ == nullptr) return Status::InvalidArgument("the DB is closed");
  return fn(db_.get());
}

void Database::WithIterator(Scan* scan,
                            const std::function<Status(Iterator*)>& fn) {
  // (Close() destroys the iterators and leaves the DB closed: a scan
  // never finds its iterator gone while the DB is open.)
  ThrowIfError(Call([&](DB* db) {
    if (scan->it_ == nullptr) {
      ReadOptions options;
      options.iterate_upper_bound = scan->end_;
      scan->it_ = db->NewIterator(options);
      std::lock_guard<std::mutex> lock(scans_mu_);
      scans_.insert(scan);
    }
    return fn(scan->it_.get());
  }));
}

void Database::Forget(Scan* scan) {
  std::lock_guard<std::mutex> lock(scans_mu_);
  scans_.erase(scan);
}

void Database::Put(std::string_view key, std::string_view value,
                   const WriteOptions& options) {
  ThrowIfError(Call([&](DB* db) { return db->Put(options, key, value); }));
}

std::optional<py::bytes> Database::Get(std::string_view key) {
  std::string value;
  Status s = Call([&](DB* db) { return db->Get(ReadOptions(), key, &value); });
  if (s.IsNotFound()) return std::nullopt;
  ThrowIfError(s);
  return py::bytes(value);
}

py::list Database::GetMany(const std::vector<std::string>& keys) {
  std::vector<std::string> values;
  std::vector<Status> statuses;
  ThrowIfError(Call([&](DB* db) {
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    statuses = db->MultiGet(ReadOptions(), views, &values);
    return Status::OK();
  }));
  py::list out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) {
      out.append(py::none());
      continue;
    }
    ThrowIfError(statuses[i]);
    out.append(py::bytes(values[i]));
  }
  return out;
}

void Database::Delete(std::string_view key, const WriteOptions& options) {
  ThrowIfError(Call([&](DB* db) { return db->Delete(options, key); }));
}

void Database::Write(WriteBatch* batch, const WriteOptions& options) {
  ThrowIfError(Call([&](DB* db) { return db->Write(options, batch); }));
}

py::bytes Database::SetDefault(std::string_view key, std::string_view value,
                               const WriteOptions& options) {
  std::string result;
  ThrowIfError(Call([&](DB* db) {
    return db->Update(options, key,
                      [&](const std::string* current, std::string* next) {
                        if (current != nullptr) {
                          result = *current;
                          return DB::UpdateAction::kKeep;
                        }
                        result.assign(value);
                        next->assign(value);
                        return DB::UpdateAction::kPut;
                      });
  }));
  return py::bytes(result);
}

int64_t Database::Increment(std::string_view key, int64_t delta,
                            const WriteOptions& options) {
  int64_t result = 0;
  ThrowIfError(Call(
      [&](DB* db) { return db->Increment(options, key, delta, &result); }));
  return result;
}

bool Database::Expire(std::string_view key, uint64_t expires_at_ms,
                      const WriteOptions& options) {
  Status s = Call(
      [&](DB* db) { return db->Expire(options, key, expires_at_ms); });
  if (s.IsNotFound()) return false;
  ThrowIfError(s);
  return true;
}

std::optional<uint64_t> Database::GetExpiry(std::string_view key) {
  uint64_t expires_at_ms = 0;
  Status s = Call([&](DB* db) {
    return db->GetExpiry(ReadOptions(), key, &expires_at_ms);
  });
  if (s.IsNotFound()) return std::nullopt;
  ThrowIfError(s);
  return expires_at_ms;
}

void Database::Checkpoint(unsigned threads) {
  ThrowIfError(Call([&](DB* db) { return db->Checkpoint(threads); }));
}

void Database::Sync() {
  ThrowIfError(Call([](DB* db) { return db->Sync(); }));
}

uint64_t Database::Rebalance() {
  uint64_t moves = 0;
  ThrowIfError(Call([&](DB* db) { return db->Rebalance(&moves); }));
  return moves;
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

void Database::Backup(const std::string& path) {
  ThrowIfError(Call([&](DB* db) { return db->Backup(path); }));
}

py::dict Database::Stats() {
  plush::Stats s;
  ThrowIfError(Call([&](DB* db) { return db->GetStats(&s); }));
  StatsDict fields;
  s.ForEachField(&fields);
  return fields.dict;
}

void Database::Close() {
  Status s;
  {
    py::gil_scoped_release release;
    std::unique_lock lock(mu_);
    {
      // An engine iterator must not outlive its DB.
      std::lock_guard<std::mutex> scans_lock(scans_mu_);
      for (Scan* scan : scans_) scan->it_.reset();
      scans_.clear();
    }
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
