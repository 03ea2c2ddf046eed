// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A model of how Intel Optane PMem turns flushed cache lines into media
// writes, so that media write amplification can be measured on machines
// without PMem (docs/benchmarks.md#what-decides-write-amplification).
//
// The media writes 256-byte blocks ("XPLines"). Flushed 64-byte lines enter
// a small write-combining buffer of XPLines managed LRU; a line whose
// XPLine is already buffered is combined for free, otherwise the least
// recently used XPLine is written to the media (256 bytes) to make room.
// Sequential flushes therefore cost 256 bytes per four lines, random ones
// 256 bytes per line.
//
// The model is exact for the order in which Flush() calls reach it: each
// call is recorded atomically. Thread safety: all methods are thread-safe.

#ifndef PLUSH_TESTING_WRITE_AMP_MODEL_H_
#define PLUSH_TESTING_WRITE_AMP_MODEL_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace plush::media {

class WriteAmpModel {
 public:
  static constexpr uint64_t kXPLineSize = 256;
  static constexpr unsigned kBufferLines = 64;

  // Records `count` consecutive 64-byte lines starting at byte `offset`.
  void RecordLines(uint64_t offset, uint64_t count);

  // Bytes written to the media so far, counting the XPLines still in the
  // buffer as if they were written now.
  uint64_t MediaBytes() const;

 private:
  void Touch(uint64_t xpline);

  mutable std::atomic<bool> busy_{false};
  std::array<uint64_t, kBufferLines> lines_{};  // XPLine numbers + 1; 0 = empty
  std::array<uint64_t, kBufferLines> last_use_{};
  uint64_t clock_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_WRITE_AMP_MODEL_H_
