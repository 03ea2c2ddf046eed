// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A pool's bytes in memory, with the offsets of its on-media structures
// (docs/format.md) worked out, so that tests and the fuzzer can damage one
// structure precisely: "flip bit 3 of the state word of level 2 entry 5",
// "give the superblock a newer version and a valid checksum".
//
// It reads a pool file or a sim device image, edits it in memory and
// writes it back. It trusts nothing it reads: every accessor is bounds-
// checked against the image, and offsets that do not exist come back as
// std::nullopt, so it also works on images that are already damaged.
//
// Free of gtest: the fuzzer links it too.

#ifndef PLUSH_TESTS_POOL_IMAGE_H_
#define PLUSH_TESTS_POOL_IMAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pool/pool_format.h"

namespace plush::test {

class PoolImage {
 public:
  PoolImage() = default;
  explicit PoolImage(std::string bytes) : bytes_(std::move(bytes)) {}

  // Empty image if the file cannot be read.
  static PoolImage FromFile(const std::string& path);
  // The bytes of a sim device image (SimMedia::DurableImage()).
  static PoolImage FromWords(const std::vector<uint64_t>& words);
  // Writes the image to `path` (replacing the file); false on error.
  bool Save(const std::string& path) const;
  // The image as sim device words (the tail padded with zeros).
  std::vector<uint64_t> ToWords() const;

  std::string& bytes() { return bytes_; }
  const std::string& bytes() const { return bytes_; }
  uint64_t size() const { return bytes_.size(); }

  // ---- Structures (copies; zero-filled where the image is too short) -------
  pool::Superblock superblock() const;
  pool::RootPage root() const;
  uint64_t heap_offset() const { return superblock().heap_offset; }
  uint64_t alloc_high_water() const { return root().alloc_high_water; }
  uint64_t level_count() const { return root().level_count; }
  uint32_t fanout() const { return 1u << superblock().fanout_bits; }

  // ---- Offsets of structures inside the image -------------------------------
  // Byte offset of a level descriptor's field (level is 1-based).
  static uint64_t DescriptorOffset(unsigned level) {
    return pool::kRootOffset + offsetof(pool::RootPage, levels) +
           (level - 1) * sizeof(pool::LevelDescriptor);
  }
  uint64_t log_chunks() const;
  // Offset of chunk `c` (counting over all logs) and of its state word.
  std::optional<uint64_t> ChunkOffset(uint64_t c) const;
  // Offset of directory entry `index` of PMem level `level` (1-based), in
  // its unit's block; none if the unit has no block on the level.
  std::optional<uint64_t> EntryOffset(unsigned level, uint64_t index) const;
  uint64_t EntryCount(unsigned level) const;
  // The state word of an entry: epoch << 16 | size.
  uint64_t EntryState(unsigned level, uint64_t index) const;
  // Offset of bucket `b` of an entry (reference or preallocated area).
  std::optional<uint64_t> BucketOffset(unsigned level, uint64_t index,
                                       unsigned b) const;
  // The first entry of `level` holding at least `min_size` records.
  std::optional<uint64_t> FindEntry(unsigned level, uint32_t min_size) const;

  // ---- Editing --------------------------------------------------------------
  uint64_t Word(uint64_t offset) const;
  void SetWord(uint64_t offset, uint64_t value);
  void FlipBit(uint64_t offset, unsigned bit);
  // Recomputes the checksum of the superblock / a level descriptor, making a
  // deliberate edit look like a genuine pool (tests of hostile input).
  void ResealSuperblock();
  void ResealDescriptor(unsigned level);

 private:
  template <typename T>
  T Read(uint64_t offset) const;
  template <typename T>
  void Write(uint64_t offset, const T& value);

  std::string bytes_;
};

}  // namespace plush::test

#endif  // PLUSH_TESTS_POOL_IMAGE_H_
