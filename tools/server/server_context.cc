// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What ServerContext learns of its pool when it is made.

#include "server_context.h"

#include "redis_integer.h"

namespace plush::server {

size_t WriteBatchLimit(DB* db) {
  constexpr size_t kInlineOnlyBatchBytes = 1 << 20;
  Stats stats;
  if (!db->GetStats(&stats).ok() || stats.payload_log_count == 0) {
    return kInlineOnlyBatchBytes;
  }
  return stats.payload_chunk_size;
}

bool IsRangePool(DB* pool) {
  std::string partitioning;
  return pool->GetProperty("plush.partitioning", &partitioning).ok() &&
         partitioning == "range";
}

uint64_t PartitionCount(DB* pool) {
  std::string bits;
  if (!pool->GetProperty("plush.dram_directory_bits", &bits).ok()) return 1;
  const std::optional<uint64_t> n = ParseUnsigned(bits);
  return n && *n < 64 ? uint64_t{1} << *n : 1;
}

}  // namespace plush::server
