// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// An ordered iterator over a range-partitioned pool (Options::partitioning =
// Partitioning::kRange). It yields the newest version of every live key in
// ascending byte order and skips deleted keys.
//
// On a hash-partitioned pool an iterator is never Valid() and its status()
// is NotSupported.
//
// Isolation: the key space is cut into ordered units (the keys of one DRAM
// directory entry). The iterator reads a unit atomically, holding the
// unit's writer lock while it copies it: within a unit it returns the state
// of one moment. Seek/SeekToFirst read their unit when called, Next reads
// the next unit when the current one is used up, so later units may show
// later writes; keys always come in strictly ascending order, each once.
// See docs/api.md.
//
// Thread safety: an Iterator must not be used by two threads at once;
// different iterators may be used concurrently with each other and with
// writers. An iterator must be destroyed before its DB.

#ifndef PLUSH_ITERATOR_H_
#define PLUSH_ITERATOR_H_

#include <string_view>

#include "plush/export.h"
#include "plush/status.h"

namespace plush {

class PLUSH_EXPORT Iterator {
 public:
  Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  virtual ~Iterator() = default;

  // True iff the iterator is positioned at a record.
  virtual bool Valid() const = 0;
  // Positions at the first key >= target.
  virtual void Seek(std::string_view target) = 0;
  // Positions at the smallest key.
  virtual void SeekToFirst() = 0;
  // Moves to the next key. REQUIRES: Valid().
  virtual void Next() = 0;
  // The current record; valid until the next call that moves the iterator.
  // REQUIRES: Valid().
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // OK unless an error occurred (or the pool is hash-partitioned).
  virtual Status status() const = 0;
};

}  // namespace plush

#endif  // PLUSH_ITERATOR_H_
