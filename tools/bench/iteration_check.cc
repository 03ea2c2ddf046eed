// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "iteration_check.h"

#include <algorithm>

#include "phases.h"

namespace plush::bench {

IterationCheck::IterationCheck(const BenchConfig& config, const KeySpace& keys,
                               const std::vector<uint64_t>& inserted,
                               const DeletedSet* deleted)
    : loaded_(config.records), deleted_(deleted), builder_(keys) {
  uint64_t end = loaded_;
  for (unsigned t = 0; t < inserted.size(); ++t) {
    if (inserted[t] > 0) {
      end = std::max(end, InsertedRecord(config, t, inserted[t] - 1) + 1);
    }
  }
  required_.resize(end);
  seen_.resize(end);
  for (uint64_t r = 0; r < loaded_; ++r) {
    required_[r] = deleted_ == nullptr || !deleted_->Contains(r);
  }
  for (unsigned t = 0; t < inserted.size(); ++t) {
    for (uint64_t k = 0; k < inserted[t]; ++k) {
      required_[InsertedRecord(config, t, k)] = true;
    }
  }
  required_count_ = static_cast<uint64_t>(
      std::count(required_.begin(), required_.end(), true));
}

bool IterationCheck::Visit(std::string_view key, std::string_view value) {
  ++visited_;
  const std::optional<uint64_t> record = builder_.RecordOf(key);
  const bool may_come =
      record.has_value() && *record < required_.size() &&
      (required_[*record] || (*record < loaded_ && deleted_ != nullptr &&
                              deleted_->Contains(*record)));
  if (!may_come) return Fail("the iteration returned " + KeyText(key));
  const uint64_t r = *record;
  if (seen_[r]) {
    return Fail("the iteration returned " + DescribeRecord(r, key) + " twice");
  }
  seen_[r] = true;
  if (required_[r]) ++required_seen_;
  if (!builder_.ValueMatches(r, value)) {
    return Fail("the iteration returned " + DescribeRecord(r, key) +
                " with a wrong value");
  }
  return true;
}

bool IterationCheck::Finish() {
  if (required_seen_ == required_count_) return true;
  uint64_t r = 0;
  while (!required_[r] || seen_[r]) ++r;
  return Fail("the iteration did not return " +
              DescribeRecord(r, builder_.Key(r)) + " (" +
              std::to_string(required_count_ - required_seen_) +
              " records missing)");
}

bool IterationCheck::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
  return false;
}

}  // namespace plush::bench
