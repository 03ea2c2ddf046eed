// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ReplySync: with --sync-writes, the replies to an event loop's writes go
// out after one sync of the pool per pass of the loop, as Redis's
// `appendfsync always` fsyncs once per pass before it sends the replies.
// A connection whose replies wait for a sync asks for one (Await); the
// first to ask in a pass posts the sync behind the handlers already
// queued — the requests of the other connections that the loop read in
// the same pass —, so that one sync covers them all. When that pass
// brought more waiters, the sync is posted behind the loop's handlers
// once more (up to kMaxDeferrals times): in between, the loop polls its
// sockets without blocking, and the requests that arrived while the pass
// ran share the sync rather than wait for the next. (A sync of the pool
// file writes back a page of each recovery log and payload log that took
// a write, several times what Redis's fsync of its AOF writes: fewer
// syncs is what pays here.) The sync blocks the loop, as Redis's does;
// the engine shares it with the syncs of the other loops that overlap it
// (DB::Sync, group commit: media.h).
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

// The writes the loops' syncs have covered, for the replies that follow
// no write of their own connection: a read may have seen another
// connection's write, made but not yet synced, and a power failure would
// then take back what it answered. Such a reply waits for a sync too
// while any write begun before it is not known covered. Thread-safe.
class SyncedWrites {
 public:
  // Around a request that may write (Begin before it runs, End after).
  void Begin() { begun_.fetch_add(1, std::memory_order_seq_cst); }
  void End() { ended_.fetch_add(1, std::memory_order_seq_cst); }
  // Read before a sync begins: the writes it will cover.
  uint64_t Ended() const { return ended_.load(std::memory_order_seq_cst); }
  // After that sync succeeded.
  void Covered(uint64_t ended);
  // Whether a reply made now may show a write no sync has covered: some
  // write begun so far was not ended when the last successful sync began.
  // (If every write begun by now had ended when a sync began, none began
  // after it: the counts would differ.)
  bool Uncovered() const {
    return begun_.load(std::memory_order_seq_cst) >
           covered_.load(std::memory_order_seq_cst);
  }

 private:
  std::atomic<uint64_t> begun_{0};
  std::atomic<uint64_t> ended_{0};
  std::atomic<uint64_t> covered_{0};
};

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

  // `syncs` counts the syncs made (INFO), and each successful one tells
  // `writes` what it covered; the loops share both.
  ReplySync(Post post, DB* db, KeyspaceGate* gate, SyncedWrites* writes,
            std::atomic<uint64_t>* syncs)
      : post_(std::move(post)),
        db_(db),
        gate_(gate),
        writes_(writes),
        syncs_(syncs) {}
  ReplySync(const ReplySync&) = delete;
  ReplySync& operator=(const ReplySync&) = delete;

  // Calls waiter->Synced() on the loop's thread, once the pass's sync
  // ended. REQUIRES: called on the loop's thread.
  void Await(std::shared_ptr<Waiter> waiter);

  // How many times a sync is put off for waiters still coming: a bound on
  // what a reply waits for beyond its own pass and sync.
  static constexpr int kMaxDeferrals = 4;

 private:
  // Posts the check whether to sync now or once more behind the loop's
  // handlers: now if no waiter came since the last post.
  void PostSync(int deferrals);
  void SyncWaiters();

  const Post post_;
  DB* const db_;
  KeyspaceGate* const gate_;
  SyncedWrites* const writes_;
  std::atomic<uint64_t>* const syncs_;
  std::vector<std::shared_ptr<Waiter>> waiting_;  // on the loop's thread
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REPLY_SYNC_H_
