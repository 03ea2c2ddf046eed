// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Memory and persistence figures of a run, from the engine's stats and the
// process's resident memory.

#ifndef PLUSH_TOOLS_BENCH_ENGINE_FIGURES_H_
#define PLUSH_TOOLS_BENCH_ENGINE_FIGURES_H_

#include <cstdint>

#include "engine.h"
#include "run_result.h"

namespace plush::bench {

// Resident anonymous memory of this process (RssAnon in /proc/self/status),
// in bytes; 0 if unavailable. Anonymous memory only: a pool file mapped from
// /dev/shm or a disk is resident too (RssShmem, RssFile), but it is the
// engine's persistent pool, reported separately as pool bytes.
uint64_t ResidentAnonymousBytes();

// Fills the backend, memory and persistence fields of *result from the
// engine's stats now, compared with `before` (taken when the measured phase
// began) over `operations` operations, and with the resident anonymous
// memory `rss_baseline` taken before the engine was opened.
Status RecordEngineFigures(Engine& engine, const EngineStats& before,
                           uint64_t operations, uint64_t rss_baseline,
                           RunResult* result);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_ENGINE_FIGURES_H_
