// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// GroupCommit: the puts of many clients' commands (SET, MSET), made
// durable together by one DB::Write, that is with one persistence barrier
// instead of one per command.
//
// A leader/follower queue in the manner of LevelDB's writers_ queue, made
// asynchronous for an event loop: a submission that finds no commit
// running makes its thread the leader, which takes every submission
// queued, writes them as one WriteBatch, tells each waiter, and repeats
// while submissions arrived meanwhile; submissions that find a commit
// running just queue. No thread ever waits for more writes to come: a
// lone SET on an idle server is written at once, and groups grow only
// while a commit is under way (with more clients, or clients that
// pipeline: a connection submits the puts of all the SETs and MSETs it
// has buffered in a row as one submission).
//
// A submission holds one or more commands; each command's puts (an MSET)
// are atomic, as a group is one WriteBatch. If a group fails with
// InvalidArgument (an oversized key), each of its commands is written on
// its own, so that one command's error is never another's.
//
// With sync (--sync-writes), submissions only queue: a writer thread
// takes every queued submission as one group, writes it with
// WriteOptions::sync (one log append and one msync of the pool, which the
// engine shares with its other sync writers and puts in one log page) and
// tells the waiters. The event loops never wait for a sync: while the
// writer syncs one group, they go on queueing the next, so that a group
// holds the commands of many event-loop passes — with one event loop,
// where no two submissions overlap, it is what groups writes at all (as
// Redis's `appendfsync always` fsyncs once per event-loop pass).
//
// Each group is written through the keyspace gate, shared, and its keys
// are then touched for WATCH (keyspace_gate.h, watched_keys.h): an EXEC
// sees a group's writes whole or not at all.
//
// A group carries at most max_batch_bytes of keys and values (its first
// submission may carry more alone): WriteBatchLimit(), which bounds the
// memory one request may hold and the time one commit keeps the clients
// of its group waiting. (It was first chosen to avoid an engine hang —
// a batch filling several payload chunks waited for itself in payload
// compaction — since fixed: DBWriteTest.
// BatchLargerThanSeveralPayloadChunksCompletes.)

#ifndef PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_
#define PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "keyspace_gate.h"
#include "plush/db.h"
#include "watched_keys.h"

namespace plush::server {

// A put: the key's value, and when it expires (Unix ms; 0: never, which
// drops an expiry the key had, as Redis's SET does).
struct KeyValue {
  std::string_view key;
  std::string_view value;
  uint64_t expires_at_ms = 0;
};

// The most key and value bytes the server puts into one WriteBatch of
// `db`: one payload chunk (Stats::payload_chunk_size; 1 MiB by default,
// 128 KiB with the small profile). (Plush itself takes batches of up to
// kMaxBatchBytes.)
size_t WriteBatchLimit(DB* db);

class GroupCommit {
 public:
  // Told when a submission's commands are durable.
  class Waiter {
   public:
    // One status per command, in order. OK: its puts are durable (within
    // the back end's guarantee); an error: none of them was applied.
    virtual void Committed(std::vector<Status> statuses) = 0;

   protected:
    ~Waiter() = default;
  };

  struct Counters {
    uint64_t groups = 0;    // DB::Write calls
    uint64_t commands = 0;  // commands committed
    uint64_t syncs = 0;     // synced writes and DB::Sync calls (with sync)
  };

  // `sync`: a group is written with WriteOptions::sync before its waiters
  // are told, so that it survives power loss on the file back end (by the
  // writer thread, which the destructor stops once it has told every
  // waiter).
  GroupCommit(DB* db, size_t max_batch_bytes, KeyspaceGate* gate,
              WatchedKeys* watched_keys, bool sync = false);
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Commits `puts`, the puts of commands that end at the positions
  // `command_ends` (ascending, the last one puts.size()), in order (a
  // later put of a key wins), then calls waiter->Committed() exactly once:
  // on this thread before Submit returns if it leads the group, else on
  // the leader's thread (with sync: always on the writer's thread). The
  // spans and what they point to must stay valid until then. Thread-safe.
  void Submit(std::span<const KeyValue> puts,
              std::span<const size_t> command_ends, Waiter* waiter);

  // With sync: calls waiter->Committed() with the one status of a sync
  // that begins after this call, on the writer's thread — for a reply to a
  // write made outside the group commit (DB::Update: INCR, DEL...), which
  // then shares the sync of the next group. REQUIRES: sync.
  void AwaitSync(Waiter* waiter);

  Counters counters() const {
    return {groups_.load(std::memory_order_relaxed),
            commands_.load(std::memory_order_relaxed),
            syncs_.load(std::memory_order_relaxed)};
  }

 private:
  // A submission without commands is an AwaitSync().
  struct Submission {
    std::span<const KeyValue> puts;
    std::span<const size_t> command_ends;
    Waiter* waiter;
  };

  // Moves the next group off the queue. REQUIRES: mu_ held, queue_ not
  // empty.
  std::vector<Submission> TakeGroup();
  // Writes a group (with sync: synced) and tells its waiters.
  void Commit(const std::vector<Submission>& group);
  // The writer thread (with sync): commits the queued groups until
  // stopped with nothing left.
  void WriteLoop();
  // DB::Write (with sync: WriteOptions::sync), counted, through the gate;
  // the keys of `puts` (what the batch holds) are touched if it succeeds.
  Status Write(WriteBatch* batch,
               std::span<const std::span<const KeyValue>> puts);

  DB* const db_;
  KeyspaceGate* const gate_;
  WatchedKeys* const watched_keys_;
  const size_t max_batch_bytes_;
  const bool sync_;
  std::mutex mu_;
  std::deque<Submission> queue_;  // guarded by mu_
  bool leader_active_ = false;    // guarded by mu_
  std::atomic<uint64_t> groups_{0};
  std::atomic<uint64_t> commands_{0};
  std::atomic<uint64_t> syncs_{0};

  std::condition_variable queued_;  // with sync: the writer waits on it
  bool stopping_ = false;           // guarded by mu_
  std::thread writer_;              // with sync only
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_
