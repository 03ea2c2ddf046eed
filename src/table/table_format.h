// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Layout of the leveled hash table's directory entries and buckets (paper
// §4.1, Figure 3; docs/format.md, "Directory entries and buckets"). The DRAM
// level uses the very same layout in DRAM, so one code path reads both.
//
//   DirectoryEntry (512 bytes, 512-aligned)
//   +0    filter[32]       partitioned bloom filter: one partition of
//                          256/fanout bytes per bucket (filter.h)
//   +256  state            epoch << 16 | size  (one word: atomic, untearable)
//   +264  lock             DRAM level only: the writer lock. 0 on media.
//   +272  unlogged[4]      DRAM level only: bit i: slot i holds an unlogged
//                          record. 0 on media.
//   +304  reserved[2]
//   +320  tombstone[4]     bit i: slot i is a tombstone
//   +352  indirect[4]      bit i: slot i holds (key hash, payload reference)
//                          instead of an inline 8-byte key and value
//   +384  bucket[16]       pool offsets of the entry's buckets (0 = none);
//                          unused when the level's buckets are preallocated
//
//   Bucket (256 bytes, 256-aligned): keys[16] then values[16]
//
// Slot i of an entry is keys[i % 16] / values[i % 16] of bucket i / 16;
// slots [0, size) are occupied, filled in order, newest last. Keeping the
// tombstone and indirect flags outside the slots lets every 64-bit key and
// value be user data (no reserved patterns).
//
// Publication protocol (crash consistency and lock-free readers): slots,
// flags, filter and bucket references are written first; `state` is written
// last, in one 8-byte store. On PMem the first group is persisted before
// `state`. Epochs only grow: every refill of an entry after it was cleared
// carries a larger epoch, so `state` never returns to an earlier value and
// a reader that sees the same state before and after its read saw a stable
// entry (a seqlock without a separate counter).

#ifndef PLUSH_TABLE_TABLE_FORMAT_H_
#define PLUSH_TABLE_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "util/atomic_word.h"

namespace plush::table {

inline constexpr unsigned kSlotsPerBucket = 16;
inline constexpr unsigned kMaxFanout = 16;
inline constexpr unsigned kMaxSlots = kSlotsPerBucket * kMaxFanout;
inline constexpr unsigned kFilterBytes = 256;

struct alignas(256) Bucket {
  uint64_t keys[kSlotsPerBucket];
  uint64_t values[kSlotsPerBucket];
};
static_assert(sizeof(Bucket) == 256, "a bucket is one 256-byte PMem block");

struct alignas(512) DirectoryEntry {
  uint64_t filter[kFilterBytes / 8];
  uint64_t state;
  uint64_t lock;
  uint64_t unlogged[kMaxSlots / 64];
  uint64_t reserved[2];
  uint64_t tombstone[kMaxSlots / 64];
  uint64_t indirect[kMaxSlots / 64];
  uint64_t bucket[kMaxFanout];
};
static_assert(sizeof(DirectoryEntry) == 512, "two entries per 1 KiB, aligned");
static_assert(offsetof(DirectoryEntry, state) == 256);
static_assert(offsetof(DirectoryEntry, unlogged) == 272);
static_assert(offsetof(DirectoryEntry, tombstone) == 320,
              "flags share one cache line so a migration flushes it once");
static_assert(offsetof(DirectoryEntry, bucket) == 384);

// The entry's `state` word.
struct EntryState {
  uint64_t epoch = 0;
  uint32_t size = 0;

  // The size of a DRAM entry while its writer rewrites its slots in place
  // (LeveledTable::RewriteDram): readers wait until it is published again.
  // Never stored in a PMem entry, and above any capacity.
  static constexpr uint32_t kRewriting = 0xFFFF;

  uint64_t Encode() const { return epoch << 16 | size; }
  static EntryState Decode(uint64_t w) {
    return {w >> 16, static_cast<uint32_t>(w & 0xFFFF)};
  }
};

inline bool TestBit(const uint64_t* bits, unsigned i) {
  return (LoadRelaxed(bits[i / 64]) >> (i % 64)) & 1;
}
// Single writer per entry: a plain read-modify-write suffices.
inline void AssignBit(uint64_t* bits, unsigned i, bool value) {
  const uint64_t w = LoadRelaxed(bits[i / 64]);
  const uint64_t mask = uint64_t{1} << (i % 64);
  StoreRelaxed(bits[i / 64], value ? (w | mask) : (w & ~mask));
}

}  // namespace plush::table

#endif  // PLUSH_TABLE_TABLE_FORMAT_H_
