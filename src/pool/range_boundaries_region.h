// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reads and writes the range boundaries region of a pool (pool_format.h,
// RangeBoundariesHeader; docs/format.md, "Range boundaries"): range pools
// created with a key sample by earlier versions (kRangeByBoundaries) keep
// their fixed boundaries in it. This version only reads it.

#ifndef PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_
#define PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_

#include <cstdint>

#include "media/media.h"
#include "plush/status.h"
#include <string>
#include <vector>

namespace plush::pool {

// Reads the region at `offset`, which must end at or before `limit`, and
// checks it: its checksums, 2^dram_bits - 1 keys of valid lengths, in
// ascending order. Corruption naming what is wrong otherwise.
Status ReadRangeBoundaries(const media::Media& media, uint64_t offset,
                           uint64_t limit, unsigned dram_bits,
                           std::vector<std::string>* boundaries);

}  // namespace plush::pool

#endif  // PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_
