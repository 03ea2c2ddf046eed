// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool_image.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>

#include "table/table_format.h"
#include "util/hash.h"

namespace plush::test {

PoolImage PoolImage::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return PoolImage(std::string(std::istreambuf_iterator<char>(in), {}));
}

PoolImage PoolImage::FromWords(const std::vector<uint64_t>& words) {
  return PoolImage(std::string(reinterpret_cast<const char*>(words.data()),
                               words.size() * 8));
}

bool PoolImage::Save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
  return static_cast<bool>(out);
}

std::vector<uint64_t> PoolImage::ToWords() const {
  std::vector<uint64_t> words((bytes_.size() + 7) / 8, 0);
  if (!bytes_.empty()) std::memcpy(words.data(), bytes_.data(), bytes_.size());
  return words;
}

template <typename T>
T PoolImage::Read(uint64_t offset) const {
  T value{};
  if (offset < bytes_.size()) {
    std::memcpy(&value, bytes_.data() + offset,
                std::min<uint64_t>(sizeof(T), bytes_.size() - offset));
  }
  return value;
}

template <typename T>
void PoolImage::Write(uint64_t offset, const T& value) {
  if (offset < bytes_.size()) {
    std::memcpy(bytes_.data() + offset, &value,
                std::min<uint64_t>(sizeof(T), bytes_.size() - offset));
  }
}

pool::Superblock PoolImage::superblock() const {
  return Read<pool::Superblock>(pool::kSuperblockOffset);
}

pool::RootPage PoolImage::root() const {
  return Read<pool::RootPage>(pool::kRootOffset);
}

uint64_t PoolImage::log_chunks() const {
  const pool::Superblock sb = superblock();
  return uint64_t{sb.log_count} * sb.log_chunks_per_log;
}

std::optional<uint64_t> PoolImage::ChunkOffset(uint64_t c) const {
  const pool::Superblock sb = superblock();
  if (c >= log_chunks()) return std::nullopt;
  const uint64_t offset = pool::kLogRegionOffset + c * sb.log_chunk_size;
  if (offset + 8 > size()) return std::nullopt;
  return offset;
}

uint64_t PoolImage::EntryCount(unsigned level) const {
  if (level == 0 || level > pool::kMaxPmemLevels) return 0;
  return Read<pool::LevelDescriptor>(DescriptorOffset(level)).entry_count;
}

std::optional<uint64_t> PoolImage::EntryOffset(unsigned level,
                                               uint64_t index) const {
  if (level == 0 || level > level_count() || level > pool::kMaxPmemLevels)
    return std::nullopt;
  const auto d = Read<pool::LevelDescriptor>(DescriptorOffset(level));
  if (index >= d.entry_count) return std::nullopt;
  // The entry lives in its unit's block (docs/format.md, "Directory
  // blocks"), if the unit has one on the level (not an epoch floor).
  const unsigned dram_bits = superblock().dram_directory_bits;
  const unsigned unit_shift =
      static_cast<unsigned>(std::countr_zero(d.entry_count)) - dram_bits;
  const uint64_t table_word = d.block_table_offset + (index >> unit_shift) * 8;
  if (table_word < d.block_table_offset || table_word + 8 > size())
    return std::nullopt;
  const uint64_t block = Word(table_word);
  const uint64_t local = index & ((uint64_t{1} << unit_shift) - 1);
  const uint64_t offset = block + local * sizeof(table::DirectoryEntry);
  if (block == 0 || pool::IsEpochFloor(block) || offset < block ||
      offset + sizeof(table::DirectoryEntry) > size()) {
    return std::nullopt;
  }
  return offset;
}

uint64_t PoolImage::EntryState(unsigned level, uint64_t index) const {
  const auto e = EntryOffset(level, index);
  return e ? Word(*e + offsetof(table::DirectoryEntry, state)) : 0;
}

std::optional<uint64_t> PoolImage::BucketOffset(unsigned level, uint64_t index,
                                                unsigned b) const {
  const auto e = EntryOffset(level, index);
  if (!e || b >= fanout()) return std::nullopt;
  uint64_t offset = 0;
  if (level <= superblock().preallocated_levels) {
    // The block's buckets follow its entries.
    const auto d = Read<pool::LevelDescriptor>(DescriptorOffset(level));
    const unsigned unit_shift =
        static_cast<unsigned>(std::countr_zero(d.entry_count)) -
        superblock().dram_directory_bits;
    const uint64_t entries = uint64_t{1} << unit_shift;
    const uint64_t local = index & (entries - 1);
    const uint64_t block = *e - local * sizeof(table::DirectoryEntry);
    offset = block + entries * sizeof(table::DirectoryEntry) +
             (local * fanout() + b) * sizeof(table::Bucket);
  } else {
    offset = Word(*e + offsetof(table::DirectoryEntry, bucket) + b * 8);
  }
  if (offset == 0 || offset + sizeof(table::Bucket) > size())
    return std::nullopt;
  return offset;
}

std::optional<uint64_t> PoolImage::FindEntry(unsigned level,
                                             uint32_t min_size) const {
  for (uint64_t i = 0; i < EntryCount(level); ++i) {
    if (!EntryOffset(level, i)) continue;  // its unit has no block there
    if ((EntryState(level, i) & 0xFFFF) >= min_size) return i;
  }
  return std::nullopt;
}

uint64_t PoolImage::Word(uint64_t offset) const {
  return Read<uint64_t>(offset);
}

void PoolImage::SetWord(uint64_t offset, uint64_t value) {
  Write(offset, value);
}

void PoolImage::FlipBit(uint64_t offset, unsigned bit) {
  if (offset < bytes_.size())
    bytes_[offset] = static_cast<char>(bytes_[offset] ^ (1 << (bit % 8)));
}

void PoolImage::ResealSuperblock() {
  pool::Superblock sb = superblock();
  sb.checksum = Checksum(&sb, offsetof(pool::Superblock, checksum));
  Write(pool::kSuperblockOffset, sb);
}

void PoolImage::ResealDescriptor(unsigned level) {
  auto d = Read<pool::LevelDescriptor>(DescriptorOffset(level));
  d.checksum = Checksum(&d, offsetof(pool::LevelDescriptor, checksum));
  Write(DescriptorOffset(level), d);
}

}  // namespace plush::test
