// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/range_map_region.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "placement/range_map_format.h"
#include "plush/limits.h"
#include "util/hash.h"

namespace plush {
namespace {

constexpr uint64_t kUnitBytes = sizeof(uint32_t);
constexpr uint64_t kLengthBytes = sizeof(uint16_t);
static_assert(kMaxKeySize <= UINT16_MAX, "a separator's length is 16 bits");
static_assert(static_cast<uint8_t>(RangeMap::Change::Kind::kMerge) ==
                  kRangeChangeMerge &&
              static_cast<uint8_t>(RangeMap::Change::Kind::kSplit) ==
                  kRangeChangeSplit &&
              static_cast<uint8_t>(RangeMap::Change::Kind::kReassign) ==
                  kRangeChangeReassign &&
              static_cast<uint8_t>(RangeMap::Change::Kind::kSplitBelow) ==
                  kRangeChangeSplitBelow,
              "the kinds of change records are persisted");
static_assert(RangeMap::kMaxMerged - 2 <= 0xFF, "merged count is 8 bits");

uint64_t EntriesBytes(const RangeMap::Layout& layout) {
  uint64_t bytes = layout.units.size() * kUnitBytes;
  for (const std::string& s : layout.separators) bytes += kLengthBytes + s.size();
  return bytes;
}

bool IsSplit(RangeMap::Change::Kind kind) {
  return kind == RangeMap::Change::Kind::kSplit ||
         kind == RangeMap::Change::Kind::kSplitBelow;
}

uint64_t HeaderChecksum(const RangeMapHeader& h) {
  return Checksum(&h, offsetof(RangeMapHeader, checksum));
}

uint64_t Padded(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// The check of a change record whose check bits are zero.
uint32_t ChangeCheck(const unsigned char* record, uint64_t bytes,
                     uint64_t base_generation, uint32_t index) {
  return static_cast<uint32_t>(
      XXH64(record, bytes, base_generation * 0x9E3779B97F4A7C15ull ^ index));
}

}  // namespace

uint64_t RangeMapRegionBytes(const RangeMap::Layout& layout) {
  return sizeof(RangeMapHeader) + EntriesBytes(layout);
}

void WriteRangeMap(media::Media* media, uint64_t offset, unsigned unit_bits,
                   uint64_t generation, const RangeMap::Layout& layout) {
  auto* entries = media->At<unsigned char>(offset + sizeof(RangeMapHeader));
  unsigned char* out = entries;
  for (const uint32_t unit : layout.units) {
    std::memcpy(out, &unit, kUnitBytes);
    out += kUnitBytes;
  }
  for (const std::string& s : layout.separators) {
    const auto length = static_cast<uint16_t>(s.size());
    std::memcpy(out, &length, kLengthBytes);
    if (!s.empty()) std::memcpy(out + kLengthBytes, s.data(), s.size());
    out += kLengthBytes + s.size();
  }
  RangeMapHeader h{};
  std::memcpy(h.magic, kRangeMapMagic, sizeof(h.magic));
  h.generation = generation;
  h.unit_bits = unit_bits;
  h.positions = static_cast<uint32_t>(layout.units.size());
  h.entries_bytes = static_cast<uint64_t>(out - entries);
  h.entries_checksum = Checksum(entries, h.entries_bytes);
  h.checksum = HeaderChecksum(h);
  std::memcpy(media->At<RangeMapHeader>(offset), &h, sizeof(h));
  media->Flush(media->At<void>(offset), sizeof(h) + h.entries_bytes);
}

Status ReadRangeMap(const media::Media& media, uint64_t offset, uint64_t limit,
                    unsigned unit_bits, uint64_t* generation,
                    RangeMap::Layout* layout) {
  auto damaged = [](const std::string& what) {
    return Status::Corruption("range map: " + what);
  };
  if (offset > limit || limit - offset < sizeof(RangeMapHeader))
    return damaged("region lies outside the pool");
  RangeMapHeader h;
  std::memcpy(&h, media.At<RangeMapHeader>(offset), sizeof(h));
  if (std::memcmp(h.magic, kRangeMapMagic, sizeof(h.magic)) != 0)
    return damaged("bad magic");
  if (h.checksum != HeaderChecksum(h)) return damaged("header checksum mismatch");
  if (h.unit_bits != unit_bits) {
    return damaged("made for " + std::to_string(h.unit_bits) +
                   " DRAM directory bits, the pool has " +
                   std::to_string(unit_bits));
  }
  if (h.positions == 0 || h.positions > (uint64_t{1} << unit_bits)) {
    return damaged(std::to_string(h.positions) + " positions for " +
                   std::to_string(uint64_t{1} << unit_bits) + " units");
  }
  if (h.entries_bytes > limit - offset - sizeof(h))
    return damaged("entries extend past their region");
  const auto* in = media.At<const unsigned char>(offset + sizeof(h));
  if (Checksum(in, h.entries_bytes) != h.entries_checksum)
    return damaged("checksum mismatch");
  RangeMap::Layout read;
  uint64_t at = h.positions * kUnitBytes;
  if (at > h.entries_bytes) return damaged("entries cut short");
  read.units.resize(h.positions);
  std::memcpy(read.units.data(), in, at);
  read.separators.reserve(h.positions - 1);
  for (uint64_t i = 0; i + 1 < h.positions; ++i) {
    uint16_t length = 0;
    if (h.entries_bytes - at < kLengthBytes) return damaged("entries cut short");
    std::memcpy(&length, in + at, kLengthBytes);
    at += kLengthBytes;
    if (length > kMaxKeySize || h.entries_bytes - at < length) {
      return damaged("separator " + std::to_string(i) + " has a bad length (" +
                     std::to_string(length) + ")");
    }
    read.separators.emplace_back(reinterpret_cast<const char*>(in + at),
                                 length);
    at += length;
  }
  if (at != h.entries_bytes) return damaged("entries do not fill the region");
  const std::string invalid = RangeMap::Invalid(unit_bits, read);
  if (!invalid.empty()) return damaged(invalid);
  *generation = h.generation;
  *layout = std::move(read);
  return Status::OK();
}

uint64_t RangeChangeBytes(const RangeMap::Change& change) {
  return kRangeChangeHeaderBytes + Padded(change.separator.size());
}

void WriteRangeChange(media::Media* media, uint64_t offset,
                      uint64_t base_generation, uint32_t index,
                      const RangeMap::Change& change) {
  const uint64_t bytes = RangeChangeBytes(change);
  std::string record(bytes, '\0');
  const uint64_t merged =
      change.kind == RangeMap::Change::Kind::kMerge ? change.count - 2 : 0;
  const uint64_t word0 = uint64_t{change.separator.size()} << 16 |
                         uint64_t{static_cast<uint8_t>(change.kind)} << 8 |
                         merged;
  const uint64_t word1 = uint64_t{change.unit} << 32 | change.position;
  std::memcpy(record.data(), &word0, 8);
  std::memcpy(record.data() + 8, &word1, 8);
  std::copy(change.separator.begin(), change.separator.end(),
            record.begin() + kRangeChangeHeaderBytes);
  const uint64_t check =
      ChangeCheck(reinterpret_cast<const unsigned char*>(record.data()), bytes,
                  base_generation, index);
  const uint64_t checked = word0 | check << 32;
  std::memcpy(record.data(), &checked, 8);
  std::memcpy(media->At<char>(offset), record.data(), bytes);
  media->Flush(media->At<void>(offset), bytes);
}

Status ReadRangeChanges(const media::Media& media, uint64_t offset,
                        uint64_t capacity, uint64_t base_generation,
                        uint32_t count, std::vector<RangeMap::Change>* changes,
                        uint64_t* end) {
  changes->clear();
  uint64_t at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    auto damaged = [&](const std::string& what) {
      return Status::Corruption("range map: change " + std::to_string(i) +
                                " of " + std::to_string(count) + ": " + what);
    };
    if (capacity - at < kRangeChangeHeaderBytes)
      return damaged("past the end of the change log");
    const auto* record = media.At<const unsigned char>(offset + at);
    uint64_t word0, word1;
    std::memcpy(&word0, record, 8);
    std::memcpy(&word1, record + 8, 8);
    const uint64_t separator_bytes = (word0 >> 16) & 0xFFFF;
    const uint64_t bytes = kRangeChangeHeaderBytes + Padded(separator_bytes);
    const auto kind =
        static_cast<RangeMap::Change::Kind>((word0 >> 8) & 0xFF);
    if (separator_bytes > kMaxKeySize || bytes > capacity - at ||
        (!IsSplit(kind) && separator_bytes != 0)) {
      return damaged("bad separator length (" +
                     std::to_string(separator_bytes) + ")");
    }
    std::string copy(reinterpret_cast<const char*>(record), bytes);
    const uint64_t unchecked = word0 & 0xFFFFFFFF;
    std::memcpy(copy.data(), &unchecked, 8);
    if (ChangeCheck(reinterpret_cast<const unsigned char*>(copy.data()), bytes,
                    base_generation, i) != word0 >> 32) {
      return damaged("check mismatch");
    }
    RangeMap::Change change;
    change.kind = kind;
    change.count = static_cast<uint32_t>(word0 & 0xFF) + 2;
    if (kind != RangeMap::Change::Kind::kMerge && (word0 & 0xFF) != 0)
      return damaged("bad merge count");
    change.position = static_cast<uint32_t>(word1);
    change.unit = static_cast<uint32_t>(word1 >> 32);
    change.separator.assign(copy.data() + kRangeChangeHeaderBytes,
                            separator_bytes);
    changes->push_back(std::move(change));
    at += bytes;
  }
  *end = offset + at;
  return Status::OK();
}

}  // namespace plush
