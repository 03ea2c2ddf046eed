// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "payload/chunk_table.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "payload/payload_format.h"

namespace plush::payload {
namespace {

constexpr uint64_t kFirstCapacity = 512;  // one 4 KiB page
constexpr uint64_t kCapacityMask = 0x3F;  // low bits of the root word

}  // namespace

ChunkTable::ChunkTable(pool::Pool* pool, uint64_t chunk_size)
    : pool_(pool), chunk_size_(chunk_size) {}

Status ChunkTable::Load() {
  MutexLock lock(&mu_);
  const uint64_t word =
      std::atomic_ref<uint64_t>(pool_->root()->payload_chunk_table)
          .load(std::memory_order_acquire);
  if (word == 0) return Status::OK();
  const uint64_t offset = word & ~uint64_t{4095};
  const unsigned log2 = static_cast<unsigned>(word & kCapacityMask);
  const uint64_t mark = pool_->allocated_end();
  if ((word & 4095 & ~kCapacityMask) != 0 || log2 < 9 || log2 > kChunkIdBits ||
      offset < pool_->heap_offset() || offset > mark ||
      (mark - offset) / 8 < (uint64_t{1} << log2)) {
    return Status::Corruption("payload chunk table word " +
                              std::to_string(word) +
                              " does not describe a table inside the heap");
  }
  capacity_ = uint64_t{1} << log2;
  auto* entries = pool_->media().At<uint64_t>(offset);
  uint64_t n = 0;
  while (n < capacity_ && entries[n] != 0) ++n;
  std::vector<uint64_t> sorted(entries, entries + n);
  std::sort(sorted.begin(), sorted.end());
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t c = sorted[i];
    const bool overlaps = i > 0 && sorted[i - 1] + chunk_size_ > c;
    if (c % 4096 != 0 || c < pool_->heap_offset() || c > mark ||
        mark - c < chunk_size_ || overlaps) {
      return Status::Corruption(
          "payload chunk table @" + std::to_string(offset) + ": chunk at " +
          std::to_string(c) +
          (overlaps ? " overlaps another chunk"
                    : " is misaligned or outside the allocated heap"));
    }
  }
  entries_.store(entries, std::memory_order_release);
  count_.store(n, std::memory_order_release);
  return Status::OK();
}

Status ChunkTable::Grow() {
  mu_.AssertHeld();
  const uint64_t capacity = capacity_ == 0 ? kFirstCapacity : capacity_ * 2;
  if (capacity > kMaxChunks) {
    return Status::NoSpace("the payload chunk table is full (" +
                           std::to_string(kMaxChunks) +
                           " chunks); use larger payload chunks");
  }
  uint64_t offset = 0;
  Status s = pool_->allocator().Allocate(capacity * 8, 4096, &offset);
  if (!s.ok()) return s;
  media::Media& m = pool_->media();
  auto* fresh = m.At<uint64_t>(offset);
  const uint64_t n = count();
  if (n > 0) {
    std::copy(entries_.load(std::memory_order_relaxed),
              entries_.load(std::memory_order_relaxed) + n, fresh);
    m.Flush(fresh, n * 8);
  }
  m.Drain();  // the rest of the new table is fresh heap space: zero
  uint64_t& root_word = pool_->root()->payload_chunk_table;
  std::atomic_ref<uint64_t>(root_word).store(
      offset | static_cast<uint64_t>(std::countr_zero(capacity)),
      std::memory_order_release);
  m.Persist(&root_word, sizeof(root_word));
  entries_.store(fresh, std::memory_order_release);
  capacity_ = capacity;
  return Status::OK();
}

Status ChunkTable::Add(uint64_t offset, uint32_t* id) {
  MutexLock lock(&mu_);
  const uint64_t n = count();
  if (n == capacity_) {
    Status s = Grow();
    if (!s.ok()) return s;
  }
  uint64_t& slot = entries_.load(std::memory_order_relaxed)[n];
  std::atomic_ref<uint64_t>(slot).store(offset, std::memory_order_relaxed);
  pool_->media().Persist(&slot, sizeof(slot));
  count_.store(n + 1, std::memory_order_release);
  *id = static_cast<uint32_t>(n);
  return Status::OK();
}

}  // namespace plush::payload
