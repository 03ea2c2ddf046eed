// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "placement/range_map.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <utility>

#include "plush/limits.h"

namespace plush {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

// RangeMap ids: a thread's Recent range names its map by one, not by an
// address that a later map may reuse.
std::atomic<uint64_t> next_map_id{1};

// Separator i (>= 1) of ByLeadingBits(bits). Without its trailing zero
// bytes: a key shorter than 8 bytes that ends where the number does
// (zero-padded, the same prefix) is at or above it.
std::string LeadingBitsSeparator(uint64_t i, unsigned bits) {
  const uint64_t number = i << (64 - bits);
  const uint64_t big_endian = __builtin_bswap64(number);
  return std::string(reinterpret_cast<const char*>(&big_endian),
                     8 - __builtin_ctzll(number) / 8);
}

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
  } else if (change.kind == Change::Kind::kSplit ||
             change.kind == Change::Kind::kSplitBelow) {
    if (p >= units.size()) {
      return "split of position " + std::to_string(p) + " of " +
             std::to_string(units.size());
    }
    if ((p > 0 && change.separator < separators[p - 1]) ||
        (p < separators.size() && separators[p] < change.separator)) {
      return "split of position " + std::to_string(p) +
             " at a key outside it";
    }
    const bool below = change.kind == Change::Kind::kSplitBelow;
    separators.insert(separators.begin() + static_cast<ptrdiff_t>(p),
                      change.separator);
    units.insert(units.begin() + static_cast<ptrdiff_t>(below ? p : p + 1),
                 change.unit);
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

RangeMap::RangeMap(unsigned bits, const Layout& layout)
    : id_(next_map_id.fetch_add(1, std::memory_order_relaxed)),
      bits_(bits),
      capacity_(size_t{1} << bits),
      buffers_{std::make_unique<RangeMapBuffer>(capacity_),
               std::make_unique<RangeMapBuffer>(capacity_)} {
  Replace(layout);
}

uint64_t RangeMap::UnitOf(std::string_view key) const {
  const std::string* upper = nullptr;
  return UnitOf(key, &upper);
}

uint64_t RangeMap::UnitOf(std::string_view key, const std::string** upper,
                          const std::string** lower) const {
  const Prefix prefix = Prefix::Of(key);
  thread_local Recent recent;
  RangeMapBuffer::Bounds found;
  const RangeMapBuffer::Bounds* bounds = &recent.bounds;
  uint64_t unit = recent.unit;
  if (!recent.Holds(id_, version_.load(std::memory_order_acquire), prefix)) {
    unit = Search(key, prefix, &recent, &found);
    bounds = &found;
  }
  *upper = bounds->upper_key;
  if (lower != nullptr) *lower = bounds->lower_key;
  return unit;
}

uint32_t RangeMap::Search(std::string_view key, const Prefix& prefix,
                          Recent* recent,
                          RangeMapBuffer::Bounds* bounds) const {
  for (;;) {
    const uint64_t v = version_.load(std::memory_order_acquire);
    *bounds = RangeMapBuffer::Bounds();
    const uint32_t unit = buffers_[BufferAt(v)]->UnitOf(key, prefix, bounds);
    const uint64_t now = ReloadVersion();
    // No change began during the read: the bounds are those of map v.
    if (now == v && v % 2 == 0) *recent = {id_, v, *bounds, unit};
    // The buffer read is written again only once version 2n + 3 begins
    // (2n: the even version at or below v).
    if (now - (v & ~uint64_t{1}) < 3) return unit;
  }
}

bool RangeMap::Recent::Holds(uint64_t id, uint64_t v, const Prefix& p) const {
  auto less = [](const Prefix& a, const Prefix& b) {
    return a.high != b.high ? a.high < b.high : a.low < b.low;
  };
  // (Equal prefixes would need the whole keys: searched.)
  return map == id && version == v &&
         (!bounds.lower || less(*bounds.lower, p)) &&
         (!bounds.upper || less(p, *bounds.upper));
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
  const std::optional<size_t> position = Find(unit);
  if (!position) return std::nullopt;
  Range range;
  range.position = *position;
  if (range.position > 0) range.lower = *separators_[range.position - 1];
  if (range.position < separators_.size())
    range.upper = *separators_[range.position];
  return range;
}

std::optional<size_t> RangeMap::PositionOfUnit(uint64_t unit) const {
  MutexLock lock(&mu_);
  return Find(unit);
}

size_t RangeMap::PositionOf(std::string_view key) const {
  MutexLock lock(&mu_);
  return static_cast<size_t>(
      std::upper_bound(separators_.begin(), separators_.end(), key,
                       [](std::string_view k, const std::string* s) {
                         return k < *s;
                       }) -
      separators_.begin());
}

std::optional<size_t> RangeMap::Find(uint64_t unit) const {
  if (unit >= capacity_ || !named_[unit]) return std::nullopt;
  const std::string* lower = lower_of_[unit];
  if (lower == nullptr) return 0;
  // Among equal separators (empty positions between them), the one before
  // the unit's position.
  size_t i = static_cast<size_t>(
      std::lower_bound(separators_.begin(), separators_.end(), *lower,
                       [](const std::string* s, const std::string& key) {
                         return *s < key;
                       }) -
      separators_.begin());
  while (units_[i + 1] != unit) {
    ++i;
    assert(i + 1 < units_.size());  // the unit is named: some position is it
  }
  return i + 1;
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
  for (size_t u = unnamed_from_; u < capacity_ && unnamed.size() < count; ++u) {
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
    case Change::Kind::kSplitBelow:
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
      for (ptrdiff_t i = 0; i < n; ++i) Unname(units_[p + i]);
      separators_.erase(separators_.begin() + p, separators_.begin() + p + n - 1);
      units_.erase(units_.begin() + p + 1, units_.begin() + p + n);
      Name(change.position, change.unit);
      break;
    }
    case Change::Kind::kSplit:
      separators_.insert(separators_.begin() + p, Keep(change.separator));
      units_.insert(units_.begin() + p + 1, change.unit);
      Name(change.position + 1, change.unit);
      break;
    case Change::Kind::kSplitBelow: {
      const uint32_t kept = units_[p];
      separators_.insert(separators_.begin() + p, Keep(change.separator));
      units_.insert(units_.begin() + p, change.unit);
      Name(change.position, change.unit);
      Name(change.position + 1, kept);
      break;
    }
    case Change::Kind::kReassign:
      Unname(units_[p]);
      Name(change.position, change.unit);
      break;
  }
  Edit edit{change.kind, change.position, change.count, change.unit};
  if (change.kind == Change::Kind::kSplit ||
      change.kind == Change::Kind::kSplitBelow) {
    edit.separator = separators_[change.position];
    edit.prefix = Prefix::Of(change.separator);
  }
  if (change.kind == Change::Kind::kSplitBelow) {
    edit.kept_unit = units_[change.position + 1];
  }
  Install(edit);
}

void RangeMap::Replace(const Layout& layout) {
  MutexLock lock(&mu_);
  separators_.clear();
  for (const std::string& separator : layout.separators) {
    separators_.push_back(Keep(separator));
  }
  units_.assign(layout.units.size(), 0);
  named_.assign(capacity_, false);
  lower_of_.assign(capacity_, nullptr);
  unnamed_from_ = 0;
  for (size_t p = 0; p < units_.size(); ++p) Name(p, layout.units[p]);
  Install(std::nullopt);
}

void RangeMap::Unname(uint32_t unit) {
  named_[unit] = false;
  unnamed_from_ = std::min<size_t>(unnamed_from_, unit);
}

void RangeMap::Name(size_t position, uint32_t unit) {
  units_[position] = unit;
  named_[unit] = true;
  lower_of_[unit] = position == 0 ? nullptr : separators_[position - 1];
  // (Every unit named, as a split that took the last free one leaves the
  // map: no walk over them all.)
  if (units_.size() == capacity_) unnamed_from_ = capacity_;
  while (unnamed_from_ < capacity_ && named_[unnamed_from_]) ++unnamed_from_;
}

const std::string* RangeMap::Keep(const std::string& key) {
  return &*arena_.insert(key).first;
}

bool RangeMap::ApplyTo(size_t b, const Edit& edit) {
  RangeMapBuffer& buffer = *buffers_[b];
  switch (edit.kind) {
    case Change::Kind::kMerge:
      for (uint32_t i = 1; i < edit.count; ++i) buffer.Erase(edit.position);
      buffer.SetUnit(edit.position, edit.unit);
      return true;
    case Change::Kind::kSplit:
      return buffer.Insert(edit.position, edit.separator, edit.prefix,
                           edit.unit);
    case Change::Kind::kSplitBelow:
      // The unit that keeps its keys moves up, behind the new separator.
      if (!buffer.Insert(edit.position, edit.separator, edit.prefix,
                         edit.kept_unit)) {
        return false;
      }
      buffer.SetUnit(edit.position, edit.unit);
      return true;
    case Change::Kind::kReassign:
      buffer.SetUnit(edit.position, edit.unit);
      return true;
  }
  return false;
}

void RangeMap::Install(const std::optional<Edit>& edit) {
  const uint64_t v = version_.load(kRelaxed);  // even: changes are serial
  const size_t next = 1 - BufferAt(v);
  // Odd while `next` is written: readers keep to the other.
  // (An exchange: no store below moves above it, as a release fence after
  // a plain store would ensure, in a form ThreadSanitizer understands.)
  version_.exchange(v + 1, std::memory_order_acq_rel);
  // The edits it lacks, then this one; or all of the map if it lacks
  // that, or an edit found no room (a rebuild packs its blocks).
  bool applied = !rebuild_[next] && edit.has_value();
  for (const Edit& e : pending_[next]) applied = applied && ApplyTo(next, e);
  applied = applied && ApplyTo(next, *edit);
  if (!applied) buffers_[next]->Rebuild(separators_, units_);
  pending_[next].clear();
  rebuild_[next] = false;
  const size_t last = 1 - next;
  if (edit) {
    pending_[last].push_back(*edit);
  } else {
    rebuild_[last] = true;
  }
  version_.store(v + 2, std::memory_order_release);
}

}  // namespace plush
