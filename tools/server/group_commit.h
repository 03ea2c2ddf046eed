// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// GroupCommit: the puts of many clients' requests (SET, MSET), made
// durable together by one DB::Write, that is with one persistence barrier
// instead of one per request.
//
// A leader/follower queue in the manner of LevelDB's writers_ queue, made
// asynchronous for an event loop: a request that finds no commit running
// makes its thread the leader, which takes every request queued, writes
// them as one WriteBatch, tells each waiter, and repeats while requests
// arrived meanwhile; requests that find a commit running just queue. No
// thread ever waits for more requests to come: a lone request on an idle
// server is written at once, and groups grow only while a commit is under
// way (with more clients, or clients that pipeline).
//
// A group is one WriteBatch, so a request's puts (an MSET) are atomic.
// If a group fails with InvalidArgument (merging made it larger than the
// pool takes at once), each of its requests is written on its own, so
// that one request's error is never another's.

#ifndef PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_
#define PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "plush/db.h"

namespace plush::server {

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

class GroupCommit {
 public:
  // Told when a request's puts are durable.
  class Waiter {
   public:
    // OK: every put is durable (within the back end's guarantee); an
    // error: none was applied.
    virtual void Committed(const Status& status) = 0;

   protected:
    ~Waiter() = default;
  };

  struct Counters {
    uint64_t groups = 0;    // DB::Write calls
    uint64_t requests = 0;  // requests committed
  };

  explicit GroupCommit(DB* db) : db_(db) {}
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Commits `puts` (in order; a later put of a key wins) and then calls
  // waiter->Committed() exactly once: on this thread before Submit returns
  // if it leads the group, else on the leader's thread. `puts` and what
  // they point to must stay valid until then. Thread-safe.
  void Submit(std::span<const KeyValue> puts, Waiter* waiter);

  Counters counters() const {
    return {groups_.load(std::memory_order_relaxed),
            requests_.load(std::memory_order_relaxed)};
  }

 private:
  struct Request {
    std::span<const KeyValue> puts;
    Waiter* waiter;
  };

  // Moves the next group off the queue. REQUIRES: mu_ held, queue_ not
  // empty.
  std::vector<Request> TakeGroup();
  // Writes a group and tells its waiters.
  void Commit(const std::vector<Request>& group);
  Status Write(std::span<const Request> requests);

  DB* const db_;
  std::mutex mu_;
  std::deque<Request> queue_;   // guarded by mu_
  bool leader_active_ = false;  // guarded by mu_
  std::atomic<uint64_t> groups_{0};
  std::atomic<uint64_t> requests_{0};
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_GROUP_COMMIT_H_
