// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The table's two inner loops, in CPU-specific versions chosen at load time
// (AVX-512, AVX2 or scalar), since the machines that build Plush and the
// ones that run it may differ. Under ThreadSanitizer both read with atomic
// loads instead: they read words that a migration may be overwriting (the
// reader then retries), and TSan must see those reads as atomic.

#ifndef PLUSH_TABLE_SIMD_H_
#define PLUSH_TABLE_SIMD_H_

#include <cstdint>

#include "table/filter.h"

namespace plush::table {

// Bit i of the result is set iff (keys[i] & bits) == word (16 keys of a
// bucket; `bits`: those of a key word that hold the table hash).
uint32_t MatchKeys(const uint64_t* keys, uint64_t word,
                   uint64_t bits = ~uint64_t{0});

// Bit b of the result is set iff bucket b (< buckets) may hold the key.
uint32_t FilterCandidates(const uint64_t* filter, unsigned buckets,
                          const FilterProbe& probe);

}  // namespace plush::table

#endif  // PLUSH_TABLE_SIMD_H_
