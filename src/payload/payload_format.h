// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// On-media layout of the payload logs (paper §4.3; docs/format.md, "Payload
// logs"). Keep the two in sync.
//
// Records other than an 8-byte key with an 8-byte value live out of place,
// in payload chunks; the hash table slot holds the key's hash and a
// reference to the entry. Chunks are payload_chunk_size bytes, 4 KiB
// aligned, allocated from the heap and registered in the chunk table
// (chunk_table.h); a chunk's id is its index there.
//
//   chunk header (64 bytes):
//     word 0 "state"   epoch << 32 | log << 8 | in_use
//                      epoch: bumped when the chunk is freed, so references
//                      into its old contents dangle (never 0 once in use)
//     word 1 "seq"     position of the chunk in its log (higher = newer)
//     word 2 "resume"  byte offset where appends resume, written by a clean
//                      close and cleared when the pool is opened; 0 = none
//     words 3..7       zero
//
//   entry (8-byte aligned, from offset 64 on):
//     header word      key_len (11 bits) | value_len << 11 (17 bits)
//                      | epoch_bits << 28 (3 bits) | expires << 31
//                      | check << 32
//     expiry word      (only if expires) the record's expires_at_ms
//     key bytes, value bytes, zero padding to a multiple of 8
//
//   check = low 32 bits of XXH3(value, seed = table hash ^ epoch << 40 ^
//           offset << 8 ^ low header word ^ expiry · kExpiryMix;
//           placement/key_hasher.h): with the table hash stored in the slot
//           (or recomputed from the key), it tells a complete entry of the
//           chunk's current epoch from a torn one or from older contents.
//
//   reference (a slot's value word): chunk id << 40 | epoch (low 21 bits)
//                                    << 19 | entry offset / 8
//
// An entry is valid only while its chunk's epoch equals the reference's.
// Appends are not fenced on their own: the recovery-log append that follows
// fences both, and recovery replays a log record only if the entry it
// references passes its check (so a torn entry is never reachable).

#ifndef PLUSH_PAYLOAD_PAYLOAD_FORMAT_H_
#define PLUSH_PAYLOAD_PAYLOAD_FORMAT_H_

#include <cstdint>
#include <string_view>

#include "util/hash.h"

namespace plush::payload {

inline constexpr uint64_t kPayloadChunkHeaderSize = 64;
inline constexpr unsigned kChunkIdBits = 24;
inline constexpr unsigned kRefEpochBits = 21;
inline constexpr unsigned kOffsetBits = 19;  // in 8-byte units: 4 MiB
inline constexpr uint64_t kMaxChunks = uint64_t{1} << kChunkIdBits;
inline constexpr uint64_t kMaxEntryKeyLen = (1u << 11) - 1;
inline constexpr uint64_t kMaxEntryValueLen = (1u << 17) - 1;

struct PayloadChunkHeader {
  uint64_t state;
  uint64_t seq;
  uint64_t resume;
  uint64_t reserved[5];
};
static_assert(sizeof(PayloadChunkHeader) == kPayloadChunkHeaderSize);

struct PayloadChunkState {
  uint32_t epoch = 0;
  uint32_t log = 0;
  bool in_use = false;

  uint64_t Encode() const {
    return uint64_t{epoch} << 32 | uint64_t{log} << 8 | uint64_t{in_use};
  }
  static PayloadChunkState Decode(uint64_t w) {
    return {static_cast<uint32_t>(w >> 32),
            static_cast<uint32_t>((w >> 8) & 0xFFFFFF), (w & 1) != 0};
  }
  // Bits 1..7 are zero in every state word written.
  static bool WellFormed(uint64_t w) { return (w & 0xFE) == 0; }
};

struct Ref {
  uint32_t chunk = 0;
  uint32_t epoch = 0;   // low kRefEpochBits of the chunk's epoch
  uint32_t offset = 0;  // byte offset of the entry in its chunk

  uint64_t Encode() const {
    return uint64_t{chunk} << (kRefEpochBits + kOffsetBits) |
           uint64_t{epoch & ((1u << kRefEpochBits) - 1)} << kOffsetBits |
           offset / 8;
  }
  static Ref Decode(uint64_t w) {
    return {
        static_cast<uint32_t>(w >> (kRefEpochBits + kOffsetBits)),
        static_cast<uint32_t>((w >> kOffsetBits) & ((1u << kRefEpochBits) - 1)),
        static_cast<uint32_t>((w & ((1u << kOffsetBits) - 1)) * 8)};
  }
  static uint32_t EpochBits(uint32_t chunk_epoch) {
    return chunk_epoch & ((1u << kRefEpochBits) - 1);
  }
};

// An expiry (Unix ms) that every clock has passed: what an expired
// record's relocated copy carries (compaction drops its value), so that a
// clock set back does not bring back a record whose value is gone.
inline constexpr uint64_t kExpiredLongAgo = 1;
// Spreads the expiry over the check's seed (odd: a bijection).
inline constexpr uint64_t kExpiryMix = 0x9E3779B97F4A7C15ull;

// Bytes an entry takes in its chunk; `expires`: with an expiry word.
constexpr uint64_t EntrySize(uint64_t key_len, uint64_t value_len,
                             bool expires) {
  return (8 + (expires ? 8 : 0) + key_len + value_len + 7) & ~uint64_t{7};
}

inline uint64_t EntryLengths(uint64_t key_len, uint64_t value_len,
                             uint32_t epoch, bool expires) {
  return key_len | value_len << 11 | uint64_t{epoch & 7} << 28 |
         uint64_t{expires} << 31;
}

inline uint32_t EntryCheck(uint64_t key_hash, std::string_view value,
                           uint32_t epoch, uint64_t offset, uint64_t lengths,
                           uint64_t expires_at_ms) {
  const uint64_t seed = key_hash ^ uint64_t{epoch} << 40 ^ offset << 8 ^
                        lengths ^ expires_at_ms * kExpiryMix;
  return static_cast<uint32_t>(
      XXH3_64bits_withSeed(value.data(), value.size(), seed));
}

// The header word of an entry; expires_at_ms = 0: without an expiry word.
inline uint64_t EntryHeader(uint64_t key_hash, std::string_view key,
                            std::string_view value, uint32_t epoch,
                            uint64_t offset, uint64_t expires_at_ms) {
  const uint64_t lengths =
      EntryLengths(key.size(), value.size(), epoch, expires_at_ms != 0);
  return lengths | uint64_t{EntryCheck(key_hash, value, epoch, offset,
                                       lengths, expires_at_ms)}
                       << 32;
}

struct EntryLayout {
  uint64_t key_len;
  uint64_t value_len;
  uint32_t epoch_bits;  // the low 3 bits of the chunk's epoch
  bool expires;         // an expiry word follows the header
  uint32_t check;
  static EntryLayout Decode(uint64_t header) {
    return {header & kMaxEntryKeyLen, (header >> 11) & kMaxEntryValueLen,
            static_cast<uint32_t>((header >> 28) & 7),
            ((header >> 31) & 1) != 0, static_cast<uint32_t>(header >> 32)};
  }
  static bool EpochMatches(uint32_t epoch_bits, uint32_t chunk_epoch) {
    return epoch_bits == (chunk_epoch & 7);
  }
  // Where the key starts, from the entry's start.
  uint64_t key_offset() const { return expires ? 16 : 8; }
  uint64_t size() const { return EntrySize(key_len, value_len, expires); }
};

}  // namespace plush::payload

#endif  // PLUSH_PAYLOAD_PAYLOAD_FORMAT_H_
