// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool/allocator.h"

#include <algorithm>
#include <atomic>

namespace plush::pool {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) & ~(alignment - 1);
}

}  // namespace

Allocator::Allocator(media::Media* media, RootPage* root,
                     uint64_t heap_offset, uint64_t max_pool_size)
    : media_(media),
      heap_offset_(heap_offset),
      root_(root),
      max_pool_size_(max_pool_size),
      cursor_(root->alloc_high_water),
      mark_(root->alloc_high_water) {}

uint64_t Allocator::used_bytes() const {
  MutexLock lock(&mu_);
  return cursor_;
}

void Allocator::TrimMark() {
  MutexLock lock(&mu_);
  // Page-aligned, like every mark: a pool file truncated at its mark is
  // still a whole number of pages.
  const uint64_t trimmed = AlignUp(cursor_, kPageSize);
  std::atomic_ref<uint64_t>(root_->alloc_high_water)
      .store(trimmed, std::memory_order_relaxed);
  mark_.store(trimmed, std::memory_order_release);
  media_->Persist(&root_->alloc_high_water, sizeof(uint64_t));
}

uint64_t Allocator::GrowthTarget(uint64_t mapped, uint64_t end) const {
  const uint64_t step = media::Media::kGrowAlignment;
  const uint64_t limit = std::min(max_pool_size_, uint64_t{1} << 62);
  const uint64_t heap = mapped - std::min(mapped, heap_offset_);
  const uint64_t grown = mapped + heap / kGrowthDivisor;
  return std::min(AlignUp(std::max(end, grown), step), AlignUp(limit, step));
}

Status Allocator::EnsureMapped(uint64_t end) {
  mu_.AssertHeld();
  if (end <= media_->size()) return Status::OK();
  const uint64_t limit = std::min(max_pool_size_, uint64_t{1} << 62);
  if (end > limit) {
    return Status::NoSpace("pool is full: needs " + std::to_string(end) +
                           " bytes, max_pool_size is " +
                           std::to_string(max_pool_size_));
  }
  MutexLock grow(&grow_mu_);
  const uint64_t mapped = media_->size();  // GrowAhead may have grown it
  if (end <= mapped) return Status::OK();
  // Fall back to the exact need when the larger step does not fit.
  const uint64_t wanted = GrowthTarget(mapped, end);
  const uint64_t exact = AlignUp(end, media::Media::kGrowAlignment);
  Status s = media_->Grow(wanted);
  if (!s.ok() && wanted > exact) s = media_->Grow(exact);
  return s;
}

void Allocator::GrowAhead() {
  const uint64_t mapped = media_->size();
  const uint64_t heap = mapped - std::min(mapped, heap_offset_);
  const uint64_t step =
      AlignUp(std::min(kMaxGrowAheadStep, heap / kGrowthDivisor),
              media::Media::kGrowAlignment);
  if (mark() + step <= mapped) return;
  MutexLock grow(&grow_mu_);
  if (media_->size() != mapped) return;  // grown meanwhile
  const uint64_t limit =
      AlignUp(std::min(max_pool_size_, uint64_t{1} << 62),
              media::Media::kGrowAlignment);
  (void)media_->Grow(std::min(mapped + step, limit));
}

Status Allocator::Allocate(uint64_t size, uint64_t alignment,
                           uint64_t* offset) {
  MutexLock lock(&mu_);
  const uint64_t begin = AlignUp(cursor_, alignment);
  const uint64_t end = begin + size;
  std::atomic_ref<uint64_t> high_water(root_->alloc_high_water);
  const uint64_t mark = high_water.load(std::memory_order_relaxed);
  if (end > mark) {
    const uint64_t new_mark = std::max(end, AlignUp(mark + kSlab, kSlab));
    Status s = EnsureMapped(new_mark);
    if (!s.ok()) {
      if (new_mark == end) return s;
      s = EnsureMapped(end);  // the slab does not fit; the exact need may
      if (!s.ok()) return s;
    }
    const uint64_t advanced = std::min(new_mark, media_->size());
    high_water.store(advanced, std::memory_order_relaxed);
    mark_.store(advanced, std::memory_order_release);
    media_->Persist(&root_->alloc_high_water, sizeof(uint64_t));
  }
  cursor_ = end;
  *offset = begin;
  return Status::OK();
}

}  // namespace plush::pool
