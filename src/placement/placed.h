// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The one way work that places keys is done: a re-balance may change a
// range pool's map between placing a key and using the unit it named, and
// the work must then be placed and done again on the new map.
//
//   Placed(hasher, [&](uint64_t version, bool* moved) -> Status {
//     ... place keys (KeyHasher), with `version` read before placing ...
//     ... do the work on the units they named, and set *moved if the map
//         is no longer at `version`: a writer tells under the unit's lock
//         (WritePath::Write reports it), a reader after reading
//         (KeyHasher::Unchanged) ...
//   });
//
// The work is called again while it reports *moved and returns OK; a
// write that found its key moved has written nothing. Hash pools have no
// map: their work never moves.

#ifndef PLUSH_PLACEMENT_PLACED_H_
#define PLUSH_PLACEMENT_PLACED_H_

#include <cstdint>

#include "placement/key_hasher.h"
#include "plush/status.h"

namespace plush {

template <typename Work>
Status Placed(const KeyHasher& hasher, Work work) {
  for (;;) {
    bool moved = false;
    Status s = work(hasher.version(), &moved);
    if (!s.ok() || !moved) return s;
  }
}

}  // namespace plush

#endif  // PLUSH_PLACEMENT_PLACED_H_
