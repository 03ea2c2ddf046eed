// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/fault_injecting_file_ops.h"

namespace plush::media {

int FaultInjectingFileOps::Faults::Next() {
  ++calls;
  if (pass > 0) {
    --pass;
    return 0;
  }
  if (count == 0) return 0;
  --count;
  return err;
}

void FaultInjectingFileOps::FailNextSyncs(int count, int err, int pass) {
  MutexLock lock(&mu_);
  sync_faults_ = {pass, count, err, sync_faults_.calls};
}

void FaultInjectingFileOps::FailNextAllocations(int count, int err,
                                                int pass) {
  MutexLock lock(&mu_);
  allocation_faults_ = {pass, count, err, allocation_faults_.calls};
}

void FaultInjectingFileOps::HoldSyncs(bool hold) {
  MutexLock lock(&mu_);
  syncs_held_ = hold;
  if (!hold) syncs_released_.NotifyAll();
}

int FaultInjectingFileOps::HeldSyncs() const {
  MutexLock lock(&mu_);
  return syncs_waiting_;
}

int FaultInjectingFileOps::syncs() const {
  MutexLock lock(&mu_);
  return sync_faults_.calls;
}

int FaultInjectingFileOps::allocations() const {
  MutexLock lock(&mu_);
  return allocation_faults_.calls;
}

int FaultInjectingFileOps::BeginAllocation() {
  MutexLock lock(&mu_);
  return allocation_faults_.Next();
}

int FaultInjectingFileOps::BeginSync() {
  MutexLock lock(&mu_);
  ++syncs_waiting_;
  syncs_released_.Wait(&mu_, [this]() REQUIRES(mu_) { return !syncs_held_; });
  --syncs_waiting_;
  return sync_faults_.Next();
}

int FaultInjectingFileOps::Truncate(int fd, uint64_t size) {
  const int err = BeginAllocation();
  return err != 0 ? err : SystemFileOps()->Truncate(fd, size);
}

int FaultInjectingFileOps::Allocate(int fd, uint64_t offset, uint64_t len) {
  const int err = BeginAllocation();
  return err != 0 ? err : SystemFileOps()->Allocate(fd, offset, len);
}

int FaultInjectingFileOps::SyncFile(int fd) {
  const int err = BeginSync();
  return err != 0 ? err : SystemFileOps()->SyncFile(fd);
}

int FaultInjectingFileOps::SyncMapping(void* addr, uint64_t len) {
  const int err = BeginSync();
  return err != 0 ? err : SystemFileOps()->SyncMapping(addr, len);
}

}  // namespace plush::media
