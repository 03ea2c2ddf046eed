// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What payload compaction needs from the hash table (payload::PayloadHost):
// whether an entry is still some key's current version, and, under the
// key's lock, the republication of a copy as that key's newest version.

#ifndef PLUSH_DB_PAYLOAD_GC_H_
#define PLUSH_DB_PAYLOAD_GC_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "db/write_path.h"
#include "payload/payload_logs.h"
#include "table/leveled_table.h"

namespace plush {

class PayloadGc final : public payload::PayloadHost {
 public:
  PayloadGc(table::LeveledTable* table, WritePath* write_path)
      : table_(*table), write_path_(*write_path) {}

  void ClassifyReachability(std::span<const Candidate> entries,
                            Reachability* out) override;
  Status Relocate(std::string_view key, uint64_t key_hash, uint64_t ref,
                  const CopyFn& copy, Relocation* result) override;

 private:
  // True iff `ref` is the version of the key a crash would leave while
  // newer, unlogged versions shadow it (compaction must keep it).
  bool IsNewestDurable(const table::LookupKey& lookup, uint64_t ref) const;

  table::LeveledTable& table_;
  WritePath& write_path_;
};

}  // namespace plush

#endif  // PLUSH_DB_PAYLOAD_GC_H_
