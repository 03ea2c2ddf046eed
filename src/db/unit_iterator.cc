// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/unit_iterator.h"

#include <algorithm>

#include "util/key_hasher.h"

namespace plush {

void ScanBatch::Clear() {
  bytes_.clear();
  records_.clear();
}

void ScanBatch::Add(std::string_view key, std::string_view value,
                    bool tombstone) {
  records_.push_back({bytes_.size(), key.size(), value.size(), tombstone});
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
    LoadRange(*start);
  } else {
    live_.clear();
    position_ = 0;
  }
}

void UnitIterator::Next() {
  if (!Valid()) return;
  ++position_;
  while (position_ == live_.size() && sorted_ < order_.size()) SortMore();
  if (position_ == live_.size()) {
    if (ordered_ && range_.upper) {
      LoadRange(std::string(*range_.upper));
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
    status_ = source_->ReadRange(start, &batch_, &range_);
    if (!status_.ok()) {
      live_.clear();
      return;
    }
    if (SortBatch(SharedInRange(start)) || !range_.upper) break;
    start = *range_.upper;
  }
  StopAtUpperBound();
}

bool UnitIterator::SortBatch(size_t shared) {
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  order_.resize(records.size());
  for (uint32_t i = 0; i < order_.size(); ++i)
    order_[i] = {KeyPrefix(batch_.KeyOf(records[i]).substr(shared)), i};
  sorted_ = 0;
  while (live_.empty() && sorted_ < order_.size()) SortMore();
  return !live_.empty();
}

size_t UnitIterator::CommonPrefixLength() const {
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  if (records.empty()) return 0;
  const std::string_view first = batch_.KeyOf(records[0]);
  size_t shared = first.size();
  for (const ScanBatch::Record& r : records) {
    const std::string_view key = batch_.KeyOf(r);
    shared = std::min(shared, key.size());
    shared = static_cast<size_t>(
        std::mismatch(first.begin(), first.begin() + shared, key.begin())
            .first -
        first.begin());
  }
  return shared;
}

size_t UnitIterator::SharedInRange(std::string_view start) const {
  if (!range_.upper) return CommonPrefixLength();
  const std::string_view upper = *range_.upper;
  const size_t n = std::min(start.size(), upper.size());
  return static_cast<size_t>(
      std::mismatch(start.begin(), start.begin() + static_cast<ptrdiff_t>(n),
                    upper.begin())
          .first -
      start.begin());
}

// Scans usually read a few dozen records, while a unit holds hundreds:
// the batch is sorted in steps, the smallest kSortStep records at a time
// (selection, then a sort of those).
void UnitIterator::SortMore() {
  constexpr size_t kSortStep = 128;
  const std::vector<ScanBatch::Record>& records = batch_.records_;
  // By key (the prefix decides almost always); among versions of one key,
  // in batch order (newest first). A total order: a key's newest version
  // comes first even when its versions straddle two steps.
  auto before = [&](const SortKey& a, const SortKey& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const int c = batch_.KeyOf(records[a.record])
                      .compare(batch_.KeyOf(records[b.record]));
    return c != 0 ? c < 0 : a.record < b.record;
  };
  auto same_key = [&](const SortKey& a, const SortKey& b) {
    return a.prefix == b.prefix &&
           batch_.KeyOf(records[a.record]) == batch_.KeyOf(records[b.record]);
  };
  const auto first = order_.begin() + static_cast<ptrdiff_t>(sorted_);
  const size_t end = std::min(order_.size(), sorted_ + kSortStep);
  const auto last = order_.begin() + static_cast<ptrdiff_t>(end);
  if (last != order_.end()) std::nth_element(first, last, order_.end(), before);
  std::sort(first, last, before);
  for (size_t i = sorted_; i < end; ++i) {
    const bool newest = i == 0 || !same_key(order_[i - 1], order_[i]);
    if (newest && !records[order_[i].record].tombstone)
      live_.push_back(order_[i].record);
  }
  sorted_ = end;
}

}  // namespace plush
