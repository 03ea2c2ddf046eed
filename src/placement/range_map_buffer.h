// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// One copy of a range map for lock-free readers (placement/range_map.h keeps
// two, and writes a change into the one readers are not using).
//
// The separators lie in key order in blocks of at most kBlock, each block
// holding a run of them at its start; with each separator its 16-byte
// prefix, its whole key (in the map's arena) and the unit of the keys from
// it up to the next separator. `order` lists the blocks in key order,
// with the prefix of each one's first separator in `fence`, a short array
// searched first. A split or a merge shifts at most one block and the
// order array, wherever it lies in the key space: a sorted array of all
// separators would shift every separator after it (keys that keep growing
// split positions anywhere, thousands of times per million records).
//
// Every field is an atomic read with relaxed loads (separator keys with
// acquire), with a fixed capacity: a reader of a buffer that a writer
// changes under it gets a wrong unit, never a crash (indices are bounded),
// and its caller (RangeMap's version check) retries.

#ifndef PLUSH_PLACEMENT_RANGE_MAP_BUFFER_H_
#define PLUSH_PLACEMENT_RANGE_MAP_BUFFER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plush {

class RangeMapBuffer {
 public:
  // The first 16 bytes of a key, big-endian and zero-padded: a separator
  // whose prefix is below a key's is below the key, so the search compares
  // whole keys only among separators that share the key's prefix.
  struct Prefix {
    uint64_t high = 0;
    uint64_t low = 0;
    static Prefix Of(std::string_view key);
  };
  static constexpr size_t kBlock = 32;
  // The prefixes of the separators around a key: every key whose prefix
  // lies strictly between them is on the same unit (an absent bound: no
  // separator on that side); and the whole keys of the two, where the
  // key's position begins and ends.
  struct Bounds {
    std::optional<Prefix> lower;
    std::optional<Prefix> upper;
    const std::string* lower_key = nullptr;
    const std::string* upper_key = nullptr;
  };

  // For maps of up to `positions` positions.
  explicit RangeMapBuffer(size_t positions);
  RangeMapBuffer(const RangeMapBuffer&) = delete;
  RangeMapBuffer& operator=(const RangeMapBuffer&) = delete;

  // Readers: the unit of `key` (of prefix `prefix`): that of the last
  // separator at or below it, or the first unit if none is; and, if
  // `bounds` is given, the separators around the key there (left empty if
  // the buffer changed under the read).
  uint32_t UnitOf(std::string_view key, Prefix prefix,
                  Bounds* bounds = nullptr) const;

  // Writers, one at a time, while no reader uses the buffer.
  // The whole map: separators.size() + 1 == units.size().
  void Rebuild(const std::vector<const std::string*>& separators,
               const std::vector<uint32_t>& units);
  // A separator at `index` (0 .. separators), the keys from it on on
  // `unit`. False if the buffer has no block left for it: Rebuild() it.
  bool Insert(size_t index, const std::string* separator, Prefix prefix,
              uint32_t unit);
  // Removes separator `index`.
  void Erase(size_t index);
  // Position `position` (0 .. separators) names `unit`.
  void SetUnit(size_t position, uint32_t unit);

 private:
  // Where separator `index` lies: the place of its block in `order_`, and
  // its slot there. Past the last separator: one past the last block's.
  struct Place {
    size_t order;
    size_t slot;
  };
  Place Locate(size_t index) const;
  // Copies slot `from` of block `a` to slot `to` of block `b`.
  void CopySlot(uint32_t a, size_t from, uint32_t b, size_t to);
  void SetFence(size_t order, uint32_t block);
  // A block's size, clamped for readers of a changing buffer.
  size_t SizeOf(uint32_t block) const;
  uint32_t BlockAt(size_t order) const;

  const size_t max_blocks_;
  std::atomic<uint32_t> first_unit_{0};  // of keys below every separator
  std::atomic<uint32_t> blocks_{0};      // in order_
  std::unique_ptr<std::atomic<uint32_t>[]> order_;  // block ids, key order
  std::unique_ptr<std::atomic<uint64_t>[]> fence_;  // 2 per order_ entry
  // By block id (a block's slots at id * kBlock):
  std::unique_ptr<std::atomic<uint32_t>[]> size_;
  std::unique_ptr<std::atomic<uint64_t>[]> prefix_;  // 2 per slot
  std::unique_ptr<std::atomic<const std::string*>[]> key_;
  std::unique_ptr<std::atomic<uint32_t>[]> unit_;
  // Writers only: block ids not in order_.
  std::vector<uint32_t> free_;
};

}  // namespace plush

#endif  // PLUSH_PLACEMENT_RANGE_MAP_BUFFER_H_
