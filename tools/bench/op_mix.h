// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The operations of the run phase and the ratios in which they are mixed.

#ifndef PLUSH_TOOLS_BENCH_OP_MIX_H_
#define PLUSH_TOOLS_BENCH_OP_MIX_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace plush::bench {

enum class OpType : uint8_t {
  kLookup,          // Get of a loaded record; must find it (unless deleted)
  kNegativeLookup,  // Get of a key never inserted; must not find it
  kInsert,          // Put of a new record, unique across threads
  kUpdate,          // Put of a loaded record
  kDelete,          // Delete of a loaded record
  kScan,            // ordered scan of --scan-size records from a loaded key
};
inline constexpr size_t kOpTypeCount = 6;

// "lookup", "negative-lookup", "insert", "update", "delete", "scan": the
// names of the command-line flags and of the JSON fields.
std::string_view OpName(OpType type);

struct OpMix {
  std::array<double, kOpTypeCount> ratios{};

  double& operator[](OpType type) { return ratios[static_cast<size_t>(type)]; }
  double operator[](OpType type) const {
    return ratios[static_cast<size_t>(type)];
  }

  // Empty if every ratio is in [0, 1] and they sum to 1, else why not.
  std::string Validate() const;
  // A name for reports: the operation's name if there is only one kind
  // ("insert"), else "lookup=0.5,insert=0.5".
  std::string Name() const;
};

// Draws operation types in the ratios of a valid OpMix.
class OpPicker {
 public:
  explicit OpPicker(const OpMix& mix);

  // `random` is uniform over 64-bit integers.
  OpType Pick(uint64_t random) const {
    for (size_t i = 0; i < kOpTypeCount; ++i) {
      if (random < thresholds_[i]) return static_cast<OpType>(i);
    }
    return last_;
  }

 private:
  // thresholds_[i] = 2^64 * (ratio[0] + ... + ratio[i]), saturated.
  std::array<uint64_t, kOpTypeCount> thresholds_{};
  OpType last_ = OpType::kInsert;  // the last type with a non-zero ratio
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_OP_MIX_H_
