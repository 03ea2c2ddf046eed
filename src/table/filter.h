// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The partitioned bloom filter of a directory entry (paper §4.1): 256 bytes,
// one partition per bucket (256 / fanout bytes: 8 bits per key at fanout
// 16). A lookup learns which buckets may hold its key; a negative level
// costs the filter alone.
//
// Layout ("planes"): each partition is split into 32-bit blocks, and block
// j of every bucket sits side by side in plane j:
//
//   plane j = [block j of bucket 0][block j of bucket 1]...[bucket f-1]
//   (f * 4 bytes; planes 0, 1, ... follow each other; 64 / f planes)
//
// A key uses one plane, chosen by its hash, and sets kProbeBits bits of the
// block of its bucket there. So the bits a key needs in *every* partition
// lie in one plane of at most 64 bytes: one cache line per level and
// lookup (the paper's layout touches all 256 bytes), tested for all buckets
// with one SIMD compare (FilterCandidates in simd.h). With the same 8 bits per
// key the false-positive rate is about that of an unblocked filter (2.4% per
// bucket at 16 keys).
//
// Bit positions come from a remix of the key hash, independent of the low
// hash bits that choose directory entries. kProbeBits, the remix and the
// plane layout are part of the on-media format: DO NOT CHANGE.

#ifndef PLUSH_TABLE_FILTER_H_
#define PLUSH_TABLE_FILTER_H_

#include <cstdint>

#include "table/table_format.h"

namespace plush::table {

inline constexpr unsigned kProbeBits = 4;
inline constexpr unsigned kFilterBlocks = kFilterBytes / 4;  // 32-bit blocks

// Where one key's bits live in any entry of a table with a given fanout.
struct FilterProbe {
  uint32_t plane_offset;  // index of the plane's first block
  uint32_t mask;          // the key's bits within a block
};

inline FilterProbe MakeProbe(uint64_t hash, unsigned fanout) {
  // Fibonacci-hashing remix: every output bit depends on all input bits.
  const uint64_t mixed = (hash ^ (hash >> 29)) * 0x9E3779B97F4A7C15ull;
  // planes is a power of two: a mask, not a division (same value).
  const unsigned planes = kFilterBlocks / fanout;
  FilterProbe probe{
      static_cast<uint32_t>(((mixed >> 20) & (planes - 1)) * fanout), 0};
  for (unsigned i = 0; i < kProbeBits; ++i) {
    probe.mask |= uint32_t{1} << ((mixed >> (59 - 5 * i)) & 31);
  }
  return probe;
}

// The 32-bit blocks of a filter, read and written atomically.
inline uint32_t* Blocks(uint64_t* filter) {
  return reinterpret_cast<uint32_t*>(filter);
}

// Clears every block of `bucket`: done when its slot 0 is (re)written, so
// that clearing an entry never has to touch the filter. Single writer.
inline void FilterResetBucket(uint64_t* filter, unsigned bucket,
                              unsigned fanout) {
  for (unsigned b = bucket; b < kFilterBlocks; b += fanout) {
    std::atomic_ref<uint32_t>(Blocks(filter)[b])
        .store(0, std::memory_order_relaxed);
  }
}

// Sets the key's bits for `bucket`. Single writer.
inline void FilterAdd(uint64_t* filter, unsigned bucket,
                      const FilterProbe& probe) {
  std::atomic_ref<uint32_t> block(Blocks(filter)[probe.plane_offset + bucket]);
  block.store(block.load(std::memory_order_relaxed) | probe.mask,
              std::memory_order_relaxed);
}

// The address of the line a probe reads (for prefetching).
inline const void* FilterLine(const uint64_t* filter,
                              const FilterProbe& probe) {
  return reinterpret_cast<const uint32_t*>(filter) + probe.plane_offset;
}

}  // namespace plush::table

#endif  // PLUSH_TABLE_FILTER_H_
