// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Checksums of byte ranges: xxHash's XXH64 with its default seed, 0.
// On-media headers store them (docs/format.md), so that this never
// changes. (The hash of keys, with the format's own seed, is
// placement/key_hash.h.)

#ifndef PLUSH_UTIL_HASH_H_
#define PLUSH_UTIL_HASH_H_

#include <cstddef>
#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace plush {

// Checksum of `size` bytes at `data` (an on-media header: superblock,
// level descriptors, range map).
inline uint64_t Checksum(const void* data, size_t size) {
  return XXH64(data, size, 0);
}

}  // namespace plush

#endif  // PLUSH_UTIL_HASH_H_
