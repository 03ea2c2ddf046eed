// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Recovery (paper §5.4): after a crash, the records that lived only in the
// DRAM level are rebuilt from the recovery logs.

#ifndef PLUSH_DB_RECOVERY_H_
#define PLUSH_DB_RECOVERY_H_

#include <cstdint>

#include "log/recovery_log.h"
#include "payload/payload_logs.h"
#include "plush/status.h"
#include "table/leveled_table.h"

namespace plush {

// Replays the recovery logs into the (empty) DRAM level, one thread per log
// partition, `threads` at a time, and sets every DRAM entry's epoch above
// what its children and its replayed records carry. *replayed counts the
// valid log entries read. Writes nothing to the pool (the caller zeroes
// torn log slots once the whole open succeeded) unless a crash came while
// a write batch filled a DRAM entry more than once: the entry then
// migrates between the batch's epochs, as the batch would have. A crash
// during recovery, or a recovery that fails, leaves the pool's contents as
// they were (the migrated records are still in the logs).
Status RecoverDramLevel(table::LeveledTable* table, log::RecoveryLogs* logs,
                        const payload::PayloadLogs& payload, unsigned threads,
                        uint64_t* replayed);

}  // namespace plush

#endif  // PLUSH_DB_RECOVERY_H_
