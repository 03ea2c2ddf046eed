// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The partitioned bloom filter of a directory entry (paper §4.1): 256 bytes
// split into one partition per bucket (256 / fanout bytes each; 16 bytes =
// 8 bits per key at fanout 16). A key sets kProbeBits bits of the partition
// of the bucket it is stored in; a lookup tests its bits in every partition
// and searches only the buckets whose partition may hold it.
//
// Bit positions come from a remix of the key hash, independent of the low
// hash bits that choose directory entries. kProbeBits and the remix are part
// of the on-media format: DO NOT CHANGE.

#ifndef PLUSH_TABLE_FILTER_H_
#define PLUSH_TABLE_FILTER_H_

#include <cstdint>

#include "table/table_format.h"

namespace plush::table {

inline constexpr unsigned kProbeBits = 4;

// The words and bits one key touches inside any partition.
struct FilterProbe {
  uint8_t word[kProbeBits];
  uint64_t mask[kProbeBits];
};

// words_per_partition = 32 / fanout.
inline FilterProbe MakeProbe(uint64_t hash, unsigned words_per_partition) {
  // Fibonacci-hashing remix: every output bit depends on all input bits.
  const uint64_t mixed = (hash ^ (hash >> 29)) * 0x9E3779B97F4A7C15ull;
  const unsigned bits = words_per_partition * 64;
  FilterProbe probe;
  for (unsigned i = 0; i < kProbeBits; ++i) {
    const unsigned pos = static_cast<unsigned>(mixed >> (64 - 12 * (i + 1))) & (bits - 1);
    probe.word[i] = static_cast<uint8_t>(pos / 64);
    probe.mask[i] = uint64_t{1} << (pos % 64);
  }
  return probe;
}

// Sets the key's bits in the partition of `bucket`. With `first_in_bucket`
// (the key goes to slot 0) the partition is reset first: a bucket refilled
// from its first slot forgets the keys it held before, so clearing an entry
// never has to touch its filter. Single writer.
inline void FilterAdd(uint64_t* filter, unsigned bucket, const FilterProbe& probe,
                      unsigned words_per_partition, bool first_in_bucket) {
  uint64_t* partition = filter + bucket * words_per_partition;
  if (first_in_bucket) {
    for (unsigned w = 0; w < words_per_partition; ++w) StoreRelaxed(partition[w], 0);
  }
  for (unsigned i = 0; i < kProbeBits; ++i) {
    uint64_t& w = partition[probe.word[i]];
    StoreRelaxed(w, LoadRelaxed(w) | probe.mask[i]);
  }
}

// Bit b of the result is set iff bucket b (< buckets) may hold the key.
// Branch-free, so that a lookup's loads stay in flight together.
inline uint32_t FilterCandidates(const uint64_t* filter, unsigned buckets,
                                 const FilterProbe& probe,
                                 unsigned words_per_partition) {
  uint64_t need[kFilterBytes / 8] = {};  // bits required in word w of a partition
  for (unsigned i = 0; i < kProbeBits; ++i) need[probe.word[i]] |= probe.mask[i];
  uint32_t candidates = 0;
  for (unsigned b = 0; b < buckets; ++b) {
    const uint64_t* partition = filter + b * words_per_partition;
    uint64_t missing = 0;
    for (unsigned w = 0; w < words_per_partition; ++w) {
      missing |= need[w] & ~LoadRelaxed(partition[w]);
    }
    candidates |= uint32_t{missing == 0} << b;
  }
  return candidates;
}

}  // namespace plush::table

#endif  // PLUSH_TABLE_FILTER_H_
