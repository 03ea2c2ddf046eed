// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A statistics counter that many threads bump on hot paths. Each thread adds
// to its own cache line, so increments never contend; Read() sums the
// shards and may miss increments that race with it.

#ifndef PLUSH_UTIL_SHARDED_COUNTER_H_
#define PLUSH_UTIL_SHARDED_COUNTER_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace plush {

// A small integer per thread, handed out round-robin on first use.
inline unsigned ThreadShard() {
  static std::atomic<unsigned> next{0};
  thread_local const unsigned shard = next.fetch_add(1, std::memory_order_relaxed);
  return shard;
}

class ShardedCounter {
 public:
  void Add(uint64_t n) {
    shards_[ThreadShard() % kShards].value.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t Read() const {
    uint64_t sum = 0;
    for (const Shard& s : shards_) sum += s.value.load(std::memory_order_relaxed);
    return sum;
  }

 private:
  static constexpr unsigned kShards = 32;
  struct alignas(64) Shard {
    std::atomic<uint64_t> value{0};
  };
  std::array<Shard, kShards> shards_;
};

}  // namespace plush

#endif  // PLUSH_UTIL_SHARDED_COUNTER_H_
