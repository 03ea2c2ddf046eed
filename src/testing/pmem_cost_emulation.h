// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Benchmark instrumentation (InternalOptions::emulate_pmem_costs): makes
// the file back end issue the cache-line flushes, fences and non-temporal
// stores that the pmem back end would, so that benchmarks run on DRAM
// compare fairly with PMem data structures. Changes speed, not the
// guarantee. It replaces the media's primitives (PersistOps) once, when
// the media is opened: the plain file back end has no branch for it.

#ifndef PLUSH_TESTING_PMEM_COST_EMULATION_H_
#define PLUSH_TESTING_PMEM_COST_EMULATION_H_

#include "media/media.h"

namespace plush::media {

// Gives `media` PMem's persistence costs if it is of the file back end;
// leaves the pmem back end (which pays them) and the sim back end alone.
// REQUIRES: no concurrent use of the media.
void EmulatePmemCosts(Media* media);

}  // namespace plush::media

#endif  // PLUSH_TESTING_PMEM_COST_EMULATION_H_
