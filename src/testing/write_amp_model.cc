// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/write_amp_model.h"

#include <immintrin.h>

namespace plush::media {
namespace {

class ModelLock {
 public:
  explicit ModelLock(std::atomic<bool>& busy) : busy_(busy) {
    while (busy_.exchange(true, std::memory_order_acquire)) _mm_pause();
  }
  ~ModelLock() { busy_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool>& busy_;
};

}  // namespace

void WriteAmpModel::RecordLines(uint64_t offset, uint64_t count) {
  ModelLock lock(busy_);
  uint64_t previous = ~0ull;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t xpline = (offset + i * 64) / kXPLineSize;
    if (xpline != previous) Touch(xpline);
    previous = xpline;
  }
}

void WriteAmpModel::Touch(uint64_t xpline) {
  ++clock_;
  unsigned victim = 0;
  for (unsigned i = 0; i < kBufferLines; ++i) {
    if (lines_[i] == xpline + 1) {
      last_use_[i] = clock_;
      return;
    }
    if (last_use_[i] < last_use_[victim]) victim = i;
  }
  if (lines_[victim] != 0) ++evictions_;
  lines_[victim] = xpline + 1;
  last_use_[victim] = clock_;
}

uint64_t WriteAmpModel::MediaBytes() const {
  ModelLock lock(busy_);
  uint64_t resident = 0;
  for (uint64_t line : lines_) resident += line != 0;
  return (evictions_ + resident) * kXPLineSize;
}

}  // namespace plush::media
