// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// FLUSHDB and FLUSHALL [ASYNC|SYNC]: every key deleted (the one database
// is the whole server), at once whatever their number, by replacing the
// pool with an empty one (flushable_pool.h) with the keyspace gate held
// alone: no client sees part of it, and a crash leaves the old keyspace
// or the empty one. ASYNC and SYNC do the same: the empty pool is durable
// (it survives power loss) before the reply, as Redis's SYNC promises,
// and comes as fast as Redis's ASYNC empties the keyspace.
//
// What else holds the pool's state: clients that WATCH a key that existed
// have their EXEC fail, as in Redis 7 (watchers of missing keys do not);
// SCAN cursors stay valid, as the new pool has the same partitions (a
// hash pool's cursors index them) and a range pool's cursors name the key
// to resume at: an iteration under way goes on over the empty keyspace.
// Between MULTI and EXEC, the transaction's writes after it go into the
// new pool before it replaces the old one (TransactionKeyspace::Flush).

#include <string>
#include <vector>

#include "command_handlers.h"

namespace plush::server {

void RunFlush(CommandCall& call) {
  if (call.args.size() > 2 ||
      (call.args.size() == 2 && !IsKeyword(call.args[1], "async") &&
       !IsKeyword(call.args[1], "sync"))) {
    call.reply.Error(kSyntaxError);
    return;
  }
  Keyspace& keys = Keys(call);
  std::vector<std::string> deleted;  // watched keys that exist
  for (std::string& key : call.server.watched_keys.Keys()) {
    uint64_t expires_at_ms = 0;
    if (keys.GetExpiry(key, &expires_at_ms).ok())
      deleted.push_back(std::move(key));
  }
  const Status s = keys.Flush();
  // Also when it failed, which may be after the pool was replaced: an EXEC
  // failing for nothing is safe, one that succeeds after a flush is not.
  for (const std::string& key : deleted) keys.KeyWritten(key);
  if (s.ok()) {
    call.reply.Ok();
  } else {
    ReplyError(call.reply, s);
  }
}

}  // namespace plush::server
