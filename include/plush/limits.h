// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The limits and the format version that every layer of Plush shares
// (included by db.h; a leaf header on purpose, so that the engine's lower
// layers can use these without depending on the whole API).

#ifndef PLUSH_LIMITS_H_
#define PLUSH_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace plush {

// Keys are 0..kMaxKeySize bytes, values 0..kMaxValueSize bytes (the empty
// key and the empty value are valid). Larger ones are InvalidArgument.
inline constexpr size_t kMaxKeySize = 1024;
inline constexpr size_t kMaxValueSize = 64 * 1024;

// A WriteBatch holds at most this many operations, and at most this many
// bytes of keys and values (WriteBatch::ApproximateSize); larger batches
// are InvalidArgument. Every pool takes every batch within both.
inline constexpr size_t kMaxBatchRecords = 1 << 16;
inline constexpr size_t kMaxBatchBytes = 64 << 20;

// The on-media format version this library writes and reads
// (docs/format.md). Pools of any other version are refused with
// NotSupported (nothing has been released: earlier formats are retired;
// plush dump | plush load copies a pool across versions).
inline constexpr uint32_t kFormatVersion = 4;

}  // namespace plush

#endif  // PLUSH_LIMITS_H_
