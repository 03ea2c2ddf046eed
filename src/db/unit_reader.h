// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reads a unit (a DRAM entry and its subtree on the PMem levels) for the
// range iterator (ScanSource in unit_iterator.h): every stored version of
// its keys, as of one moment.

#ifndef PLUSH_DB_UNIT_READER_H_
#define PLUSH_DB_UNIT_READER_H_

#include <cstdint>
#include <string_view>

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
  uint64_t UnitOf(std::string_view key) const override {
    return table_.DramIndex(table_.hasher().Hash(key));
  }
  Status ReadUnit(uint64_t unit, std::string_view lower_bound,
                  ScanBatch* batch) override;

 private:
  const table::LeveledTable& table_;
  const payload::PayloadLogs& payload_;
  WritePath& write_path_;
};

}  // namespace plush

#endif  // PLUSH_DB_UNIT_READER_H_
