// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "pool/range_boundaries_region.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "plush/limits.h"
#include "pool/pool_format.h"
#include "util/hash.h"

namespace plush::pool {
namespace {

constexpr uint64_t kLengthBytes = sizeof(uint16_t);
static_assert(kMaxKeySize <= UINT16_MAX, "a boundary's length is 16 bits");

uint64_t HeaderChecksum(const RangeBoundariesHeader& h) {
  return Checksum(&h, offsetof(RangeBoundariesHeader, checksum));
}

}  // namespace

Status ReadRangeBoundaries(const media::Media& media, uint64_t offset,
                           uint64_t limit, unsigned dram_bits,
                           std::vector<std::string>* boundaries) {
  auto damaged = [](const std::string& what) {
    return Status::Corruption("range boundaries: " + what);
  };
  if (offset > limit || limit - offset < sizeof(RangeBoundariesHeader))
    return damaged("region lies outside the pool");
  RangeBoundariesHeader h;
  std::memcpy(&h, media.At<RangeBoundariesHeader>(offset), sizeof(h));
  if (std::memcmp(h.magic, kRangeBoundariesMagic, sizeof(h.magic)) != 0)
    return damaged("bad magic");
  if (h.checksum != HeaderChecksum(h)) return damaged("header checksum mismatch");
  const uint64_t expected = (uint64_t{1} << dram_bits) - 1;
  if (h.count != expected) {
    return damaged(std::to_string(h.count) + " boundaries for " +
                   std::to_string(expected + 1) + " DRAM directory entries");
  }
  if (h.entries_bytes > limit - offset - sizeof(h))
    return damaged("entries extend past the pool's allocations");
  const auto* in = media.At<const unsigned char>(offset + sizeof(h));
  if (Checksum(in, h.entries_bytes) != h.entries_checksum)
    return damaged("checksum mismatch");
  std::vector<std::string> keys;
  keys.reserve(h.count);
  uint64_t at = 0;
  for (uint64_t i = 0; i < h.count; ++i) {
    uint16_t length = 0;
    if (h.entries_bytes - at < kLengthBytes) return damaged("entries cut short");
    std::memcpy(&length, in + at, kLengthBytes);
    at += kLengthBytes;
    if (length > kMaxKeySize || h.entries_bytes - at < length) {
      return damaged("boundary " + std::to_string(i) + " has a bad length (" +
                     std::to_string(length) + ")");
    }
    keys.emplace_back(reinterpret_cast<const char*>(in + at), length);
    at += length;
    if (i > 0 && keys[i] < keys[i - 1])
      return damaged("boundary " + std::to_string(i) + " is out of order");
  }
  if (at != h.entries_bytes) return damaged("entries do not fill the region");
  *boundaries = std::move(keys);
  return Status::OK();
}

}  // namespace plush::pool
