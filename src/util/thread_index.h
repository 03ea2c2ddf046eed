// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A small, dense index per live thread: what sharded counters and
// per-thread payload logs spread threads by.

#ifndef PLUSH_UTIL_THREAD_INDEX_H_
#define PLUSH_UTIL_THREAD_INDEX_H_

namespace plush {

inline constexpr unsigned kThreadIndexes = 64;

// The index this thread owns (< kThreadIndexes), or kThreadIndexes if all
// are taken. The lowest free index is taken at a thread's first call and
// returned when the thread exits, so that live threads hold 0, 1, 2, ...
unsigned ThreadIndex();

}  // namespace plush

#endif  // PLUSH_UTIL_THREAD_INDEX_H_
