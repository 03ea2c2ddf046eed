// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The payload chunk table: the persistent list of every payload chunk ever
// allocated, so that opening a pool finds them without scanning the heap.
// A chunk's id is its index; ids are handed out in order and never reused
// (a freed chunk keeps its id and is reused in place).
//
// Layout: an array of 8-byte chunk offsets in the heap, filled in order
// (0 = unused); RootPage::payload_chunk_table holds its offset and log2 of
// its capacity. To grow, a table twice as large is written and persisted,
// then the root word is switched in one atomic store; the old table is
// left in place (it is never read again, and the bump allocator does not
// free). A chunk's header is persisted before its offset is added, so a
// crash can leak a chunk but never register a half-made one.
//
// Thread safety: Add() is serialized internally; OffsetOf() is lock-free.

#ifndef PLUSH_PAYLOAD_CHUNK_TABLE_H_
#define PLUSH_PAYLOAD_CHUNK_TABLE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "plush/status.h"
#include "pool/pool.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush::payload {

class ChunkTable {
 public:
  ChunkTable(pool::Pool* pool, uint64_t chunk_size);

  // Reads the table of an existing pool. Corruption if it is damaged
  // (outside the heap, misaligned, chunks overlapping or past the
  // allocation mark).
  Status Load() EXCLUDES(mu_);

  uint64_t count() const { return count_.load(std::memory_order_acquire); }
  // The pool offset of chunk `id`, or 0 if there is no such chunk.
  uint64_t OffsetOf(uint64_t id) const {
    if (id >= count()) return 0;
    return std::atomic_ref<const uint64_t>(
               entries_.load(std::memory_order_acquire)[id])
        .load(std::memory_order_relaxed);
  }

  // Registers the chunk at `offset` (its header already persisted) and
  // returns its id. NoSpace if the table cannot grow.
  Status Add(uint64_t offset, uint32_t* id) EXCLUDES(mu_);

 private:
  Status Grow() REQUIRES(mu_);

  pool::Pool* const pool_;
  const uint64_t chunk_size_;
  Mutex mu_;  // serializes Add
  std::atomic<uint64_t*> entries_{nullptr};
  uint64_t capacity_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> count_{0};
};

}  // namespace plush::payload

#endif  // PLUSH_PAYLOAD_CHUNK_TABLE_H_
