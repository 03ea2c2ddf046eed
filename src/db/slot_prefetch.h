// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Reading the records of a unit (scans, re-balances): its slots come from
// CollectSubtree in one array, and the payload entries of indirect ones
// lie scattered over the payload logs, a cache miss each.

#ifndef PLUSH_DB_SLOT_PREFETCH_H_
#define PLUSH_DB_SLOT_PREFETCH_H_

#include <cstddef>
#include <vector>

#include "payload/payload_logs.h"
#include "table/leveled_table.h"

namespace plush {

// Calls visit(slot) for each slot in order, having asked for the payload
// entry of the slot kDistance places ahead: the misses overlap instead of
// following one another.
template <typename Visit>
void VisitSlotsPrefetching(const std::vector<table::Slot>& slots,
                           const payload::PayloadLogs& payload, Visit visit) {
  constexpr size_t kDistance = 16;
  auto prefetch = [&](size_t i) {
    if (i < slots.size() && slots[i].indirect)
      payload.PrefetchEntry(slots[i].value);
  };
  for (size_t i = 0; i < kDistance; ++i) prefetch(i);
  for (size_t i = 0; i < slots.size(); ++i) {
    prefetch(i + kDistance);
    visit(slots[i]);
  }
}

}  // namespace plush

#endif  // PLUSH_DB_SLOT_PREFETCH_H_
