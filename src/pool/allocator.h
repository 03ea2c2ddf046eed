// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The pool's space allocator: a bump allocator over the heap region, for
// blocks that are never freed individually (level directories and 256-byte
// buckets; buckets are reused in place by their directory entry).
//
// Recoverable state: RootPage::alloc_high_water. Space is handed out from a
// DRAM cursor below the high-water mark; when the cursor would pass it, the
// mark is advanced by at least one slab and persisted *before* the space is
// used. After a crash the cursor restarts at the mark, so a crash leaks at
// most one slab and never hands out space twice; a clean close trims the
// mark to the cursor (TrimMark), so that reopening leaks nothing. Fresh space
// is zero: the file is extended with posix_fallocate and never reused below the
// mark.
//
// Growing the file (posix_fallocate: the file system zeroes the new blocks,
// ~0.1 s per GiB on tmpfs) is slow next to an allocation: GrowAhead() lets
// a background thread grow it before an allocation would have to, outside
// the allocation mutex.
//
// Thread safety: thread-safe (one mutex; callers allocate in batches, e.g.
// all buckets of a migration at once; growth has a mutex of its own,
// taken after the allocation mutex).

#ifndef PLUSH_POOL_ALLOCATOR_H_
#define PLUSH_POOL_ALLOCATOR_H_

#include <atomic>
#include <cstdint>

#include "media/media.h"
#include "plush/status.h"
#include "pool/pool_format.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush::pool {

class Allocator {
 public:
  static constexpr uint64_t kSlab = 256 << 10;

  // `root` lives in `media`; the heap starts at `heap_offset` and ends
  // where the media may grow to.
  Allocator(media::Media* media, RootPage* root, uint64_t heap_offset,
            uint64_t max_pool_size);

  // Reserves `size` bytes aligned to `alignment` (a power of two) and
  // stores their offset in *offset. Grows the pool when needed; NoSpace if
  // it cannot (nothing is allocated then).
  Status Allocate(uint64_t size, uint64_t alignment, uint64_t* offset);

  // Bytes of the pool below the allocation cursor.
  uint64_t used_bytes() const;
  // The persisted high-water mark, mirrored in DRAM: lock-free readers
  // validate every bucket reference against it, and the root page's line
  // is written by every allocation that advances the mark.
  uint64_t mark() const { return mark_.load(std::memory_order_acquire); }

  // Lowers the persisted mark to the cursor, so that reopening the pool
  // leaks nothing. Only when no allocation can follow (a clean close).
  void TrimMark();

  // Grows the file by one step once less than a step is left above the
  // mark, so that allocations rarely wait for the file system. A step is
  // 1/kGrowthDivisor of the heap, at most kMaxGrowAheadStep: each growth
  // is short (the file system zeroes what it adds), and allocations go on
  // in the step left meanwhile. Errors are left for the allocation that
  // needs the space to report.
  void GrowAhead() EXCLUDES(mu_, grow_mu_);
  static constexpr uint64_t kMaxGrowAheadStep = 64ull << 20;
  // What the file holds beyond the data is up to two steps, all of it
  // allocated storage: a sixty-fourth of the heap keeps that under 3 % of
  // the heap (a sixteenth kept 6-12 %, a quarter 25-40 %), for more
  // growths that cost nothing measurable (docs/benchmarks.md, "Growth
  // steps").
  static constexpr uint64_t kGrowthDivisor = 64;

 private:
  Status EnsureMapped(uint64_t end) REQUIRES(mu_) EXCLUDES(grow_mu_);
  // The size to grow to for space up to `end`: the heap grows by at least
  // 1/kGrowthDivisor, so that growth steps stay few — of the heap, not of
  // the file, whose recovery logs take space only as they are written.
  uint64_t GrowthTarget(uint64_t mapped, uint64_t end) const;

  media::Media* const media_;
  const uint64_t heap_offset_;
  RootPage* const root_;
  const uint64_t max_pool_size_;
  mutable Mutex mu_ ACQUIRED_BEFORE(grow_mu_);
  uint64_t cursor_ GUARDED_BY(mu_);
  Mutex grow_mu_;  // serializes media_->Grow()
  std::atomic<uint64_t> mark_;
};

}  // namespace plush::pool

#endif  // PLUSH_POOL_ALLOCATOR_H_
