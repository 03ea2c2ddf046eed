// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The file back end's system calls (media/file_ops.h) with the failures
// of a full or failing device, which a healthy machine cannot be made to
// produce on demand: the next syncs or allocations fail with a chosen
// errno, and syncs can be held back (a slow device, made deterministic).
// Each instance injects into the pools opened through it only; tests open
// pools through it with InternalOptions::file_ops, or pass it to
// OpenFileMedia. Thread-safe.

#ifndef PLUSH_TESTING_FAULT_INJECTING_FILE_OPS_H_
#define PLUSH_TESTING_FAULT_INJECTING_FILE_OPS_H_

#include <cstdint>

#include "media/file_ops.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush::media {

class FaultInjectingFileOps final : public FileOps {
 public:
  // After `pass` more syncs (msync of a pool, fsync of a new pool file or
  // its directory) succeed, the next `count` fail with errno `err`, as a
  // writeback error would. `count` 0: no sync fails.
  void FailNextSyncs(int count, int err, int pass = 0) EXCLUDES(mu_);
  // After `pass` more calls that size or back a file (ftruncate,
  // posix_fallocate: creating, growing, backing) succeed, the next `count`
  // fail with errno `err` (a full file system: ENOSPC).
  void FailNextAllocations(int count, int err, int pass = 0) EXCLUDES(mu_);
  // hold true: syncs wait before they begin, until HoldSyncs(false).
  void HoldSyncs(bool hold) EXCLUDES(mu_);
  // Syncs waiting for HoldSyncs(false).
  int HeldSyncs() const EXCLUDES(mu_);
  // The calls made so far, failed ones included: a test that fails each
  // step of a workload in turn counts its steps.
  int syncs() const EXCLUDES(mu_);
  int allocations() const EXCLUDES(mu_);

  int Truncate(int fd, uint64_t size) override EXCLUDES(mu_);
  int Allocate(int fd, uint64_t offset, uint64_t len) override EXCLUDES(mu_);
  int SyncFile(int fd) override EXCLUDES(mu_);
  int SyncMapping(void* addr, uint64_t len) override EXCLUDES(mu_);

 private:
  // Failures to inject into one kind of call.
  struct Faults {
    int pass = 0;
    int count = 0;
    int err = 0;
    int calls = 0;  // made so far
    // Counts a call; the errno it is to fail with, or 0.
    int Next();
  };

  // Counts an allocation; its injected errno, or 0.
  int BeginAllocation() EXCLUDES(mu_);
  // Waits while syncs are held, and counts the sync; its injected errno,
  // or 0.
  int BeginSync() EXCLUDES(mu_);

  mutable Mutex mu_;
  CondVar syncs_released_;
  Faults allocation_faults_ GUARDED_BY(mu_);
  Faults sync_faults_ GUARDED_BY(mu_);
  bool syncs_held_ GUARDED_BY(mu_) = false;
  int syncs_waiting_ GUARDED_BY(mu_) = 0;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_FAULT_INJECTING_FILE_OPS_H_
