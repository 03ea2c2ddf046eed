// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The loaded records that a run may have deleted, one bit each, so that the
// result check can tell a record lost by the engine from one the workload
// removed. A record is added before its Delete is issued: a lookup that
// misses it afterwards always sees the bit.

#ifndef PLUSH_TOOLS_BENCH_DELETED_SET_H_
#define PLUSH_TOOLS_BENCH_DELETED_SET_H_

#include <atomic>
#include <cstdint>
#include <vector>

namespace plush::bench {

class DeletedSet {
 public:
  explicit DeletedSet(uint64_t records) : words_((records + 63) / 64) {}

  void Add(uint64_t record) {
    words_[record / 64].fetch_or(Bit(record), std::memory_order_release);
  }
  bool Contains(uint64_t record) const {
    return (words_[record / 64].load(std::memory_order_acquire) &
            Bit(record)) != 0;
  }

 private:
  static uint64_t Bit(uint64_t record) { return uint64_t{1} << (record % 64); }

  std::vector<std::atomic<uint64_t>> words_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_DELETED_SET_H_
