// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Key bytes as big-endian words: the first 16 (two words) order most keys
// without comparing them whole (the range map's search, scans,
// re-balances).

#ifndef PLUSH_UTIL_KEY_PREFIX_H_
#define PLUSH_UTIL_KEY_PREFIX_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace plush {

// The first 8 bytes of a key as a big-endian number, zero-padded: keys in
// byte order have non-decreasing prefixes. Loads whole words: a copy of a
// variable length into a word that is then read as one stalls the read
// until the copy's bytes are stored (a scan takes a prefix of every key
// it reads; that stall was a third of its time).
inline uint64_t KeyPrefix(std::string_view key) {
  const char* p = key.data();
  const size_t n = key.size();
  if (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    return __builtin_bswap64(word);
  }
  if (n >= 4) {
    // The first 4 bytes and the last 4, which overlap them.
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    return uint64_t{__builtin_bswap32(first)} << 32 |
           uint64_t{__builtin_bswap32(last)} << (8 * (8 - n));
  }
  uint64_t prefix = 0;
  for (size_t i = 0; i < n; ++i)
    prefix |= uint64_t{static_cast<unsigned char>(p[i])} << (56 - 8 * i);
  return prefix;
}

// Bytes 8-15 of a key as KeyPrefix reads bytes 0-7: with it, the key's
// first 16 bytes in two words.
inline uint64_t KeySecondWord(std::string_view key) {
  return KeyPrefix(key.size() > 8 ? key.substr(8) : std::string_view());
}

// The number of leading bytes `a` and `b` share.
inline size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace plush

#endif  // PLUSH_UTIL_KEY_PREFIX_H_
