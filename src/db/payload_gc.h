// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What payload compaction needs from the hash table (payload::PayloadHost):
// whether an entry is still some key's current version, and, under the
// key's lock, the republication of a copy as that key's newest version —
// or, for an expired record in the DRAM level, a rewrite of its DRAM entry
// without the records that expired (EntryRewriter), after which no copy
// is needed: one rewrite there spares a copy of every expired record of
// the entry that the chunk holds; and for an expired record of a unit
// whose every record has expired, the unit emptied whole
// (LeveledTable::ClearExpiredUnit), which spares a copy of every record of
// the unit.

#ifndef PLUSH_DB_PAYLOAD_GC_H_
#define PLUSH_DB_PAYLOAD_GC_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "db/entry_rewriter.h"
#include "db/write_path.h"
#include "payload/payload_logs.h"
#include "table/leveled_table.h"

namespace plush {

class PayloadGc final : public payload::PayloadHost {
 public:
  // `clock`: the DB's (Options::clock), which judges expiry.
  PayloadGc(table::LeveledTable* table, WritePath* write_path,
            EntryRewriter* rewriter, const Clock* clock)
      : table_(*table),
        write_path_(*write_path),
        rewriter_(*rewriter),
        clock_(*clock) {}

  void ClassifyReachability(std::span<const Candidate> entries,
                            Reachability* out) override;
  Status Relocate(const Candidate& entry, const CopyFn& copy,
                  Relocation* result) override;

 private:
  // True iff `ref` is the version of the key a crash would leave while
  // newer, unlogged versions shadow it (compaction must keep it).
  bool IsNewestDurable(const table::LookupKey& lookup, uint64_t ref) const;

  table::LeveledTable& table_;
  WritePath& write_path_;
  EntryRewriter& rewriter_;
  const Clock& clock_;
};

}  // namespace plush

#endif  // PLUSH_DB_PAYLOAD_GC_H_
