// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// On-media layout of a pool's fixed header: the superblock and the root
// page. Specified byte by byte in docs/format.md ("Superblock", "Root
// page"); keep the two in sync. All integers are little-endian; every
// persisted reference is an offset from the start of the pool.
//
//   offset 0        Superblock   written once at creation, checksummed
//   offset 4096     RootPage     allocator high-water mark + level table
//   offset 8192     recovery logs (log/log_format.h)
//   heap_offset     heap: level directories, buckets, payload chunks, the
//                   payload chunk table and the batch spill area
//                   (bump-allocated)

#ifndef PLUSH_POOL_POOL_FORMAT_H_
#define PLUSH_POOL_POOL_FORMAT_H_

#include <bit>
#include <cstddef>
#include <cstdint>

namespace plush::pool {

static_assert(std::endian::native == std::endian::little,
              "the on-media format is little-endian and read in place");

inline constexpr uint64_t kPageSize = 4096;
inline constexpr uint64_t kSuperblockOffset = 0;
inline constexpr uint64_t kRootOffset = 4096;
inline constexpr uint64_t kLogRegionOffset = 8192;

// "PLUSHPL" + NUL. DO NOT CHANGE: persisted.
inline constexpr char kMagic[8] = {'P', 'L', 'U', 'S', 'H', 'P', 'L', '\0'};

// The most PMem levels a pool can have: 64 hash bits are consumed by
// directory indexes long before (docs/format.md, "Levels").
inline constexpr unsigned kMaxPmemLevels = 15;

struct Superblock {
  char magic[8];
  uint32_t format_version;
  uint32_t superblock_bytes;  // sizeof(Superblock) when written
  uint64_t creation_time_ns;  // CLOCK_REALTIME, informational
  // Creation parameters (see plush::Options for their meaning).
  uint8_t partitioning;  // kHashPartitioning, ... below
  uint8_t dram_directory_bits;
  uint8_t fanout_bits;
  uint8_t first_level_fanout_bits;
  uint8_t preallocated_levels;
  uint8_t dram_filter_levels;
  uint8_t reserved0[2];
  uint32_t log_count;
  uint32_t log_chunk_size;
  uint32_t log_chunks_per_log;
  uint32_t reserved1;
  // Regions.
  uint64_t log_region_offset;
  uint64_t log_region_size;
  uint64_t heap_offset;
  // Payload logs (payload/payload_format.h); 0 logs: 8/8 records only.
  uint32_t payload_log_count;
  uint32_t payload_chunk_size;
  uint64_t reserved2[7];  // zero
  uint64_t checksum;      // XXH64 (seed 0) of the bytes before this field
};
static_assert(sizeof(Superblock) == 144);
static_assert(offsetof(Superblock, partitioning) == 24);
static_assert(offsetof(Superblock, log_count) == 32);
static_assert(offsetof(Superblock, log_region_offset) == 48);
static_assert(offsetof(Superblock, payload_log_count) == 72);
static_assert(offsetof(Superblock, checksum) == 136);

// Superblock::partitioning. DO NOT CHANGE: persisted.
inline constexpr uint8_t kHashPartitioning = 0;
// Retired range partitionings: written by builds before this one, refused
// (NotSupported) by this one, never to be used again. 1: units by the
// keys' leading dram_directory_bits bits; 2: units by fixed boundaries
// from a key sample, in a region at the start of the heap named by the
// superblock's bytes 80..87; 3: as kRangeFingerprinted, without
// fingerprints in indirect slots.
inline constexpr uint8_t kRangeByKeyBits = 1;
inline constexpr uint8_t kRangeByBoundaries = 2;
inline constexpr uint8_t kRangeAdaptive = 3;
// Range partitioning on a range map that re-balances online
// (placement/range_map.h; RootPage::range_map names it), whose indirect slots
// carry their keys' fingerprints (placement/key_fingerprint.h).
inline constexpr uint8_t kRangeFingerprinted = 4;

// Written once when a PMem level is created, then read-only. A level's
// directory is cut into one block per unit (DRAM entry): the entries of
// the unit's subtree on the level, allocated when a migration first writes
// one of them (table/leveled_table.h). The block table names each unit's
// block: one word per unit, 0 until then, then the block's offset, written
// once. On level 1, a unit without a block may instead hold the epoch its
// children would have, written by an empty migration, which raises the
// unit's epoch without taking a block: kEpochFloorTag | epoch << 1. The
// tag's bits (the top byte and bit 0) are never all set in a block's
// offset, nor one bit flip away from it.
inline constexpr uint64_t kEpochFloorTag = uint64_t{0xE5} << 56 | 1;
inline constexpr uint64_t kEpochFloorMask = uint64_t{0xFF} << 56 | 1;
inline constexpr bool IsEpochFloor(uint64_t word) {
  return (word & kEpochFloorMask) == kEpochFloorTag;
}
inline constexpr uint64_t EpochFloorWord(uint64_t epoch) {
  return kEpochFloorTag | epoch << 1;
}
inline constexpr uint64_t EpochOfFloor(uint64_t word) {
  return (word & ~kEpochFloorMask) >> 1;
}

struct LevelDescriptor {
  uint64_t block_table_offset;  // 2^dram_directory_bits words (8-aligned)
  uint64_t block_bytes;         // a block: its entries, then (preallocated
                                // levels) their buckets; 4 KiB multiple
  uint64_t entry_count;         // directory entries of the whole level
  uint64_t reserved[4];
  uint64_t checksum;  // XXH64 (seed 0) of the 56 bytes before
};
static_assert(sizeof(LevelDescriptor) == 64);

struct RootPage {
  // Heap bytes below this offset may be in use; the allocator never hands
  // out space below it again. Advanced (and persisted) in slabs before the
  // space is used, so a crash can leak at most one slab, never reuse one.
  uint64_t alloc_high_water;
  // Number of valid entries in `levels`. Incremented (and persisted) only
  // after the new descriptor is persisted.
  uint64_t level_count;
  // The payload chunk table (payload/chunk_table.h): its offset (4 KiB
  // aligned) | log2 of its capacity in entries; 0 = no table yet. Replaced
  // in one atomic store when the table grows.
  uint64_t payload_chunk_table;
  // Range pools: the base region in use (RangeMapRef), and the spare the
  // next base is written to (0: none yet; equal to range_map after a crash
  // between the two stores of a new base: no spare). A new base is
  // written and persisted in the spare, then named here in one atomic
  // store: a crash leaves the old map or the new one.
  uint64_t range_map;
  uint64_t range_map_spare;
  // The change log (RangeMapRef; 0: none yet) and its state
  // (RangeLogState). A change is written and persisted after the last
  // one, then counted here in one atomic store.
  uint64_t range_map_log;
  uint64_t range_map_log_state;
  // The batch spill area (log/batch_spill.h): its offset (4 KiB aligned) |
  // log2 of its capacity in recovery-log entries; 0 = none yet. Replaced in
  // one atomic store when the area grows.
  uint64_t batch_spill;
  LevelDescriptor levels[kMaxPmemLevels];
  // 1 once an opening with Options::power_fail_safe ordered the pool's
  // barriers (media::Media::OrderBarriers): every later opening orders
  // them too, so that what a sync covered stays covered. 0 otherwise.
  uint64_t power_fail_safe;
};
static_assert(sizeof(RootPage) == 64 + 64 * kMaxPmemLevels + 8);
static_assert(sizeof(RootPage) <= kPageSize);

}  // namespace plush::pool

#endif  // PLUSH_POOL_POOL_FORMAT_H_
