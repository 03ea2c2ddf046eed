// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Turns record numbers into keys and values.
//
// Record r (r < 2^63) has, by the key order:
//   hashed      the key Mix64(r ^ salt) in big-endian order, padded with
//               fixed random filler to its size (the default: keys spread
//               uniformly, in no relation to the record numbers);
//   sequential  r in big-endian order, padded the same way (monotonic
//               binary keys: counters, timestamps);
//   user        "user:" and r in at least 8 decimal digits (text keys that
//               share a prefix, "user:00000042"; the key size is that).
// Absent keys (for negative lookups) are those of r | 2^63. Each mapping is
// a bijection, so keys of distinct records differ and no absent key is ever
// a record's key. (The salt keeps record 0 away from the all-zero key,
// Mix64's fixed point, which engines may treat specially.) Values start with
// an 8-byte tag derived from the record and continue with random filler (so
// compression cannot flatter any engine); a reader checks a value by
// regenerating it. Sizes follow the SizeSpecs, as functions of r.

#ifndef PLUSH_TOOLS_BENCH_KEY_SPACE_H_
#define PLUSH_TOOLS_BENCH_KEY_SPACE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "size_spec.h"

namespace plush::bench {

// Keys shorter than this could not hold the unique 8-byte prefix.
inline constexpr size_t kMinKeySize = 8;

enum class KeyOrder { kHashed, kSequential, kUser };
// "hashed", "sequential", "user".
std::string_view KeyOrderName(KeyOrder order);

class KeySpace {
 public:
  KeySpace(SizeSpec key_size, SizeSpec value_size,
           KeyOrder order = KeyOrder::kHashed);

  const SizeSpec& key_size() const { return key_size_; }
  const SizeSpec& value_size() const { return value_size_; }
  KeyOrder order() const { return order_; }

 private:
  friend class RecordBuilder;

  SizeSpec key_size_;
  SizeSpec value_size_;
  KeyOrder order_;
};

// Scratch buffers that materialize one thread's keys and values without
// allocating. The returned views stay valid until the next call of the same
// method.
class RecordBuilder {
 public:
  explicit RecordBuilder(const KeySpace& space);

  std::string_view Key(uint64_t record) { return BuildKey(record); }
  std::string_view AbsentKey(uint64_t record) {
    return BuildKey(record | kAbsentBit);
  }
  std::string_view Value(uint64_t record);
  // The record whose key `key` is, or nothing if it is no record's key
  // (an absent key, or bytes this key space never makes).
  std::optional<uint64_t> RecordOf(std::string_view key);
  bool ValueMatches(uint64_t record, std::string_view value) {
    return value == Value(record);
  }

 private:
  static constexpr uint64_t kAbsentBit = 1ULL << 63;

  std::string_view BuildKey(uint64_t id);

  const KeySpace& space_;
  std::vector<char> key_;
  std::vector<char> value_;
};

// For messages: "key 0x0123456789abcdef", the key's first (at most) 8
// bytes, which identify a record.
std::string KeyText(std::string_view key);
// "record 42 (key 0x0123456789abcdef)".
std::string DescribeRecord(uint64_t record, std::string_view key);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_KEY_SPACE_H_
