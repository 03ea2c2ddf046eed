// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reads a unit (a DRAM entry and its subtree on the PMem levels) for the
// iterator (ScanSource in unit_iterator.h): every stored version of its
// keys, as of one moment; in a range pool, of the keys of its range only
// (a re-balance leaves copies of the keys it moved out behind).

#ifndef PLUSH_DB_UNIT_READER_H_
#define PLUSH_DB_UNIT_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/unit_iterator.h"
#include "db/write_path.h"
#include "payload/payload_logs.h"
#include "table/leveled_table.h"

namespace plush {

class UnitReader final : public ScanSource {
 public:
  UnitReader(const table::LeveledTable* table,
             const payload::PayloadLogs* payload, WritePath* write_path)
      : table_(*table), payload_(*payload), write_path_(*write_path) {}

  uint64_t unit_count() const override { return table_.dram_entries(); }
  Status ReadUnit(uint64_t unit, ScanBatch* batch) override;
  Status ReadRange(std::string_view from, std::optional<std::string_view> stop,
                   size_t want, ScanBatch* batch,
                   std::optional<std::string>* upper) override;
  uint64_t PositionOf(std::string_view key) override;
  std::optional<std::string> RangeStart(uint64_t position) override;

 private:
  // The unit of `key` (a range pool's), and where the key's range ends
  // (absent: the last range) and begins (empty: the first), on one map,
  // without locks.
  uint64_t Place(std::string_view key, std::optional<std::string>* upper,
                 std::string* lower) const;
  // Adds the versions of unit `unit` with keys in [lower_bound, *upper)
  // to *batch; `range_lower`: where the unit's range begins, if known.
  // `want` > 0: may end the batch before *upper, once it holds about
  // `want` records, and then sets *upper to where it ends. REQUIRES: the
  // unit's lock.
  Status CollectLocked(uint64_t unit, std::string_view lower_bound,
                       std::optional<std::string_view> range_lower,
                       size_t want, std::optional<std::string>* upper,
                       ScanBatch* batch);
  // Drops from *slots (of unit `unit`, whose range begins at
  // `range_lower`) the indirect slots whose fingerprints put their keys
  // outside [from, *upper), whose payload entries then need no reading;
  // and ends the batch early (as CollectLocked) if `want` allows.
  void SelectByFingerprint(uint64_t unit, std::string_view range_lower,
                           std::string_view from, size_t want,
                           std::optional<std::string>* upper,
                           std::vector<table::Slot>* slots) const;

  const table::LeveledTable& table_;
  const payload::PayloadLogs& payload_;
  WritePath& write_path_;
};

}  // namespace plush

#endif  // PLUSH_DB_UNIT_READER_H_
