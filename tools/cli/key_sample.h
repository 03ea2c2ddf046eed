// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A uniform sample of a stream of keys of unknown length (reservoir
// sampling), sized for a range pool's boundaries (Options::range_key_sample):
// 64 keys per DRAM directory entry place each boundary within a few percent
// of the stream's quantile, whatever the stream's length.

#ifndef PLUSH_TOOLS_CLI_KEY_SAMPLE_H_
#define PLUSH_TOOLS_CLI_KEY_SAMPLE_H_

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace plush::cli {

class KeySample {
 public:
  explicit KeySample(uint32_t dram_directory_bits)
      : capacity_(uint64_t{64} << dram_directory_bits) {}

  void Add(std::string_view key) {
    if (keys_.size() < capacity_) {
      keys_.emplace_back(key);
    } else if (const uint64_t slot = rng_() % (seen_ + 1); slot < capacity_) {
      keys_[slot].assign(key);
    }
    ++seen_;
  }

  uint64_t seen() const { return seen_; }
  std::vector<std::string> Take() { return std::move(keys_); }

 private:
  const uint64_t capacity_;
  std::mt19937_64 rng_{0x5eed};  // fixed: the same input, the same pool
  std::vector<std::string> keys_;
  uint64_t seen_ = 0;
};

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_KEY_SAMPLE_H_
