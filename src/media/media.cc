// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/media.h"

#include <chrono>
#include <thread>

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

void Media::AwaitJoiningWrites() const {
  if (last_sync_calls_.load(std::memory_order_relaxed) <= 1) return;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::nanoseconds(last_sync_ns_.load(std::memory_order_relaxed) / 2);
  uint64_t seen = sync_calls_.load(std::memory_order_acquire);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
    const uint64_t calls = sync_calls_.load(std::memory_order_acquire);
    if (calls == seen && announced_.load(std::memory_order_acquire) == 0)
      return;
    seen = calls;
  }
}

Status Media::SyncCall(bool announced) {
  const uint64_t call = sync_calls_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (announced) announced_.fetch_sub(1, std::memory_order_acq_rel);
  for (;;) {
    const uint64_t synced = synced_through_.load(std::memory_order_acquire);
    if (synced >= call || failed()) break;
    bool idle = false;
    if (!syncing_.compare_exchange_strong(idle, true,
                                          std::memory_order_acq_rel)) {
      // A sync runs; it may have begun before this call: wait for it to
      // end (the waiters of a sync wake on its end without a lock to take
      // in turn, so that they come back to write at once).
      synced_through_.wait(synced, std::memory_order_acquire);
      continue;
    }
    // Sync for every call made so far; calls made meanwhile wait for the
    // next sync.
    AwaitJoiningWrites();
    const uint64_t covers = sync_calls_.load(std::memory_order_acquire);
    last_sync_calls_.store(covers - synced, std::memory_order_relaxed);
    const auto began = std::chrono::steady_clock::now();
    const Status s = SyncMedia();
    last_sync_ns_.store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - began)
            .count(),
        std::memory_order_relaxed);
    syncs_.fetch_add(1, std::memory_order_relaxed);
    if (!s.ok()) {
      MutexLock lock(&sync_mu_);
      sync_error_ = s.WithContext(
          "a sync of the pool failed; writes and syncs are refused until "
          "the pool is opened again");
      failed_.store(true, std::memory_order_release);
    }
    synced_through_.store(covers, std::memory_order_release);
    syncing_.store(false, std::memory_order_release);
    synced_through_.notify_all();
  }
  return sticky_error();
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
      if (ordered_barriers()) {
        return "acknowledged writes survive power failure (power_fail_safe: "
               "every persistence barrier is an msync)";
      }
      return "acknowledged writes survive process crashes; power failure only "
             "up to the last successful Sync(), and only if no migration or "
             "log recycling ran after it (their pages reach the disk "
             "unordered; Options::power_fail_safe orders them)";
    case MediaKind::kSim:
      return "simulated persistence domain (tests): acknowledged writes "
             "survive "
             "simulated power failure";
  }
  return "unknown";
}

}  // namespace plush::media
