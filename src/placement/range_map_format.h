// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The on-media format of a range pool's map (docs/format.md, "Range map"):
// its base regions and its change log, which the pool's root page names
// (pool_format.h, RootPage::range_map and the words after it).
// DO NOT CHANGE: persisted.

#ifndef PLUSH_PLACEMENT_RANGE_MAP_FORMAT_H_
#define PLUSH_PLACEMENT_RANGE_MAP_FORMAT_H_

#include <cstdint>

namespace plush {

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
//   then the separator (kSplit, kSplitBelow; length 0 otherwise),
//   zero-padded to a multiple of 8 bytes.
// check = low 32 bits of XXH64 of the record with the check zero, seeded
// with base generation * 0x9E3779B97F4A7C15 ^ the record's index: a record
// of an older base, or at another index, never passes.
inline constexpr uint8_t kRangeChangeMerge = 1;  // positions p .. p+n-1
                                                 // -> unit
inline constexpr uint8_t kRangeChangeSplit = 2;  // keys of p >= separator
                                                 // -> new position p+1, unit
inline constexpr uint8_t kRangeChangeReassign = 3;  // position p -> unit
// keys of p below separator -> new position p, unit (p's unit moves to
// p + 1)
inline constexpr uint8_t kRangeChangeSplitBelow = 4;
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

}  // namespace plush

#endif  // PLUSH_PLACEMENT_RANGE_MAP_FORMAT_H_
