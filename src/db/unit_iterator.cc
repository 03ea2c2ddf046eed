// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/unit_iterator.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "util/key_prefix.h"

namespace plush {

void ScanBatch::Clear() {
  bytes_.clear();
  records_.clear();
}

void ScanBatch::Add(std::string_view key, std::string_view value,
                    bool tombstone, uint64_t expires_at_ms) {
  records_.push_back(
      {bytes_.size(), key.size(), value.size(), tombstone, expires_at_ms});
  bytes_.append(key);
  bytes_.append(value);
}

void UnitIterator::Seek(std::string_view target) {
  if (!ordered_) {
    live_.clear();
    status_ = Status::NotSupported(
        "Seek needs a range-partitioned pool (this one is hash-partitioned: "
        "iterate it from SeekToFirst or SeekToPartition)");
    return;
  }
  status_ = Status::OK();
  want_ = kFirstBatch;
  LoadRange(target);
}

void UnitIterator::SeekToPartition(uint64_t partition) {
  status_ = Status::OK();
  if (!ordered_) {
    LoadUnit(partition);
    return;
  }
  const std::optional<std::string> start = source_->RangeStart(partition);
  if (start) {
    want_ = 0;
    LoadRange(*start);
  } else {
    live_.clear();
    position_ = 0;
  }
}

uint64_t UnitIterator::partition() const {
  if (!ordered_) return unit_;
  if (!range_position_) range_position_ = source_->PositionOf(range_from_);
  return *range_position_;
}

void UnitIterator::Next() {
  if (!Valid()) return;
  ++position_;
  if (position_ == live_.size()) {
    if (ordered_ && range_upper_) {
      LoadRange(std::string(*range_upper_));
    } else if (!ordered_ && unit_ + 1 < source_->unit_count()) {
      LoadUnit(unit_ + 1);
    }
  }
  StopAtUpperBound();
}

void UnitIterator::StopAtUpperBound() {
  if (upper_bound_ && Valid() && key() >= *upper_bound_) {
    live_.clear();
    position_ = 0;
  }
}

std::string_view UnitIterator::key() const {
  return Valid() ? batch_.KeyOf(current()) : std::string_view();
}

std::string_view UnitIterator::value() const {
  return Valid() ? batch_.ValueOf(current()) : std::string_view();
}

void UnitIterator::LoadUnit(uint64_t unit) {
  live_.clear();
  position_ = 0;
  for (unit_ = unit; unit_ < source_->unit_count(); ++unit_) {
    batch_.Clear();
    status_ = source_->ReadUnit(unit_, &batch_);
    if (!status_.ok()) {
      live_.clear();
      return;
    }
    if (SortBatch(CommonPrefixLength())) break;
  }
}

void UnitIterator::LoadRange(std::string_view from) {
  // `from` may point into batch_: copy it before the batch is reused.
  std::string start(from);
  live_.clear();
  position_ = 0;
  for (;;) {
    // Ranges from the upper bound on hold only larger keys: not read.
    if (upper_bound_ && start >= *upper_bound_) return;
    batch_.Clear();
    range_position_.reset();
    status_ = source_->ReadRange(start, upper_bound_, want_, &batch_,
                                 &range_upper_);
    if (!status_.ok()) {
      live_.clear();
      return;
    }
    want_ = want_ >= kLargestBatch ? 0 : 2 * want_;
    range_from_ = start;
    if (SortBatch(SharedInRange(start)) || !range_upper_) break;
    start = *range_upper_;
  }
  StopAtUpperBound();
}

bool UnitIterator::SortBatch(size_t shared) {
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  order_.resize(records.size());
  for (uint32_t i = 0; i < order_.size(); ++i)
    order_[i] = {KeyPrefix(batch_.KeyOf(records[i]).substr(shared)), i};
  SortByPrefix();
  SortEqualPrefixes();
  for (size_t i = 0; i < order_.size(); ++i) {
    const bool newest =
        i == 0 || order_[i - 1].prefix != order_[i].prefix ||
        batch_.KeyOf(records[order_[i - 1].record]) !=
            batch_.KeyOf(records[order_[i].record]);
    if (newest && !records[order_[i].record].tombstone)
      live_.push_back(order_[i].record);
  }
  return !live_.empty();
}

// Least significant digit first, one counting pass per digit, over only
// the bits in which the prefixes differ: in each byte, the span from its
// lowest to its highest differing bit, the spans packed side by side
// (order-preserving: the bits left out are the same in every prefix).
// Keys of decimal digits differ in the low 4 bits of a byte, so three
// differing digits sort in two passes of 64 counters instead of three of
// 256. A unit's few hundred records sort in a few microseconds; a
// comparison sort of them spent as long again on mispredicted branches.
void UnitIterator::SortByPrefix() {
  if (order_.empty()) return;
  uint64_t differ = 0;
  for (const SortKey& k : order_) differ |= k.prefix ^ order_[0].prefix;
  if (differ == 0) return;
  // Each byte's span of differing bits: its shift, mask and place in the
  // packed digits.
  struct Span {
    unsigned shift;
    uint64_t mask;
    unsigned at;
  };
  Span spans[8];
  size_t span_count = 0;
  unsigned bits = 0;
  for (unsigned byte = 0; byte < 8; ++byte) {
    const unsigned m = (differ >> (8 * byte)) & 0xFF;
    if (m == 0) continue;
    const unsigned low = static_cast<unsigned>(std::countr_zero(m));
    const unsigned width = 8 - static_cast<unsigned>(std::countl_zero(
                                   static_cast<uint8_t>(m))) - low;
    spans[span_count++] = {8 * byte + low, (uint64_t{1} << width) - 1, bits};
    bits += width;
  }
  // (Packed in place: prefixes stay equal where they were, which is all
  // that is asked of them after the sort.)
  for (SortKey& k : order_) {
    uint64_t packed = 0;
    for (size_t j = 0; j < span_count; ++j)
      packed |= (k.prefix >> spans[j].shift & spans[j].mask) << spans[j].at;
    k.prefix = packed;
  }
  const unsigned passes = (bits + 7) / 8;
  const unsigned width = (bits + passes - 1) / passes;
  const uint64_t digit = (uint64_t{1} << width) - 1;
  scratch_.resize(order_.size());
  SortKey* from = order_.data();
  SortKey* to = scratch_.data();
  for (unsigned shift = 0; shift < bits; shift += width) {
    uint32_t start[256];
    std::fill_n(start, digit + 1, 0);
    for (size_t i = 0; i < order_.size(); ++i)
      ++start[from[i].prefix >> shift & digit];
    uint32_t sum = 0;
    for (unsigned d = 0; d <= digit; ++d) sum += std::exchange(start[d], sum);
    for (size_t i = 0; i < order_.size(); ++i)
      to[start[from[i].prefix >> shift & digit]++] = from[i];
    std::swap(from, to);
  }
  if (from != order_.data())
    std::copy(from, from + order_.size(), order_.data());
}

void UnitIterator::SortEqualPrefixes() {
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  for (size_t i = 0; i < order_.size();) {
    size_t end = i + 1;
    while (end < order_.size() && order_[end].prefix == order_[i].prefix) ++end;
    if (end - i > 1) {
      std::stable_sort(order_.begin() + static_cast<ptrdiff_t>(i),
                       order_.begin() + static_cast<ptrdiff_t>(end),
                       [&](const SortKey& a, const SortKey& b) {
                         return batch_.KeyOf(records[a.record]) <
                                batch_.KeyOf(records[b.record]);
                       });
    }
    i = end;
  }
}

size_t UnitIterator::CommonPrefixLength() const {
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  if (records.empty()) return 0;
  const std::string_view first = batch_.KeyOf(records[0]);
  size_t shared = first.size();
  for (const ScanBatch::Record& r : records) {
    shared = SharedPrefixLength(first.substr(0, shared), batch_.KeyOf(r));
  }
  return shared;
}

size_t UnitIterator::SharedInRange(std::string_view start) const {
  if (!range_upper_) return CommonPrefixLength();
  return SharedPrefixLength(start, *range_upper_);
}

}  // namespace plush
