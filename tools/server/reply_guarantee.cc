// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "reply_guarantee.h"

namespace plush::server {

ReplyGuarantee GuaranteeOfReplies(const Stats& stats, bool sync_writes) {
  // The engine's statement speaks of DB::Sync(), which a client of this
  // server cannot call: what syncs here is SAVE, SHUTDOWN or --sync-writes.
  if (stats.backend == "file") {
    if (sync_writes) {
      return {true,
              "answered writes survive power failure: each is synced (msync) "
              "before its reply (--sync-writes)"};
    }
    return {false,
            "answered writes survive a crash of the server process; power "
            "failure only once SAVE or SHUTDOWN synced them (--sync-writes "
            "syncs each before its reply)"};
  }
  // pmem (or a test override of it): a sync adds nothing to what the
  // engine states.
  return {stats.power_fail_durable, stats.guarantee};
}

}  // namespace plush::server
