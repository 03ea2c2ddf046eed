// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Hashing for record placement and checksums for on-media headers, both
// from xxHash. The seeds are part of the on-media format (a pool written
// with one seed is unreadable with another): DO NOT CHANGE.

#ifndef PLUSH_UTIL_HASH_H_
#define PLUSH_UTIL_HASH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace plush {

inline constexpr uint64_t kKeyHashSeed = 0x706c757368ull;  // "plush"

using KeyHashFunction = uint64_t (*)(std::string_view key);

// Tests only: replaces the hash of keys that are not 8 bytes long (8-byte
// keys keep theirs: inline slots are rehashed from their key word), e.g.
// to force collisions. Pass nullptr to restore. Set it while no DB is open.
inline std::atomic<KeyHashFunction> key_hash_override_for_testing{nullptr};

// The 64-bit hash of a key; decides its directory entry on every level,
// its recovery log, and its filter bits.
inline uint64_t KeyHash(std::string_view key) {
  if (key.size() != 8) {
    const KeyHashFunction override_hash =
        key_hash_override_for_testing.load(std::memory_order_relaxed);
    if (override_hash != nullptr) [[unlikely]]
      return override_hash(key);
  }
  return XXH3_64bits_withSeed(key.data(), key.size(), kKeyHashSeed);
}

// KeyHash of an 8-byte key stored inline as a little-endian word.
inline uint64_t InlineKeyHash(uint64_t key_word) {
  return XXH3_64bits_withSeed(&key_word, sizeof(key_word), kKeyHashSeed);
}

// Checksum of an on-media header (superblock, level descriptors).
inline uint64_t Checksum(const void* data, size_t size) {
  return XXH64(data, size, 0);
}

}  // namespace plush

#endif  // PLUSH_UTIL_HASH_H_
