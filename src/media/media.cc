// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/media.h"

namespace plush::media {

const char* Media::KindName() const {
  switch (kind_) {
    case MediaKind::kPmem:
      return "pmem";
    case MediaKind::kFile:
      return "file";
    case MediaKind::kSim:
      return "sim";
  }
  return "unknown";
}

const char* Media::GranularityName() const {
  switch (granularity_) {
    case Granularity::kByte:
      return "byte";
    case Granularity::kCacheLine:
      return "cache-line";
    case Granularity::kPage:
      return "page";
  }
  return "unknown";
}

Status Media::Sync() {
  sync_mu_.Lock();
  const uint64_t call = ++sync_calls_;
  while (synced_through_ < call && sync_error_.ok()) {
    if (syncing_) {
      // It began before this call (or may have): wait for it to end.
      sync_ended_.Wait(&sync_mu_, [&] { return !syncing_; });
      continue;
    }
    // Sync for every call made so far, outside the mutex so that later
    // calls can queue meanwhile.
    syncing_ = true;
    const uint64_t covers = sync_calls_;
    sync_mu_.Unlock();
    const Status s = SyncMedia();
    syncs_.fetch_add(1, std::memory_order_relaxed);
    sync_mu_.Lock();
    syncing_ = false;
    synced_through_ = covers;
    if (!s.ok()) {
      sync_error_ = s.WithContext(
          "a sync of the pool failed; writes and syncs are refused until "
          "the pool is opened again");
      failed_.store(true, std::memory_order_release);
    }
    sync_ended_.NotifyAll();
  }
  Status s = sync_error_;
  sync_mu_.Unlock();
  return s;
}

uint64_t Media::sync_calls() const {
  MutexLock lock(&sync_mu_);
  return sync_calls_;
}

Status Media::sticky_error() const {
  MutexLock lock(&sync_mu_);
  return sync_error_;
}

std::string Media::Guarantee() const {
  switch (kind_) {
    case MediaKind::kPmem:
      if (test_override_) {
        return "NOT power-fail durable: an ordinary file made to look like "
               "persistent memory by a libpmem2 test override "
               "(PMEM2_FORCE_GRANULARITY or PMEM_IS_PMEM_FORCE) and mapped "
               "without MAP_SYNC; acknowledged writes survive process "
               "crashes only";
      }
      return "acknowledged writes survive power failure";
    case MediaKind::kFile:
      if (InMemory()) {
        return "acknowledged writes survive process crashes; nothing "
               "survives power failure (a file system in memory)";
      }
      return "acknowledged writes survive process crashes; power failure only "
             "up to the last successful Sync()";
    case MediaKind::kSim:
      return "simulated persistence domain (tests): acknowledged writes "
             "survive "
             "simulated power failure";
  }
  return "unknown";
}

}  // namespace plush::media
