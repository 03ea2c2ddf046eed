// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The upper bound: oneTBB's concurrent_hash_map in DRAM, with no
// persistence at all. Keys and values up to 15 bytes live inside the map's
// nodes (std::string's small-string buffer), so 8-byte records cost one node
// allocation each.

#include <oneapi/tbb/concurrent_hash_map.h>

#include <string>

#include "engines.h"

namespace plush::bench {
namespace {

class DramEngine final : public Engine {
 public:
  explicit DramEngine(uint64_t expected_records) {
    // Sizing the bucket array up front avoids measuring its growth.
    map_.rehash(expected_records);
  }

  Status Put(std::string_view key, std::string_view value) override {
    Map::accessor entry;
    map_.insert(entry, KeyString(key));
    entry->second.assign(value);
    return Status::OK();
  }

  Status Get(std::string_view key, std::string* value) override {
    Map::const_accessor entry;
    if (!map_.find(entry, KeyString(key))) return Status::NotFound({});
    value->assign(entry->second);
    return Status::OK();
  }

  Status Delete(std::string_view key) override {
    map_.erase(KeyString(key));
    return Status::OK();
  }

  Status Scan(std::string_view, size_t, size_t* scanned) override {
    *scanned = 0;
    return Status::NotSupported("the dram engine is a hash map: no scans");
  }

  Status GetStats(EngineStats* stats) override {
    // No own DRAM account: the driver reports the process's RSS growth.
    stats->backend = "dram";
    return Status::OK();
  }

  Status Close() override {
    map_.clear();
    return Status::OK();
  }

 private:
  using Map = oneapi::tbb::concurrent_hash_map<std::string, std::string>;

  // The map looks up std::string keys only (heterogeneous lookup is a TBB
  // preview feature); a per-thread buffer avoids an allocation per call.
  static const std::string& KeyString(std::string_view key) {
    thread_local std::string buffer;
    buffer.assign(key);
    return buffer;
  }

  Map map_;
};

}  // namespace

Status OpenDramEngine(const EngineConfig& config,
                      std::unique_ptr<Engine>* engine) {
  *engine = std::make_unique<DramEngine>(config.expected_records);
  return Status::OK();
}

}  // namespace plush::bench
