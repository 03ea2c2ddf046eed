// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The 64-bit "table hash" of a key under a pool's partitioning: it decides
// the key's directory entry on every level (bits [0, d) the DRAM entry, the
// next bits its children), its recovery log, its filter bits, and it is
// what an indirect slot stores in place of the key (docs/format.md,
// "Partitioning").
//
//   hash partitioning    KeyHash(key)
//   range partitioning   KeyHash(key) << d | (first 8 key bytes, big-endian,
//                                             zero-padded) >> (64 - d)
//
// with d = dram_directory_bits. Range partitioning thus orders the DRAM
// entries by key prefix (entry i holds keys whose leading d bits are i), so
// an ordered scan visits DRAM entries in index order; below the DRAM level
// keys still spread by hash, so that a DRAM entry's subtree fills evenly
// whatever the keys look like after their first d bits.
//
// Part of the on-media format (indirect slots and payload checksums store
// the table hash): DO NOT CHANGE.

#ifndef PLUSH_UTIL_KEY_HASHER_H_
#define PLUSH_UTIL_KEY_HASHER_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#include "util/hash.h"

namespace plush {

// The first 8 bytes of a key as a big-endian number, zero-padded: keys in
// byte order have non-decreasing prefixes.
inline uint64_t KeyPrefix(std::string_view key) {
  uint64_t word = 0;  // (no memcpy from the null data() of an empty key)
  if (!key.empty())
    std::memcpy(&word, key.data(), key.size() < 8 ? key.size() : 8);
  return __builtin_bswap64(word);
}

class KeyHasher {
 public:
  // `range`: order-preserving DRAM placement on the leading `dram_bits`
  // key bits (dram_bits <= 32).
  KeyHasher(bool range, unsigned dram_bits)
      : range_(range), dram_bits_(dram_bits) {}

  bool range() const { return range_; }

  uint64_t Hash(std::string_view key) const {
    const uint64_t h = KeyHash(key);
    return range_ ? Order(h, KeyPrefix(key)) : h;
  }

  // Hash() of an 8-byte key stored inline as a little-endian word.
  uint64_t InlineHash(uint64_t key_word) const {
    const uint64_t h = InlineKeyHash(key_word);
    return range_ ? Order(h, __builtin_bswap64(key_word)) : h;
  }

 private:
  uint64_t Order(uint64_t hash, uint64_t big_endian_prefix) const {
    if (dram_bits_ == 0) return hash;
    return hash << dram_bits_ | big_endian_prefix >> (64 - dram_bits_);
  }

  bool range_;
  unsigned dram_bits_;
};

}  // namespace plush

#endif  // PLUSH_UTIL_KEY_HASHER_H_
