// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// libplush_pibench.so: Plush behind PiBench's tree_api (tree_api.h).
//
// PiBench's insert/update/remove promise to report whether the key existed;
// Plush's writes are upserts and its deletes succeed on missing keys, so
// they return true whenever Plush accepted the write, without the extra
// lookup that telling the cases apart would cost. Scans need a
// range-partitioned pool (PLUSH_PIBENCH_PARTITIONING=range); on a
// hash-partitioned one (the default) they return 0. Each thread keeps one
// iterator for its scans rather than create one per scan.
// docs/benchmarking-tool.md has the details.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "plush/db.h"
#include "pool_location.h"
#include "testing/open_db.h"
#include "tree_api.h"

namespace {

class PlushTree final : public tree_api {
 public:
  PlushTree(std::unique_ptr<plush::bench::PoolLocation> location,
            std::unique_ptr<plush::DB> db, size_t value_size)
      : location_(std::move(location)),
        db_(std::move(db)),
        value_size_(value_size) {}

  ~PlushTree() override {
    iterators_.clear();  // before the DB they read
    // Errors cannot be reported from here; Close() syncs what it can.
    (void)db_->Close();
  }

  bool bulk_load(const char* data, size_t num_records, size_t key_sz,
                 size_t value_sz) override {
    // Unlogged writes and one checkpoint: Plush's bulk-load path.
    plush::WriteOptions unlogged;
    unlogged.log = false;
    for (size_t i = 0; i < num_records; ++i) {
      const char* record = data + i * (key_sz + value_sz);
      if (!db_->Put(unlogged, {record, key_sz}, {record + key_sz, value_sz})
               .ok()) {
        return false;
      }
    }
    return db_->Checkpoint(0).ok();
  }

  bool find(const char* key, size_t key_sz, char* value_out) override {
    thread_local std::string value;
    if (!db_->Get(plush::ReadOptions(), {key, key_sz}, &value).ok()) {
      return false;
    }
    std::memcpy(value_out, value.data(), std::min(value.size(), value_size_));
    return true;
  }

  bool insert(const char* key, size_t key_sz, const char* value,
              size_t value_sz) override {
    return db_->Put(plush::WriteOptions(), {key, key_sz}, {value, value_sz})
        .ok();
  }

  bool update(const char* key, size_t key_sz, const char* value,
              size_t value_sz) override {
    return insert(key, key_sz, value, value_sz);
  }

  bool remove(const char* key, size_t key_sz) override {
    return db_->Delete(plush::WriteOptions(), {key, key_sz}).ok();
  }

  int scan(const char* key, size_t key_sz, int scan_sz,
           char*& values_out) override {
    // PiBench reads the results after scan() returns, so they live in a
    // per-thread buffer until the thread's next scan.
    thread_local std::string results;
    results.clear();
    plush::Iterator* it = IteratorOfThisThread();
    int scanned = 0;
    for (it->Seek({key, key_sz}); scanned < scan_sz && it->Valid();
         it->Next(), ++scanned) {
      results.append(it->key());
      results.append(it->value());
    }
    values_out = results.data();
    return scanned;
  }

 private:
  // Kept by the tree, not in thread_local storage: PiBench's threads may
  // outlive the tree, and an iterator must not outlive its DB.
  plush::Iterator* IteratorOfThisThread() {
    std::lock_guard<std::mutex> lock(iterators_mu_);
    std::unique_ptr<plush::Iterator>& it =
        iterators_[std::this_thread::get_id()];
    if (it == nullptr) it = db_->NewIterator(plush::ReadOptions());
    return it.get();
  }

  // Declared first, destroyed last: the pool is removed after it is closed.
  std::unique_ptr<plush::bench::PoolLocation> location_;
  std::unique_ptr<plush::DB> db_;
  size_t value_size_;
  std::mutex iterators_mu_;
  std::unordered_map<std::thread::id, std::unique_ptr<plush::Iterator>>
      iterators_;
};

// PLUSH_PIBENCH_EMULATE_PMEM=0 turns off the emulated PMem costs that are on
// by default, as in plush-bench (PiBench has no way to pass options).
bool EmulatePmemCosts() {
  const char* value = std::getenv("PLUSH_PIBENCH_EMULATE_PMEM");
  return value == nullptr || std::string_view(value) != "0";
}

// PLUSH_PIBENCH_PARTITIONING=range creates a range-partitioned pool, whose
// scans are ordered (the range-index panel's); unset or "hash": the
// default. (An existing pool keeps the partitioning it was created with.)
plush::Status PartitioningFromEnvironment(plush::Partitioning* out) {
  const char* value = std::getenv("PLUSH_PIBENCH_PARTITIONING");
  const std::string_view name = value == nullptr ? "hash" : value;
  if (name == "hash") {
    *out = plush::Partitioning::kHash;
  } else if (name == "range") {
    *out = plush::Partitioning::kRange;
  } else {
    std::string message = "PLUSH_PIBENCH_PARTITIONING is '";
    message += name;
    message += "'; it must be 'hash' or 'range'";
    return plush::Status::InvalidArgument(message);
  }
  return plush::Status::OK();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) tree_api* create_tree(
    const tree_options_t& opt) {
  // An empty --pool_path (PiBench's default) gets a temporary pool that is
  // removed with the tree.
  std::unique_ptr<plush::bench::PoolLocation> location;
  plush::Status status =
      plush::bench::PoolLocation::Create(opt.pool_path, "pool",
                                         /*keep=*/false, &location);
  plush::Options options;
  if (opt.pool_size > 0) options.initial_pool_size = opt.pool_size;
  if (status.ok()) status = PartitioningFromEnvironment(&options.partitioning);
  plush::InternalOptions internal;
  internal.emulate_pmem_costs = EmulatePmemCosts();
  std::unique_ptr<plush::DB> db;
  if (status.ok())
    status = plush::OpenDB(options, internal, location->path(), &db);
  if (!status.ok()) {
    std::fprintf(stderr, "libplush_pibench: %s\n", status.ToString().c_str());
    return nullptr;
  }
  return new PlushTree(std::move(location), std::move(db), opt.value_size);
}
