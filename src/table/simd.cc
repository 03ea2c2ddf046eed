// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "table/simd.h"

#include <immintrin.h>

#include <atomic>

#include "table/table_format.h"

namespace plush::table {
namespace {

uint32_t MatchKeysScalar(const uint64_t* keys, uint64_t word,
                         uint64_t bits) {
  uint32_t mask = 0;
  for (unsigned i = 0; i < kSlotsPerBucket; ++i) {
    mask |= uint32_t{(LoadRelaxed(keys[i]) & bits) == word} << i;
  }
  return mask;
}

uint32_t FilterCandidatesScalar(const uint64_t* filter, unsigned buckets,
                                const FilterProbe& probe) {
  const uint32_t* plane =
      reinterpret_cast<const uint32_t*>(filter) + probe.plane_offset;
  uint32_t candidates = 0;
  for (unsigned b = 0; b < buckets; ++b) {
    const uint32_t block =
        std::atomic_ref<uint32_t>(const_cast<uint32_t&>(plane[b]))
            .load(std::memory_order_relaxed);
    candidates |= uint32_t{(block & probe.mask) == probe.mask} << b;
  }
  return candidates;
}

using MatchKeysFn = uint32_t (*)(const uint64_t*, uint64_t, uint64_t);
using FilterCandidatesFn = uint32_t (*)(const uint64_t*, unsigned,
                                        const FilterProbe&);

#if !defined(__SANITIZE_THREAD__)
__attribute__((target("avx512f"))) uint32_t MatchKeysAvx512(
    const uint64_t* keys, uint64_t word, uint64_t bits) {
  const __m512i needle = _mm512_set1_epi64(static_cast<long long>(word));
  const __m512i used = _mm512_set1_epi64(static_cast<long long>(bits));
  const __mmask8 low = _mm512_cmpeq_epi64_mask(
      _mm512_and_si512(_mm512_loadu_si512(keys), used), needle);
  const __mmask8 high = _mm512_cmpeq_epi64_mask(
      _mm512_and_si512(_mm512_loadu_si512(keys + 8), used), needle);
  return uint32_t{low} | uint32_t{high} << 8;
}

__attribute__((target("avx512f"))) uint32_t FilterCandidatesAvx512(
    const uint64_t* filter, unsigned buckets, const FilterProbe& probe) {
  // A plane has `fanout` <= 16 blocks: load exactly the ones in use.
  const __mmask16 used = static_cast<__mmask16>((1u << buckets) - 1);
  const __m512i blocks = _mm512_maskz_loadu_epi32(
      used, reinterpret_cast<const uint32_t*>(filter) + probe.plane_offset);
  const __m512i mask = _mm512_set1_epi32(static_cast<int>(probe.mask));
  return _mm512_mask_cmpeq_epi32_mask(used, _mm512_and_si512(blocks, mask),
                                      mask);
}

__attribute__((target("avx2"))) uint32_t MatchKeysAvx2(const uint64_t* keys,
                                                       uint64_t word,
                                                       uint64_t bits) {
  const __m256i needle = _mm256_set1_epi64x(static_cast<long long>(word));
  const __m256i used = _mm256_set1_epi64x(static_cast<long long>(bits));
  uint32_t mask = 0;
  for (unsigned i = 0; i < kSlotsPerBucket; i += 4) {
    const __m256i eq = _mm256_cmpeq_epi64(
        _mm256_and_si256(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i)),
            used),
        needle);
    mask |= static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(eq)))
            << i;
  }
  return mask;
}

uint32_t MatchKeysFirstCall(const uint64_t* keys, uint64_t word,
                            uint64_t bits);
uint32_t FilterCandidatesFirstCall(const uint64_t* filter, unsigned buckets,
                                   const FilterProbe& probe);

// Constant-initialized (no code runs before main): a DB opened from another
// translation unit's static initializer must find working kernels. The
// first call chooses them.
std::atomic<MatchKeysFn> match_keys{MatchKeysFirstCall};
std::atomic<FilterCandidatesFn> filter_candidates{FilterCandidatesFirstCall};

void ChooseKernels() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    match_keys.store(MatchKeysAvx512, std::memory_order_relaxed);
    filter_candidates.store(FilterCandidatesAvx512, std::memory_order_relaxed);
  } else if (__builtin_cpu_supports("avx2")) {
    match_keys.store(MatchKeysAvx2, std::memory_order_relaxed);
    filter_candidates.store(FilterCandidatesScalar, std::memory_order_relaxed);
  } else {
    match_keys.store(MatchKeysScalar, std::memory_order_relaxed);
    filter_candidates.store(FilterCandidatesScalar, std::memory_order_relaxed);
  }
}

uint32_t MatchKeysFirstCall(const uint64_t* keys, uint64_t word,
                            uint64_t bits) {
  ChooseKernels();
  return match_keys.load(std::memory_order_relaxed)(keys, word, bits);
}

uint32_t FilterCandidatesFirstCall(const uint64_t* filter, unsigned buckets,
                                   const FilterProbe& probe) {
  ChooseKernels();
  return filter_candidates.load(std::memory_order_relaxed)(filter, buckets,
                                                           probe);
}
#else
// ThreadSanitizer: the atomic-load versions only.
std::atomic<MatchKeysFn> match_keys{MatchKeysScalar};
std::atomic<FilterCandidatesFn> filter_candidates{FilterCandidatesScalar};
#endif

}  // namespace

uint32_t MatchKeys(const uint64_t* keys, uint64_t word, uint64_t bits) {
  return match_keys.load(std::memory_order_relaxed)(keys, word, bits);
}

uint32_t FilterCandidates(const uint64_t* filter, unsigned buckets,
                          const FilterProbe& probe) {
  return filter_candidates.load(std::memory_order_relaxed)(filter, buckets,
                                                           probe);
}

}  // namespace plush::table
