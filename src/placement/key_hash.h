// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The 64-bit hash of a key: XXH3 with the format's seed. It decides the
// key's directory entry on every level, its recovery log and its filter
// bits, through the table hash (placement/key_hasher.h). The seed is part
// of the on-media format (a pool written with one seed is unreadable with
// another; docs/format.md §4): DO NOT CHANGE.

#ifndef PLUSH_PLACEMENT_KEY_HASH_H_
#define PLUSH_PLACEMENT_KEY_HASH_H_

#include <cstdint>
#include <string_view>

#include "util/hash.h"

namespace plush {

inline constexpr uint64_t kKeyHashSeed = 0x706c757368ull;  // "plush"

// The hash of a key.
inline uint64_t KeyHash(std::string_view key) {
  return XXH3_64bits_withSeed(key.data(), key.size(), kKeyHashSeed);
}

// KeyHash of an 8-byte key stored inline as a little-endian word.
inline uint64_t InlineKeyHash(uint64_t key_word) {
  return XXH3_64bits_withSeed(&key_word, sizeof(key_word), kKeyHashSeed);
}

// A hash of keys in place of KeyHash: EngineSeams::key_hash.
using KeyHashFunction = uint64_t (*)(std::string_view key);

}  // namespace plush

#endif  // PLUSH_PLACEMENT_KEY_HASH_H_
