// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// KeyspaceGate: what makes a transaction (MULTI ... EXEC) and WATCH
// happen at one instant for every other client, as they do in Redis,
// whose one thread runs one command at a time. Every command that reads or
// writes keys, and every sync of the replies, passes the gate shared, so
// they run side by side on the event loops as before; EXEC and WATCH pass
// it alone, once every command already inside has left. So no client sees
// half of a transaction, and no write is half done (written but not yet
// reported to the watched keys) when WATCH or EXEC looks.
//
// A command waiting to pass alone closes the gate to new shared passes
// (with a reader-preferring lock, a steady stream of commands on two event
// loops would hold an EXEC back for ever). Commands that wait for the
// closed gate block their event loop: an EXEC costs every loop the time
// it takes, plus that of the longest command it waits for (a KEYS).

#ifndef PLUSH_TOOLS_SERVER_KEYSPACE_GATE_H_
#define PLUSH_TOOLS_SERVER_KEYSPACE_GATE_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "util/thread_annotations.h"

namespace plush::server {

class CAPABILITY("keyspace gate") KeyspaceGate {
 public:
  KeyspaceGate() = default;
  KeyspaceGate(const KeyspaceGate&) = delete;
  KeyspaceGate& operator=(const KeyspaceGate&) = delete;

  void LockShared() ACQUIRE_SHARED();
  void UnlockShared() RELEASE_SHARED();
  // Alone: waits for the shared holders to leave, new ones wait meanwhile.
  void Lock() ACQUIRE();
  void Unlock() RELEASE();

 private:
  // The state: the number of shared holders (those stepping back
  // included), and kClosed while a Lock() waits or holds the gate.
  static constexpr uint32_t kClosed = uint32_t{1} << 31;
  std::atomic<uint32_t> state_{0};
  std::mutex alone_;  // one Lock() at a time
};

class SCOPED_CAPABILITY SharedGateLock {
 public:
  explicit SharedGateLock(KeyspaceGate* gate) ACQUIRE_SHARED(gate)
      : gate_(*gate) {
    gate_.LockShared();
  }
  ~SharedGateLock() RELEASE() { gate_.UnlockShared(); }
  SharedGateLock(const SharedGateLock&) = delete;
  SharedGateLock& operator=(const SharedGateLock&) = delete;

 private:
  KeyspaceGate& gate_;
};

class SCOPED_CAPABILITY ExclusiveGateLock {
 public:
  explicit ExclusiveGateLock(KeyspaceGate* gate) ACQUIRE(gate) : gate_(*gate) {
    gate_.Lock();
  }
  ~ExclusiveGateLock() RELEASE() { gate_.Unlock(); }
  ExclusiveGateLock(const ExclusiveGateLock&) = delete;
  ExclusiveGateLock& operator=(const ExclusiveGateLock&) = delete;

 private:
  KeyspaceGate& gate_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_KEYSPACE_GATE_H_
