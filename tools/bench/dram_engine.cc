// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The upper bound: libcuckoo's cuckoohash_map in DRAM, with no persistence
// at all. Records live in the table's slots themselves (4 per bucket; an
// operation locks and reads the key's two candidate buckets only), so the
// default 8-byte records, stored as integers, cost no allocation and no
// pointer chasing. Other sizes are kept as std::string.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <libcuckoo/cuckoohash_map.hh>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "engine.h"
#include "huge_page_allocator.h"
#include "rng.h"

namespace plush::bench {
namespace {

// 8-byte keys and values as integers: 16-byte slots, no indirection.
struct WordRecords {
  using Key = uint64_t;
  using Value = uint64_t;
  // The table takes bucket indexes from the hash's low bits and a tag from
  // all of them; Mix64 spreads every key bit over both.
  struct Hash {
    size_t operator()(uint64_t key) const { return Mix64(key); }
  };

  static bool Fits(std::string_view bytes) { return bytes.size() == 8; }
  static uint64_t Convert(std::string_view bytes) {
    uint64_t word;
    std::memcpy(&word, bytes.data(), sizeof(word));
    return word;
  }
  static void Copy(uint64_t value, std::string* out) {
    out->assign(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  // The bytes Convert() read, in place.
  static std::string_view View(const uint64_t& word) {
    return {reinterpret_cast<const char*>(&word), sizeof(word)};
  }
};

// Any other sizes. The hash and equality take string_view, so lookups use
// the caller's bytes without building a std::string.
struct StringRecords {
  using Key = std::string;
  using Value = std::string;
  struct Hash {
    size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>()(key);
    }
  };

  static bool Fits(std::string_view) { return true; }
  static std::string_view Convert(std::string_view bytes) { return bytes; }
  static void Copy(const std::string& value, std::string* out) {
    out->assign(value);
  }
  static std::string_view View(const std::string& bytes) { return bytes; }
};

template <typename Records>
class DramEngine final : public Engine {
 public:
  explicit DramEngine(uint64_t expected_records)
      : map_(Capacity(expected_records)) {}

  Status Put(std::string_view key, std::string_view value) override {
    if (!Records::Fits(key) || !Records::Fits(value)) return WrongSize();
    map_.insert_or_assign(Records::Convert(key), Records::Convert(value));
    return Status::OK();
  }

  Status Get(std::string_view key, std::string* value) override {
    if (!Records::Fits(key)) return WrongSize();
    const bool found =
        map_.find_fn(Records::Convert(key),
                     [value](const Value& v) { Records::Copy(v, value); });
    return found ? Status::OK() : Status::NotFound({});
  }

  void MultiGet(const std::vector<std::string_view>& keys,
                std::vector<std::string>* values,
                std::vector<Status>* statuses) override {
    values->resize(keys.size());
    statuses->resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
      (*statuses)[i] = Get(keys[i], &(*values)[i]);
  }

  Status Delete(std::string_view key) override {
    if (!Records::Fits(key)) return WrongSize();
    map_.erase(Records::Convert(key));
    return Status::OK();
  }

  Status Write(const std::vector<BatchOp>& ops) override {
    for (const BatchOp& op : ops) {
      const Status s = op.is_delete ? Delete(op.key) : Put(op.key, op.value);
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

  Status Scan(std::string_view, size_t, size_t* scanned) override {
    *scanned = 0;
    return Status::NotSupported("the dram engine is a hash map: no scans");
  }

  Status ForEach(const RecordVisitor& visit) override {
    auto table = map_.lock_table();  // every bucket lock, until it goes
    for (const auto& [key, value] : table) {
      if (!visit(Records::View(key), Records::View(value))) break;
    }
    return Status::OK();
  }

  Status Checkpoint(unsigned) override {
    return Status::NotSupported("the dram engine is not persistent");
  }

  Status Backup(const std::string&) override {
    return Status::NotSupported("the dram engine is not persistent");
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
  // Sizing the table up front keeps its doublings, which move every
  // record, out of the measurement. A 4-way cuckoo table fails inserts (and
  // grows) at about 95 % occupancy; aim below that. Never below the
  // library's default size, whose 2^16 buckets have a lock each: the lock
  // array is then full-size from the start, and a growing table (runs
  // given --seconds) never swaps it under concurrent readers, which
  // ThreadSanitizer reports as a race in libcuckoo 0.3.1.
  static size_t Capacity(uint64_t expected_records) {
    constexpr double kMaxLoadFactor = 0.9;
    const auto slots = static_cast<size_t>(
        static_cast<double>(expected_records) / kMaxLoadFactor);
    return std::max(libcuckoo::DEFAULT_SIZE, slots);
  }

  // Only WordRecords can refuse, when the driver's sizes and the engine's
  // configuration disagree.
  static Status WrongSize() {
    return Status::InvalidArgument(
        "the dram engine was set up for 8-byte keys and values");
  }

  using Key = typename Records::Key;
  using Value = typename Records::Value;
  libcuckoo::cuckoohash_map<Key, Value, typename Records::Hash, std::equal_to<>,
                            HugePageAllocator<std::pair<const Key, Value>>>
      map_;
};

}  // namespace

Status OpenDramEngine(const EngineConfig& config,
                      std::unique_ptr<Engine>* engine) {
  if (config.word_records) {
    *engine =
        std::make_unique<DramEngine<WordRecords>>(config.expected_records);
  } else {
    *engine =
        std::make_unique<DramEngine<StringRecords>>(config.expected_records);
  }
  return Status::OK();
}

}  // namespace plush::bench
