// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The process's own DRAM, as the kernel accounts it.

#ifndef PLUSH_TOOLS_BENCH_MEMORY_USAGE_H_
#define PLUSH_TOOLS_BENCH_MEMORY_USAGE_H_

#include <cstdint>

namespace plush::bench {

// Resident anonymous memory of this process (RssAnon in /proc/self/status),
// in bytes; 0 if unavailable. Anonymous memory only: a pool file mapped from
// /dev/shm or a disk is resident too (RssShmem, RssFile), but it is the
// engine's persistent pool, reported separately as pool bytes.
uint64_t ResidentAnonymousBytes();

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_MEMORY_USAGE_H_
