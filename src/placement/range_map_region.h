// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reads and writes one copy of a range pool's map (placement/range_map.h;
// range_map_format.h, RangeMapHeader; docs/format.md, "Range map"). The pool
// keeps two such regions and switches between them (range_map_store.h).

#ifndef PLUSH_PLACEMENT_RANGE_MAP_REGION_H_
#define PLUSH_PLACEMENT_RANGE_MAP_REGION_H_

#include <cstdint>
#include <vector>

#include "media/media.h"
#include "placement/range_map.h"
#include "plush/status.h"

namespace plush {

// Bytes the region of `layout` takes, header included.
uint64_t RangeMapRegionBytes(const RangeMap::Layout& layout);

// Writes and flushes (does not fence) the region at `offset`.
// REQUIRES: RangeMapRegionBytes() bytes of the media from there.
void WriteRangeMap(media::Media* media, uint64_t offset, unsigned unit_bits,
                   uint64_t generation, const RangeMap::Layout& layout);

// Reads the region at `offset`, which ends at `limit`, and
// checks it: its checksums, a map of 2^unit_bits units (RangeMap::Invalid).
// Corruption naming what is wrong otherwise.
Status ReadRangeMap(const media::Media& media, uint64_t offset, uint64_t limit,
                    unsigned unit_bits, uint64_t* generation,
                    RangeMap::Layout* layout);

// Bytes `change` takes in a change log.
uint64_t RangeChangeBytes(const RangeMap::Change& change);

// Writes and flushes (does not fence) `change` at `offset` as change
// `index` after the base of generation `base_generation`.
// REQUIRES: RangeChangeBytes(change) bytes of the media from there.
void WriteRangeChange(media::Media* media, uint64_t offset,
                      uint64_t base_generation, uint32_t index,
                      const RangeMap::Change& change);

// Reads the first `count` changes of the log at [offset, offset +
// capacity), checked against `base_generation`, into *changes, and the
// offset after the last into *end. Corruption naming the change otherwise.
Status ReadRangeChanges(const media::Media& media, uint64_t offset,
                        uint64_t capacity, uint64_t base_generation,
                        uint32_t count, std::vector<RangeMap::Change>* changes,
                        uint64_t* end);

}  // namespace plush

#endif  // PLUSH_PLACEMENT_RANGE_MAP_REGION_H_
