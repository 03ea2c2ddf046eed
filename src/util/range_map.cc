// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "util/range_map.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "plush/limits.h"

namespace plush {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

}  // namespace

RangeMap::Layout RangeMap::FromSample(std::vector<std::string> sample,
                                      unsigned bits) {
  std::sort(sample.begin(), sample.end());
  const uint64_t units = uint64_t{1} << bits;
  Layout layout;
  layout.separators.reserve(units - 1);
  for (uint64_t i = 1; i < units; ++i)
    layout.separators.push_back(sample[i * sample.size() / units]);
  layout.units = IdentityUnits(units);
  return layout;
}

RangeMap::Layout RangeMap::ByLeadingBits(unsigned bits) {
  const uint64_t units = uint64_t{1} << bits;
  Layout layout;
  layout.separators.reserve(units - 1);
  for (uint64_t i = 1; i < units; ++i)
    layout.separators.push_back(LeadingBitsSeparator(i, bits));
  layout.units = IdentityUnits(units);
  return layout;
}

std::string RangeMap::LeadingBitsSeparator(uint64_t i, unsigned bits) {
  // Without its trailing zero bytes: a key shorter than 8 bytes that ends
  // where the number does (zero-padded, the same prefix) is at or above
  // it.
  const uint64_t number = i << (64 - bits);
  const uint64_t big_endian = __builtin_bswap64(number);
  return std::string(reinterpret_cast<const char*>(&big_endian),
                     8 - __builtin_ctzll(number) / 8);
}

std::vector<uint32_t> RangeMap::IdentityUnits(size_t positions) {
  std::vector<uint32_t> units(positions);
  for (size_t p = 0; p < positions; ++p) units[p] = static_cast<uint32_t>(p);
  return units;
}

std::string RangeMap::Invalid(unsigned bits, const Layout& layout) {
  const uint64_t capacity = uint64_t{1} << bits;
  if (layout.units.empty() || layout.units.size() > capacity) {
    return std::to_string(layout.units.size()) + " positions for " +
           std::to_string(capacity) + " units";
  }
  if (layout.separators.size() + 1 != layout.units.size()) {
    return std::to_string(layout.separators.size()) + " separators for " +
           std::to_string(layout.units.size()) + " positions";
  }
  std::vector<bool> named(capacity);
  for (size_t p = 0; p < layout.units.size(); ++p) {
    const uint32_t u = layout.units[p];
    if (u >= capacity) {
      return "position " + std::to_string(p) + " names unit " +
             std::to_string(u) + " of " + std::to_string(capacity);
    }
    if (named[u]) {
      return "unit " + std::to_string(u) + " is named twice (position " +
             std::to_string(p) + ")";
    }
    named[u] = true;
  }
  for (size_t i = 0; i < layout.separators.size(); ++i) {
    if (layout.separators[i].size() > kMaxKeySize) {
      return "separator " + std::to_string(i) + " is longer than a key (" +
             std::to_string(layout.separators[i].size()) + " bytes)";
    }
    if (i > 0 && layout.separators[i] < layout.separators[i - 1])
      return "separator " + std::to_string(i) + " is out of order";
  }
  return {};
}

std::string RangeMap::ApplyTo(unsigned bits, const Change& change,
                            Layout* layout) {
  const size_t p = change.position;
  std::vector<std::string>& separators = layout->separators;
  std::vector<uint32_t>& units = layout->units;
  if (change.kind == Change::Kind::kMerge) {
    const size_t n = change.count;
    if (n < 2 || n > kMaxMerged || p + n > units.size()) {
      return "merge of " + std::to_string(n) + " positions from " +
             std::to_string(p) + " of " + std::to_string(units.size());
    }
    const auto first = units.begin() + static_cast<ptrdiff_t>(p);
    if (std::find(first, first + static_cast<ptrdiff_t>(n), change.unit) ==
        first + static_cast<ptrdiff_t>(n)) {
      return "merge of positions " + std::to_string(p) + " .. " +
             std::to_string(p + n - 1) + " onto unit " +
             std::to_string(change.unit) + ", which none names";
    }
    separators.erase(separators.begin() + static_cast<ptrdiff_t>(p),
                     separators.begin() + static_cast<ptrdiff_t>(p + n - 1));
    units.erase(first + 1, first + static_cast<ptrdiff_t>(n));
    units[p] = change.unit;
  } else if (change.kind == Change::Kind::kSplit) {
    if (p >= units.size()) {
      return "split of position " + std::to_string(p) + " of " +
             std::to_string(units.size());
    }
    if ((p > 0 && change.separator < separators[p - 1]) ||
        (p < separators.size() && separators[p] < change.separator)) {
      return "split of position " + std::to_string(p) +
             " at a key outside it";
    }
    separators.insert(separators.begin() + static_cast<ptrdiff_t>(p),
                      change.separator);
    units.insert(units.begin() + static_cast<ptrdiff_t>(p + 1), change.unit);
  } else if (change.kind == Change::Kind::kReassign) {
    if (p >= units.size()) {
      return "reassignment of position " + std::to_string(p) + " of " +
             std::to_string(units.size());
    }
    units[p] = change.unit;
  } else {
    return "unknown change kind " +
           std::to_string(static_cast<unsigned>(change.kind));
  }
  return Invalid(bits, *layout);
}

RangeMap::Buffer::Buffer(size_t capacity)
    : prefix(new std::atomic<uint64_t>[2 * capacity]),
      key(new std::atomic<const std::string*>[capacity]),
      fence(new std::atomic<uint64_t>[2 * (capacity / kFenceEvery + 1)]),
      unit(new std::atomic<uint32_t>[capacity]) {
  for (size_t i = 0; i < 2 * capacity; ++i) prefix[i].store(0, kRelaxed);
  for (size_t i = 0; i < capacity; ++i) {
    key[i].store(nullptr, kRelaxed);
    unit[i].store(0, kRelaxed);
  }
  for (size_t i = 0; i < 2 * (capacity / kFenceEvery + 1); ++i)
    fence[i].store(0, kRelaxed);
}

RangeMap::RangeMap(unsigned bits, const Layout& layout)
    : bits_(bits),
      capacity_(size_t{1} << bits),
      buffers_{Buffer(capacity_), Buffer(capacity_)} {
  Replace(layout);
}

RangeMap::Prefix RangeMap::PrefixOf(std::string_view key) {
  unsigned char bytes[16] = {};
  if (!key.empty())  // (no memcpy from the null data() of an empty key)
    std::memcpy(bytes, key.data(), std::min<size_t>(key.size(), 16));
  uint64_t high, low;
  std::memcpy(&high, bytes, 8);
  std::memcpy(&low, bytes + 8, 8);
  return {__builtin_bswap64(high), __builtin_bswap64(low)};
}

size_t RangeMap::PositionOf(const Buffer& b, std::string_view key) {
  const Prefix p = PrefixOf(key);
  // (A count from a buffer written under the reader is one a change
  // stored: every index below stays inside the arrays.)
  const size_t n = b.count.load(kRelaxed);
  // The number of entries of `words` (prefix pairs) in [first, first +
  // count) below p, starting from `first`: std::lower_bound, the
  // comparison without branches.
  auto lower_bound = [&p](const std::atomic<uint64_t>* words, size_t first,
                          size_t count) {
    while (count > 0) {
      const size_t step = count / 2;
      const uint64_t high = words[2 * (first + step)].load(kRelaxed);
      const uint64_t low = words[2 * (first + step) + 1].load(kRelaxed);
      const bool below =
          (high < p.high) | ((high == p.high) & (low < p.low));
      first = below ? first + step + 1 : first;
      count = below ? count - step - 1 : step;
    }
    return first;
  };
  // The fences (every kFenceEvery-th prefix) below p: the first prefix at
  // or above p lies after the last of them, at or before the next.
  const size_t fences = (n + kFenceEvery - 1) / kFenceEvery;
  const size_t j = lower_bound(b.fence.get(), 0, fences);
  const size_t lo = j == 0 ? 0 : (j - 1) * kFenceEvery + 1;
  const size_t hi = std::min(j * kFenceEvery, n);
  size_t position = lower_bound(b.prefix.get(), lo, hi > lo ? hi - lo : 0);
  // Separators that share the key's prefix: compare whole keys.
  for (; position < n; ++position) {
    if (b.prefix[2 * position].load(kRelaxed) != p.high ||
        b.prefix[2 * position + 1].load(kRelaxed) != p.low) {
      break;
    }
    const std::string* separator =
        b.key[position].load(std::memory_order_acquire);
    if (separator == nullptr || key < std::string_view(*separator)) break;
  }
  return position;
}

uint64_t RangeMap::UnitOf(std::string_view key) const {
  for (;;) {
    const uint64_t v = version_.load(std::memory_order_acquire);
    const Buffer& b = BufferAt(v);
    const uint32_t unit = b.unit[PositionOf(b, key)].load(kRelaxed);
    // The buffer read is written again only once version 2n + 3 begins
    // (2n: the even version at or below v).
    if (ReloadVersion() - (v & ~uint64_t{1}) < 3) return unit;
  }
}

RangeMap::Layout RangeMap::Read() const {
  MutexLock lock(&mu_);
  Layout layout;
  layout.separators.reserve(separators_.size());
  for (const std::string* separator : separators_)
    layout.separators.push_back(*separator);
  layout.units = units_;
  return layout;
}

std::optional<RangeMap::Range> RangeMap::RangeOfUnit(uint64_t unit) const {
  MutexLock lock(&mu_);
  if (unit >= capacity_ || !named_[unit]) return std::nullopt;
  Range range;
  range.position = static_cast<size_t>(
      std::find(units_.begin(), units_.end(), unit) - units_.begin());
  if (range.position > 0) range.lower = *separators_[range.position - 1];
  if (range.position < separators_.size())
    range.upper = *separators_[range.position];
  return range;
}

std::optional<std::string> RangeMap::PositionStart(size_t position) const {
  MutexLock lock(&mu_);
  if (position >= units_.size()) return std::nullopt;
  return position == 0 ? std::string() : *separators_[position - 1];
}

size_t RangeMap::positions() const {
  MutexLock lock(&mu_);
  return units_.size();
}

std::vector<uint32_t> RangeMap::Units() const {
  MutexLock lock(&mu_);
  return units_;
}

std::vector<uint32_t> RangeMap::Unnamed(size_t count) const {
  MutexLock lock(&mu_);
  std::vector<uint32_t> unnamed;
  for (size_t u = 0; u < capacity_ && unnamed.size() < count; ++u) {
    if (!named_[u]) unnamed.push_back(static_cast<uint32_t>(u));
  }
  return unnamed;
}

std::string RangeMap::Check(const Change& change) const {
  MutexLock lock(&mu_);
  const size_t p = change.position;
  const uint32_t u = change.unit;
  if (u >= capacity_) {
    return "unit " + std::to_string(u) + " of " + std::to_string(capacity_);
  }
  switch (change.kind) {
    case Change::Kind::kMerge: {
      const size_t n = change.count;
      if (n < 2 || n > kMaxMerged || p + n > units_.size()) {
        return "merge of " + std::to_string(n) + " positions from " +
               std::to_string(p) + " of " + std::to_string(units_.size());
      }
      const auto first = units_.begin() + static_cast<ptrdiff_t>(p);
      if (std::find(first, first + static_cast<ptrdiff_t>(n), u) ==
          first + static_cast<ptrdiff_t>(n)) {
        return "merge of positions " + std::to_string(p) + " .. " +
               std::to_string(p + n - 1) + " onto unit " + std::to_string(u) +
               ", which none names";
      }
      return {};
    }
    case Change::Kind::kSplit:
      if (p >= units_.size()) {
        return "split of position " + std::to_string(p) + " of " +
               std::to_string(units_.size());
      }
      if (named_[u]) return "split onto unit " + std::to_string(u) + ", named";
      if (change.separator.size() > kMaxKeySize)
        return "split at a separator longer than a key";
      if ((p > 0 && change.separator < *separators_[p - 1]) ||
          (p < separators_.size() && *separators_[p] < change.separator)) {
        return "split of position " + std::to_string(p) +
               " at a key outside it";
      }
      return {};
    case Change::Kind::kReassign:
      if (p >= units_.size()) {
        return "reassignment of position " + std::to_string(p) + " of " +
               std::to_string(units_.size());
      }
      if (named_[u])
        return "reassignment to unit " + std::to_string(u) + ", named";
      return {};
  }
  return "unknown change kind " +
         std::to_string(static_cast<unsigned>(change.kind));
}

void RangeMap::Apply(const Change& change) {
  MutexLock lock(&mu_);
  const auto p = static_cast<ptrdiff_t>(change.position);
  switch (change.kind) {
    case Change::Kind::kMerge: {
      const auto n = static_cast<ptrdiff_t>(change.count);
      for (ptrdiff_t i = 0; i < n; ++i) named_[units_[p + i]] = false;
      separators_.erase(separators_.begin() + p, separators_.begin() + p + n - 1);
      prefixes_.erase(prefixes_.begin() + p, prefixes_.begin() + p + n - 1);
      units_.erase(units_.begin() + p + 1, units_.begin() + p + n);
      units_[p] = change.unit;
      break;
    }
    case Change::Kind::kSplit:
      separators_.insert(separators_.begin() + p, Keep(change.separator));
      prefixes_.insert(prefixes_.begin() + p, PrefixOf(change.separator));
      units_.insert(units_.begin() + p + 1, change.unit);
      break;
    case Change::Kind::kReassign:
      named_[units_[p]] = false;
      units_[p] = change.unit;
      break;
  }
  named_[change.unit] = true;
  Install(change.position);
}

void RangeMap::Replace(const Layout& layout) {
  MutexLock lock(&mu_);
  separators_.clear();
  prefixes_.clear();
  for (const std::string& separator : layout.separators) {
    separators_.push_back(Keep(separator));
    prefixes_.push_back(PrefixOf(separator));
  }
  units_ = layout.units;
  named_.assign(capacity_, false);
  for (const uint32_t u : units_) named_[u] = true;
  Install(0);
}

const std::string* RangeMap::Keep(const std::string& key) {
  return &*arena_.insert(key).first;
}

void RangeMap::Install(size_t from) {
  const uint64_t v = version_.load(kRelaxed);  // even: changes are serial
  Buffer& next = buffers_[((v >> 1) + 1) & 1];
  Buffer& last = buffers_[(v >> 1) & 1];
  // Odd while `next` is written: readers keep to `last`.
  // (An exchange: no store below moves above it, as a release fence after
  // a plain store would ensure, in a form ThreadSanitizer understands.)
  version_.exchange(v + 1, std::memory_order_acq_rel);
  const size_t n = separators_.size();
  const size_t start = std::min(from, next.stale_from);
  next.count.store(static_cast<uint32_t>(n), kRelaxed);
  for (size_t i = start; i < n; ++i) {
    next.prefix[2 * i].store(prefixes_[i].high, kRelaxed);
    next.prefix[2 * i + 1].store(prefixes_[i].low, kRelaxed);
    next.key[i].store(separators_[i], std::memory_order_release);
  }
  for (size_t p = start; p < units_.size(); ++p)
    next.unit[p].store(units_[p], kRelaxed);
  for (size_t j = start / kFenceEvery; j * kFenceEvery < n; ++j) {
    next.fence[2 * j].store(prefixes_[j * kFenceEvery].high, kRelaxed);
    next.fence[2 * j + 1].store(prefixes_[j * kFenceEvery].low, kRelaxed);
  }
  next.stale_from = SIZE_MAX;
  last.stale_from = std::min(last.stale_from, from);
  version_.store(v + 2, std::memory_order_release);
}

}  // namespace plush
