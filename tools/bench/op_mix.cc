// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "op_mix.h"

#include <cmath>
#include <sstream>

namespace plush::bench {

std::string_view OpName(OpType type) {
  switch (type) {
    case OpType::kLookup:
      return "lookup";
    case OpType::kNegativeLookup:
      return "negative-lookup";
    case OpType::kInsert:
      return "insert";
    case OpType::kUpdate:
      return "update";
    case OpType::kDelete:
      return "delete";
    case OpType::kScan:
      return "scan";
  }
  return "unknown";
}

std::string OpMix::Validate() const {
  double sum = 0;
  for (size_t i = 0; i < kOpTypeCount; ++i) {
    if (!(ratios[i] >= 0 && ratios[i] <= 1)) {
      return "the --" + std::string(OpName(static_cast<OpType>(i))) +
             " ratio must be in [0, 1]";
    }
    sum += ratios[i];
  }
  // Ratios like 0.1 are not exact in binary; allow for their rounding.
  if (std::abs(sum - 1) > 1e-9) {
    std::ostringstream out;
    out << "operation ratios must sum to 1, not " << sum;
    return out.str();
  }
  return {};
}

std::string OpMix::Name() const {
  std::ostringstream out;
  std::string_view only;
  int kinds = 0;
  for (size_t i = 0; i < kOpTypeCount; ++i) {
    if (ratios[i] == 0) continue;
    only = OpName(static_cast<OpType>(i));
    out << (kinds++ > 0 ? "," : "") << only << "=" << ratios[i];
  }
  return kinds == 1 ? std::string(only) : out.str();
}

OpPicker::OpPicker(const OpMix& mix) {
  double cumulative = 0;
  for (size_t i = 0; i < kOpTypeCount; ++i) {
    cumulative += mix.ratios[i];
    thresholds_[i] = cumulative >= 1
                         ? UINT64_MAX
                         : static_cast<uint64_t>(cumulative * 0x1.0p64);
    if (mix.ratios[i] > 0) last_ = static_cast<OpType>(i);
  }
}

}  // namespace plush::bench
