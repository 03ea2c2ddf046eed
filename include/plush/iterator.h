// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// An iterator over every live record of a pool: the newest version of each
// key, deleted keys skipped, each key once.
//
// The pool is cut into partitions (the keys of one DRAM directory entry:
// 2^dram_directory_bits of them; in a range pool, the key ranges of its
// map, in key order), visited in order. The iterator reads a partition
// atomically, holding its writer lock while it copies it: within a
// partition it returns the state of one moment. Seek, SeekToFirst and
// SeekToPartition read their partition when called, Next reads the next
// partition when the current one is used up (in a range pool: the range
// that holds the key where the last one ended), so later partitions may
// show later writes.
//
// Range-partitioned pools (Options::partitioning = kRange) order their
// partitions by key: keys come in strictly ascending byte order, and Seek
// positions at the first key >= a target. Hash-partitioned pools spread
// keys over partitions by hash: keys come in ascending order within a
// partition only, and Seek is NotSupported (the iterator is then invalid
// and status() says so); SeekToFirst and SeekToPartition work. A hash
// pool's partition index makes a resumable cursor (e.g. for a SCAN
// command): its partitions stay the same for the pool's life. A range
// pool's partitions move as it re-balances (a merge of two ranges shifts
// the indexes of those after them): resume a range pool's iteration with
// Seek at the next key instead. See docs/api.md.
//
// Thread safety: an Iterator must not be used by two threads at once;
// different iterators may be used concurrently with each other and with
// writers. An iterator must be destroyed before its DB.

#ifndef PLUSH_ITERATOR_H_
#define PLUSH_ITERATOR_H_

#include <cstdint>
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
  // Positions at the first key >= target (range pools; NotSupported on
  // hash pools).
  virtual void Seek(std::string_view target) = 0;
  // Positions at the first record (the smallest key of a range pool).
  virtual void SeekToFirst() = 0;
  // Positions at the first record of partition `partition` or of a later
  // one (invalid, with an OK status, past the last partition).
  virtual void SeekToPartition(uint64_t partition) = 0;
  // The partition of the current record. REQUIRES: Valid().
  virtual uint64_t partition() const = 0;
  // Moves to the next key. REQUIRES: Valid().
  virtual void Next() = 0;
  // The current record; valid until the next call that moves the iterator.
  // REQUIRES: Valid().
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // When the current record expires (Unix ms on Options::clock; 0: never).
  // An iterator yields no record that had expired when it read it.
  // REQUIRES: Valid().
  virtual uint64_t expires_at_ms() const { return 0; }
  // OK unless an error occurred (or Seek was called on a hash pool).
  virtual Status status() const = 0;
};

}  // namespace plush

#endif  // PLUSH_ITERATOR_H_
