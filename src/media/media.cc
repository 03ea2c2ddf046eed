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
  MutexLock lock(&sync_mu_);
  if (failed()) return sync_error_;
  Status s = SyncMedia();
  if (!s.ok()) {
    sync_error_ = s.WithContext(
        "a sync of the pool failed; writes and syncs are refused until the "
        "pool is opened again");
    failed_.store(true, std::memory_order_release);
    return sync_error_;
  }
  return s;
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
