// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "table/key_match.h"

#include <immintrin.h>

#include "table/table_format.h"

namespace plush::table {

#if defined(__SANITIZE_THREAD__)
// Keys are read while a migration may overwrite them (the reader then
// retries); TSan needs to see those reads as atomic.
uint32_t MatchKeys(const uint64_t* keys, uint64_t word) {
  uint32_t mask = 0;
  for (unsigned i = 0; i < kSlotsPerBucket; ++i) {
    mask |= uint32_t{LoadRelaxed(keys[i]) == word} << i;
  }
  return mask;
}
#else
__attribute__((target("avx512f"))) static uint32_t MatchKeysAvx512(
    const uint64_t* keys, uint64_t word) {
  const __m512i needle = _mm512_set1_epi64(static_cast<long long>(word));
  const __mmask8 low = _mm512_cmpeq_epi64_mask(_mm512_loadu_si512(keys), needle);
  const __mmask8 high = _mm512_cmpeq_epi64_mask(_mm512_loadu_si512(keys + 8), needle);
  return uint32_t{low} | uint32_t{high} << 8;
}

__attribute__((target("avx2"))) static uint32_t MatchKeysAvx2(const uint64_t* keys,
                                                              uint64_t word) {
  const __m256i needle = _mm256_set1_epi64x(static_cast<long long>(word));
  uint32_t mask = 0;
  for (unsigned i = 0; i < kSlotsPerBucket; i += 4) {
    const __m256i eq = _mm256_cmpeq_epi64(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i)), needle);
    mask |= static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(eq))) << i;
  }
  return mask;
}

static uint32_t MatchKeysScalar(const uint64_t* keys, uint64_t word) {
  uint32_t mask = 0;
  for (unsigned i = 0; i < kSlotsPerBucket; ++i) mask |= uint32_t{keys[i] == word} << i;
  return mask;
}

using MatchFn = uint32_t (*)(const uint64_t*, uint64_t);

static MatchFn ChooseMatch() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return MatchKeysAvx512;
  if (__builtin_cpu_supports("avx2")) return MatchKeysAvx2;
  return MatchKeysScalar;
}

static const MatchFn kMatch = ChooseMatch();

uint32_t MatchKeys(const uint64_t* keys, uint64_t word) { return kMatch(keys, word); }
#endif

}  // namespace plush::table

