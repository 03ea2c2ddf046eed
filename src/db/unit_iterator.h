// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The iterator of a pool (plush/iterator.h).
//
// A DRAM entry together with its subtree on the PMem levels (a "unit", the
// iterator's "partition") holds every version of its keys, unsorted. The
// iterator works unit by unit: it has the DB read a unit atomically
// (ScanSource), sorts its records by key, keeps the newest version of each
// key and drops tombstones, then walks the result; when it runs out, it
// reads the next unit.
//
// Range partitioning (placement/key_hasher.h) gives each unit a key range, and
// the ranges (the "positions" of placement/range_map.h) follow one another in
// key order: the iteration goes from range to range, each read as the
// range that holds the key where the last one ended, so it is in key order
// even while a re-balance moves ranges between units, and Seek reads only
// the ranges that can hold the keys it asks for (the paper's "divide and
// conquer", §6.6; a range may come in several batches, ScanSource::
// ReadRange). Hash partitioning spreads keys
// over units by hash: the iteration returns every key once, in key order
// within a unit only, and Seek is NotSupported.

#ifndef PLUSH_DB_RANGE_ITERATOR_H_
#define PLUSH_DB_RANGE_ITERATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plush/iterator.h"

namespace plush {

// The records of one unit: every stored version, newest version of a key
// before its older ones; keys and values live in one byte arena.
class ScanBatch {
 public:
  void Clear();
  // `expires_at_ms`: the record's expiry (0 = none).
  void Add(std::string_view key, std::string_view value, bool tombstone,
           uint64_t expires_at_ms = 0);

 private:
  friend class UnitIterator;
  struct Record {
    size_t key_offset;
    size_t key_size;
    size_t value_size;  // the value follows the key in the arena
    bool tombstone;
    uint64_t expires_at_ms;
  };
  std::string_view KeyOf(const Record& r) const {
    return std::string_view(bytes_).substr(r.key_offset, r.key_size);
  }
  std::string_view ValueOf(const Record& r) const {
    return std::string_view(bytes_).substr(r.key_offset + r.key_size,
                                           r.value_size);
  }

  std::string bytes_;
  std::vector<Record> records_;
};

// What the iterator needs from the DB.
class ScanSource {
 public:
  virtual ~ScanSource() = default;
  // Unordered sources: units 0 .. unit_count() - 1. Adds to *batch every
  // version (tombstones included) of the keys of `unit`, as of one moment.
  virtual uint64_t unit_count() const = 0;
  virtual Status ReadUnit(uint64_t unit, ScanBatch* batch) = 0;
  // Ordered sources: adds to *batch every version of the keys >= `from` of
  // the range that holds `from`, as of one moment, and sets *upper to
  // where that range ends (exclusive; absent for the last range). Once
  // the batch holds about `want` records (0: no limit), it may end before
  // the range does: *upper then says where, and the next batch is read
  // from there. Keys >= `stop` are not wanted: a range that goes on past
  // it ends there (*upper = stop), and its keys above it are not read.
  virtual Status ReadRange(std::string_view from,
                           std::optional<std::string_view> stop, size_t want,
                           ScanBatch* batch,
                           std::optional<std::string>* upper) = 0;
  // Ordered sources: the rank among the ranges of the one that holds
  // `key`, now.
  virtual uint64_t PositionOf(std::string_view key) = 0;
  // Ordered sources: the smallest key of range `position`; nullopt past
  // the last range.
  virtual std::optional<std::string> RangeStart(uint64_t position) = 0;
};

class UnitIterator final : public Iterator {
 public:
  // `ordered`: the units partition the key space in order (range pools).
  // `upper_bound`: keys >= it end the iteration (ordered sources only).
  UnitIterator(ScanSource* source, bool ordered,
               std::optional<std::string> upper_bound = std::nullopt)
      : source_(source),
        ordered_(ordered),
        upper_bound_(std::move(upper_bound)) {}

  bool Valid() const override { return position_ < live_.size(); }
  void Seek(std::string_view target) override;
  void SeekToFirst() override { SeekToPartition(0); }
  void Next() override;
  // Ordered: the position of the range being read, found when first asked
  // (a re-balance may have moved the ranges since the read; a scan that
  // never asks pays nothing).
  uint64_t partition() const override;
  void SeekToPartition(uint64_t partition) override;
  std::string_view key() const override;
  std::string_view value() const override;
  uint64_t expires_at_ms() const override {
    return current().expires_at_ms;
  }
  Status status() const override { return status_; }

 private:
  // Unordered: positions at the first live key of units unit, unit + 1,
  // ... (invalid if there is none, or on error).
  void LoadUnit(uint64_t unit);
  // Ordered: positions at the first live key >= from, reading range after
  // range (invalid if there is none, or on error).
  void LoadRange(std::string_view from);
  // Sorts the batch just read, whose keys all share their first `shared`
  // bytes, and lists in live_ the newest version of each of its keys
  // unless it is a tombstone; true if there is one.
  bool SortBatch(size_t shared);
  // Sorts order_ by prefix, keeping the order of equal prefixes (a stable
  // radix sort: no comparison branches to mispredict). Leaves in each
  // prefix only the bits in which the prefixes differed: equal where the
  // prefixes were.
  void SortByPrefix();
  // Sorts each run of equal prefixes by the whole keys, keeping the order
  // of each key's versions.
  void SortEqualPrefixes();
  // Ends the iteration if the current key reached the upper bound.
  void StopAtUpperBound();
  const ScanBatch::Record& current() const {
    return batch_.records_[live_[position_]];
  }

  ScanSource* const source_;
  const bool ordered_;
  const std::optional<std::string> upper_bound_;
  Status status_;
  ScanBatch batch_;
  // The sort key of a record: 8 bytes of its key, big-endian, from the
  // first byte from which the batch's keys may differ (keys of a unit often
  // share their first bytes: "user:000…"), so that the prefix decides
  // most comparisons without touching the arena.
  struct SortKey {
    uint64_t prefix;
    uint32_t record;
  };
  // The length of the prefix every key of the batch shares.
  size_t CommonPrefixLength() const;
  // A length of prefix that every key of a batch read from `start` shares
  // without looking at them: the keys from `start` up to the range's upper
  // bound share the prefix of the two (for the last range, whose keys
  // have no upper bound, they are looked at).
  size_t SharedInRange(std::string_view start) const;
  std::vector<SortKey> order_;  // batch records by key, newest first
  std::vector<SortKey> scratch_;  // SortByPrefix's other buffer
  std::vector<uint32_t> live_;  // the records the iterator yields
  size_t position_ = 0;         // in live_; == live_.size(): not valid
  uint64_t unit_ = 0;           // unordered: the unit batch_ holds
  // Ordered: the key the range batch_ holds was read from, where that
  // range ends (absent: the last), and its position once asked.
  std::string range_from_;
  std::optional<std::string> range_upper_;
  // About how many records the next batch is to hold (ScanSource::
  // ReadRange; 0: whole ranges). A Seek starts with a few, which most
  // short scans need, and every batch after it asks for twice as many as
  // the one before, so that a long scan reads each unit a few times at
  // most; SeekToPartition (a whole partition, as a rule) reads whole
  // ranges.
  static constexpr size_t kFirstBatch = 128;
  static constexpr size_t kLargestBatch = 8192;
  size_t want_ = 0;
  mutable std::optional<uint64_t> range_position_;
};

}  // namespace plush

#endif  // PLUSH_DB_RANGE_ITERATOR_H_
