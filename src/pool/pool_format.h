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
// (util/range_map.h; RootPage::range_map names it), whose indirect slots
// carry their keys' fingerprints (util/key_fingerprint.h).
inline constexpr uint8_t kRangeFingerprinted = 4;

// The range map of a range pool is a whole map (a "base") plus the
// changes made since, appended to a change log (re-balances change a
// position or two each; the base is written again only when the log is
// full).
//
// A base: the header is followed by `positions` unit numbers (uint32
// each, by position), then positions - 1 separators, each a 16-bit key
// length and the key's bytes, packed, in ascending key order. A pool has
// two base regions: the one RootPage::range_map names, and a spare that
// the next base is written to before the root names it instead.
inline constexpr char kRangeMapMagic[8] = {'P', 'L', 'U', 'S',
                                           'H', 'R', 'M', '\0'};
struct RangeMapHeader {
  char magic[8];
  uint64_t generation;  // changes of the map made before this base (0 at
                        // creation)
  uint32_t unit_bits;   // dram_directory_bits
  uint32_t positions;   // 1 .. 2^unit_bits
  uint64_t entries_bytes;     // bytes of the entries after the header
  uint64_t entries_checksum;  // XXH64 (seed 0) of those bytes
  uint64_t reserved[2];
  uint64_t checksum;  // XXH64 (seed 0) of the 56 bytes before
};
static_assert(sizeof(RangeMapHeader) == 64);

// A range map region in a RootPage word: its offset (4 KiB aligned) | log2
// of its capacity in bytes; 0 = none.
struct RangeMapRef {
  uint64_t offset = 0;
  unsigned capacity_bits = 0;

  uint64_t capacity() const { return uint64_t{1} << capacity_bits; }
  uint64_t Encode() const { return offset | capacity_bits; }
  static RangeMapRef Decode(uint64_t w) {
    return {w & ~uint64_t{4095}, static_cast<unsigned>(w & 63)};
  }
};

// A change of the range map in the change log (RootPage::range_map_log),
// 8-byte aligned, one after the other from the log's start:
//   word 0   check (32 bits) << 32 | separator length (16) << 16
//            | kind (8) << 8 | merged positions - 2 (8; kMerge only)
//   word 1   unit << 32 | position
//   then the separator (kSplit; length 0 for kMerge), zero-padded to a
//   multiple of 8 bytes.
// check = low 32 bits of XXH64 of the record with the check zero, seeded
// with base generation * 0x9E3779B97F4A7C15 ^ the record's index: a record
// of an older base, or at another index, never passes.
inline constexpr uint8_t kRangeChangeMerge = 1;  // positions p .. p+n-1
                                                 // -> unit
inline constexpr uint8_t kRangeChangeSplit = 2;  // keys of p >= separator
                                                 // -> new position p+1, unit
inline constexpr uint8_t kRangeChangeReassign = 3;  // position p -> unit
inline constexpr uint64_t kRangeChangeHeaderBytes = 16;

// RootPage::range_map_log_state: the base generation the change log
// belongs to << 24 | the number of changes in it. Changes whose base
// generation is not the base's are none (a crash between writing a new
// base and resetting the log).
struct RangeLogState {
  uint64_t base_generation = 0;
  uint32_t count = 0;

  uint64_t Encode() const { return base_generation << 24 | count; }
  static RangeLogState Decode(uint64_t w) {
    return {w >> 24, static_cast<uint32_t>(w & 0xFFFFFF)};
  }
};

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
};
static_assert(sizeof(RootPage) == 64 + 64 * kMaxPmemLevels);
static_assert(sizeof(RootPage) <= kPageSize);

}  // namespace plush::pool

#endif  // PLUSH_POOL_POOL_FORMAT_H_
