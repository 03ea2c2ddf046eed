// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Compares one 8-byte word against the 16 keys of a bucket at once.
// The implementation is chosen at load time for the CPU at hand (AVX-512,
// AVX2 or scalar; GCC function multi-versioning), since the machines that
// build Plush and the ones that run it may differ.

#ifndef PLUSH_TABLE_KEY_MATCH_H_
#define PLUSH_TABLE_KEY_MATCH_H_

#include <cstdint>

namespace plush::table {

// Bit i of the result is set iff keys[i] == word.
uint32_t MatchKeys(const uint64_t* keys, uint64_t word);

}  // namespace plush::table

#endif  // PLUSH_TABLE_KEY_MATCH_H_
