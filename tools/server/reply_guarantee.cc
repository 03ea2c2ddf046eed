// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "reply_guarantee.h"

namespace plush::server {

ReplyGuarantee GuaranteeOfReplies(const Stats& stats, bool sync_writes) {
  // The engine's statement speaks of DB::Sync(), which a client of this
  // server cannot call: what syncs here is SAVE, SHUTDOWN or --sync-writes.
  // A sync is no promise for later unless the pool is power-fail safe
  // (Options::power_fail_safe, which --sync-writes asks for, and which a
  // pool keeps once asked): the pool is also changed in place by
  // background work, whose pages otherwise reach the disk in no set order.
  if (stats.backend == "file") {
    if (stats.power_fail_durable) {
      return {true, sync_writes
                        ? "answered writes are synced (msync) before their "
                          "reply (--sync-writes); the pool orders its "
                          "background work with msyncs: a power failure "
                          "keeps them"
                        : "answered writes survive power failure: the pool "
                          "is power-fail safe (every persistence barrier is "
                          "an msync)"};
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
