// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/range_map_buffer.h"

#include "util/key_prefix.h"

#include <algorithm>
#include <cstring>

namespace plush {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

}  // namespace

RangeMapBuffer::Prefix RangeMapBuffer::Prefix::Of(std::string_view key) {
  return {KeyPrefix(key), KeySecondWord(key)};
}

// Blocks at least half full after a split, three quarters after a
// rebuild: twice the blocks a full map needs, and two for small maps.
RangeMapBuffer::RangeMapBuffer(size_t positions)
    : max_blocks_(2 * (positions / kBlock) + 2),
      order_(new std::atomic<uint32_t>[max_blocks_]),
      fence_(new std::atomic<uint64_t>[2 * max_blocks_]),
      size_(new std::atomic<uint32_t>[max_blocks_]),
      prefix_(new std::atomic<uint64_t>[2 * max_blocks_ * kBlock]),
      key_(new std::atomic<const std::string*>[max_blocks_ * kBlock]),
      unit_(new std::atomic<uint32_t>[max_blocks_ * kBlock]) {
  for (size_t b = 0; b < max_blocks_; ++b) {
    order_[b].store(0, kRelaxed);
    fence_[2 * b].store(0, kRelaxed);
    fence_[2 * b + 1].store(0, kRelaxed);
    size_[b].store(0, kRelaxed);
  }
  for (size_t s = 0; s < max_blocks_ * kBlock; ++s) {
    prefix_[2 * s].store(0, kRelaxed);
    prefix_[2 * s + 1].store(0, kRelaxed);
    key_[s].store(nullptr, kRelaxed);
    unit_[s].store(0, kRelaxed);
  }
}

uint32_t RangeMapBuffer::BlockAt(size_t order) const {
  return std::min<uint32_t>(order_[order].load(kRelaxed),
                            static_cast<uint32_t>(max_blocks_ - 1));
}

size_t RangeMapBuffer::SizeOf(uint32_t block) const {
  return std::min<size_t>(size_[block].load(kRelaxed), kBlock);
}

uint32_t RangeMapBuffer::UnitOf(std::string_view key, Prefix p,
                               Bounds* bounds) const {
  // Whether the separator with these prefix words (its whole key in
  // key_[slot], read only when the prefixes are equal) is at or below the
  // key.
  auto at_or_below = [&](uint64_t high, uint64_t low, size_t slot) {
    if (high != p.high) return high < p.high;
    if (low != p.low) return low < p.low;
    const std::string* separator = key_[slot].load(std::memory_order_acquire);
    return separator != nullptr && std::string_view(*separator) <= key;
  };
  const size_t blocks = std::min<size_t>(blocks_.load(kRelaxed), max_blocks_);
  auto fence = [&](size_t o) {
    return Prefix{fence_[2 * o].load(kRelaxed),
                  fence_[2 * o + 1].load(kRelaxed)};
  };
  // The blocks whose first separator is at or below the key (a binary
  // search; std::upper_bound's answer).
  size_t first = 0;
  for (size_t count = blocks; count > 0;) {
    const size_t step = count / 2;
    const size_t o = first + step;
    const Prefix f = fence(o);
    const bool below = at_or_below(f.high, f.low, BlockAt(o) * kBlock);
    first = below ? o + 1 : first;
    count = below ? count - step - 1 : step;
  }
  // The separator in slot `slot` as the upper bound.
  auto set_upper = [&](Prefix prefix, size_t slot) {
    bounds->upper = prefix;
    bounds->upper_key = key_[slot].load(std::memory_order_acquire);
  };
  if (first == 0) {
    if (bounds != nullptr && blocks > 0)
      set_upper(fence(0), BlockAt(0) * kBlock);
    return first_unit_.load(kRelaxed);
  }
  // Then the separators of the last of them.
  const uint32_t block = BlockAt(first - 1);
  const size_t base = block * kBlock;
  const size_t size = SizeOf(block);
  size_t at = 0;
  for (size_t count = size; count > 0;) {
    const size_t step = count / 2;
    const size_t s = base + at + step;
    const bool below = at_or_below(prefix_[2 * s].load(kRelaxed),
                                   prefix_[2 * s + 1].load(kRelaxed), s);
    at = below ? at + step + 1 : at;
    count = below ? count - step - 1 : step;
  }
  // (None of them: a buffer changed under the reader.)
  if (at == 0) return first_unit_.load(kRelaxed);
  if (bounds != nullptr) {
    auto slot_prefix = [&](size_t s) {
      return Prefix{prefix_[2 * s].load(kRelaxed),
                    prefix_[2 * s + 1].load(kRelaxed)};
    };
    bounds->lower = slot_prefix(base + at - 1);
    bounds->lower_key = key_[base + at - 1].load(std::memory_order_acquire);
    if (at < size) {
      set_upper(slot_prefix(base + at), base + at);
    } else if (first < blocks) {
      set_upper(fence(first), BlockAt(first) * kBlock);
    }
  }
  return unit_[base + at - 1].load(kRelaxed);
}

void RangeMapBuffer::Rebuild(const std::vector<const std::string*>& separators,
                             const std::vector<uint32_t>& units) {
  constexpr size_t kFill = kBlock * 3 / 4;
  const size_t n = separators.size();
  const size_t blocks = (n + kFill - 1) / kFill;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t first = b * kFill;
    const size_t size = std::min(kFill, n - first);
    for (size_t i = 0; i < size; ++i) {
      const size_t s = b * kBlock + i;
      const Prefix prefix = Prefix::Of(*separators[first + i]);
      prefix_[2 * s].store(prefix.high, kRelaxed);
      prefix_[2 * s + 1].store(prefix.low, kRelaxed);
      key_[s].store(separators[first + i], std::memory_order_release);
      unit_[s].store(units[first + i + 1], kRelaxed);
    }
    size_[b].store(static_cast<uint32_t>(size), kRelaxed);
    order_[b].store(static_cast<uint32_t>(b), kRelaxed);
    SetFence(b, static_cast<uint32_t>(b));
  }
  free_.clear();
  for (size_t b = max_blocks_; b > blocks; --b)
    free_.push_back(static_cast<uint32_t>(b - 1));
  first_unit_.store(units[0], kRelaxed);
  blocks_.store(static_cast<uint32_t>(blocks), kRelaxed);
}

RangeMapBuffer::Place RangeMapBuffer::Locate(size_t index) const {
  const size_t blocks = blocks_.load(kRelaxed);
  for (size_t o = 0; o < blocks; ++o) {
    const size_t size = SizeOf(BlockAt(o));
    if (index < size) return {o, index};
    index -= size;
  }
  return blocks == 0 ? Place{0, 0}
                     : Place{blocks - 1, SizeOf(BlockAt(blocks - 1))};
}

void RangeMapBuffer::CopySlot(uint32_t a, size_t from, uint32_t b,
                              size_t to) {
  const size_t s = a * kBlock + from;
  const size_t d = b * kBlock + to;
  prefix_[2 * d].store(prefix_[2 * s].load(kRelaxed), kRelaxed);
  prefix_[2 * d + 1].store(prefix_[2 * s + 1].load(kRelaxed), kRelaxed);
  key_[d].store(key_[s].load(kRelaxed), std::memory_order_release);
  unit_[d].store(unit_[s].load(kRelaxed), kRelaxed);
}

void RangeMapBuffer::SetFence(size_t order, uint32_t block) {
  fence_[2 * order].store(prefix_[2 * block * kBlock].load(kRelaxed),
                          kRelaxed);
  fence_[2 * order + 1].store(prefix_[2 * block * kBlock + 1].load(kRelaxed),
                              kRelaxed);
}

bool RangeMapBuffer::Insert(size_t index, const std::string* separator,
                            Prefix prefix, uint32_t unit) {
  size_t blocks = blocks_.load(kRelaxed);
  if (blocks == 0) {
    if (free_.empty()) return false;
    order_[0].store(free_.back(), kRelaxed);
    free_.pop_back();
    size_[order_[0].load(kRelaxed)].store(0, kRelaxed);
    blocks_.store(1, kRelaxed);
    blocks = 1;
  }
  Place at = Locate(index);
  // At the start of a block, the end of the one before if it has room:
  // no fence changes.
  if (at.slot == 0 && at.order > 0 && SizeOf(BlockAt(at.order - 1)) < kBlock) {
    at.order -= 1;
    at.slot = SizeOf(BlockAt(at.order));
  }
  uint32_t block = BlockAt(at.order);
  if (SizeOf(block) == kBlock) {
    // Full: its upper half goes to a new block after it.
    if (free_.empty()) return false;
    const uint32_t upper = free_.back();
    free_.pop_back();
    constexpr size_t kHalf = kBlock / 2;
    for (size_t i = kHalf; i < kBlock; ++i) CopySlot(block, i, upper, i - kHalf);
    size_[upper].store(kBlock - kHalf, kRelaxed);
    size_[block].store(kHalf, kRelaxed);
    for (size_t o = blocks; o > at.order + 1; --o) {
      order_[o].store(order_[o - 1].load(kRelaxed), kRelaxed);
      fence_[2 * o].store(fence_[2 * (o - 1)].load(kRelaxed), kRelaxed);
      fence_[2 * o + 1].store(fence_[2 * (o - 1) + 1].load(kRelaxed),
                              kRelaxed);
    }
    order_[at.order + 1].store(upper, kRelaxed);
    SetFence(at.order + 1, upper);
    blocks_.store(static_cast<uint32_t>(blocks + 1), kRelaxed);
    if (at.slot > kHalf) {
      at.order += 1;
      at.slot -= kHalf;
      block = upper;
    }
  }
  const size_t size = SizeOf(block);
  for (size_t i = size; i > at.slot; --i) CopySlot(block, i - 1, block, i);
  const size_t s = block * kBlock + at.slot;
  prefix_[2 * s].store(prefix.high, kRelaxed);
  prefix_[2 * s + 1].store(prefix.low, kRelaxed);
  key_[s].store(separator, std::memory_order_release);
  unit_[s].store(unit, kRelaxed);
  size_[block].store(static_cast<uint32_t>(size + 1), kRelaxed);
  if (at.slot == 0) SetFence(at.order, block);
  return true;
}

void RangeMapBuffer::Erase(size_t index) {
  const Place at = Locate(index);
  const uint32_t block = BlockAt(at.order);
  const size_t size = SizeOf(block);
  for (size_t i = at.slot; i + 1 < size; ++i) CopySlot(block, i + 1, block, i);
  size_[block].store(static_cast<uint32_t>(size - 1), kRelaxed);
  if (size > 1) {
    if (at.slot == 0) SetFence(at.order, block);
    return;
  }
  // Empty: out of the order.
  const size_t blocks = blocks_.load(kRelaxed);
  for (size_t o = at.order; o + 1 < blocks; ++o) {
    order_[o].store(order_[o + 1].load(kRelaxed), kRelaxed);
    fence_[2 * o].store(fence_[2 * (o + 1)].load(kRelaxed), kRelaxed);
    fence_[2 * o + 1].store(fence_[2 * (o + 1) + 1].load(kRelaxed), kRelaxed);
  }
  blocks_.store(static_cast<uint32_t>(blocks - 1), kRelaxed);
  free_.push_back(block);
}

void RangeMapBuffer::SetUnit(size_t position, uint32_t unit) {
  if (position == 0) {
    first_unit_.store(unit, kRelaxed);
    return;
  }
  const Place at = Locate(position - 1);
  unit_[BlockAt(at.order) * kBlock + at.slot].store(unit, kRelaxed);
}

}  // namespace plush
