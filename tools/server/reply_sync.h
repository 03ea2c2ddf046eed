// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ReplySync: with --sync-writes, the replies to an event loop's writes go
// out after one sync of the pool per pass of the loop, as Redis's
// `appendfsync always` fsyncs once per pass before it sends the replies.
// A connection whose replies wait for a sync asks for one (Await); the
// first to ask in a pass posts the sync behind the handlers already
// queued — the requests of the other connections that the loop read in
// the same pass —, so that one sync covers them all. The sync blocks the
// loop, as Redis's does; the engine shares it with the syncs of the other
// loops that overlap it (DB::Sync, group commit: media.h).
//
// The writes leave their own persistence barrier to this sync
// (WriteOptions::caller_syncs: PoolKeyspace).

#ifndef PLUSH_TOOLS_SERVER_REPLY_SYNC_H_
#define PLUSH_TOOLS_SERVER_REPLY_SYNC_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "keyspace_gate.h"
#include "plush/db.h"

namespace plush::server {

class ReplySync {
 public:
  class Waiter {
   public:
    // The outcome of a sync that began after Await() was called: OK, or
    // the sync's error (sticky: DB::Sync).
    virtual void Synced(const Status& status) = 0;

   protected:
    ~Waiter() = default;
  };

  // Runs a function on the loop's thread once the handlers queued before
  // it have run (asio::post).
  using Post = std::function<void(std::function<void()>)>;

  // `syncs` counts the syncs made (INFO); the loops share it.
  ReplySync(Post post, DB* db, KeyspaceGate* gate,
            std::atomic<uint64_t>* syncs)
      : post_(std::move(post)), db_(db), gate_(gate), syncs_(syncs) {}
  ReplySync(const ReplySync&) = delete;
  ReplySync& operator=(const ReplySync&) = delete;

  // Calls waiter->Synced() on the loop's thread, once the pass's sync
  // ended. REQUIRES: called on the loop's thread.
  void Await(std::shared_ptr<Waiter> waiter);

 private:
  void SyncWaiters();

  const Post post_;
  DB* const db_;
  KeyspaceGate* const gate_;
  std::atomic<uint64_t>* const syncs_;
  std::vector<std::shared_ptr<Waiter>> waiting_;  // on the loop's thread
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REPLY_SYNC_H_
