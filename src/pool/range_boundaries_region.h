// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reads and writes the range boundaries region of a pool (pool_format.h,
// RangeBoundariesHeader; docs/format.md, "Range boundaries").

#ifndef PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_
#define PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_

#include <cstdint>
#include <memory>

#include "media/media.h"
#include "plush/status.h"
#include "util/range_boundaries.h"

namespace plush::pool {

// Bytes the region of `boundaries` takes, header included.
uint64_t RangeBoundariesRegionBytes(const RangeBoundaries& boundaries);

// Writes and flushes (does not fence) the region at `offset`.
// REQUIRES: RangeBoundariesRegionBytes() bytes of the media from there.
void WriteRangeBoundaries(media::Media* media, uint64_t offset,
                          const RangeBoundaries& boundaries);

// Reads the region at `offset`, which must end at or before `limit`, and
// checks it: its checksums, 2^dram_bits - 1 keys of valid lengths, in
// ascending order. Corruption naming what is wrong otherwise.
Status ReadRangeBoundaries(const media::Media& media, uint64_t offset,
                           uint64_t limit, unsigned dram_bits,
                           std::shared_ptr<const RangeBoundaries>* boundaries);

}  // namespace plush::pool

#endif  // PLUSH_POOL_RANGE_BOUNDARIES_REGION_H_
