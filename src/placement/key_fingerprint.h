// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Order-preserving fingerprints of keys, kept in the top bits of the key
// word of an indirect slot in range pools (docs/format.md §4.2), so that a
// scan can leave out the records of its unit that lie below where it
// starts without reading their payload entries (which were three fifths
// of the time of a scan of long keys).
//
// A key written on a unit whose range begins at `lower` shares its first
// min(lcp(key, lower), 63) bytes with `lower`: that number is the key's
// fingerprint depth, and the 18 bits of the key that follow them (zeros
// past its end) its fingerprint bits. While a unit keeps its records,
// re-balancing moves the lower bound of its range only up, and only to
// one at or below every key it holds (a split below its keys, db/
// range_rebalancer.h): a key between two bounds shares at least as many
// bytes with the higher one as with the lower, so with the unit's current
// lower bound a fingerprint still tells the key's first 8·depth + 18 bits,
// which is all a Filter reads of it (Fits).
//
// Part of the on-media format: DO NOT CHANGE.

#ifndef PLUSH_PLACEMENT_KEY_FINGERPRINT_H_
#define PLUSH_PLACEMENT_KEY_FINGERPRINT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plush::fingerprint {

// Bits 40..63 of the key word: depth (6 bits) << 18 | fingerprint bits.
inline constexpr unsigned kShift = 40;
inline constexpr uint64_t kMask = ~((uint64_t{1} << kShift) - 1);
inline constexpr unsigned kBits = 18;
inline constexpr size_t kMaxDepth = 63;

// The fingerprint of `key` written on a unit whose range begins at
// `lower` (empty for the first range), in place: bits 40..63.
uint64_t Of(std::string_view key, std::string_view lower);
// Whether `word` (a key word) holds a fingerprint of `key` written on a
// unit whose range began at `lower` or below it, when the key lay in its
// range: one a Filter on `lower` reads rightly.
bool Fits(uint64_t word, std::string_view key, std::string_view lower);

// Tells, from the fingerprints of slots written on one unit, keys that
// certainly lie outside [from, upper) of the unit's current range, which
// begins at `lower`.
class Filter {
 public:
  // REQUIRES: lower <= from (< *upper).
  Filter(std::string_view lower, std::string_view from,
         const std::optional<std::string_view>& upper);

  // Whether the key whose slot's key word is `word` lies outside
  // [from, upper).
  bool Excludes(uint64_t word) const {
    const size_t depth = word >> (kShift + kBits);
    const uint32_t bits = (word >> kShift) & ((1u << kBits) - 1);
    // Deeper than where `lower` and `from` part: the key follows `lower`
    // there, below `from` (and `upper`). (Bitwise: scans ask this of
    // hundreds of slots that pass or fail at random.)
    const bool below = (depth > from_shared_) | (bits < from_bits_[depth]);
    const bool above =
        (depth <= upper_shared_) & (bits > upper_bits_[depth]);
    return below | above;
  }

 private:
  // Fills (*bits)[d] with the fingerprint bits of `bound` after depth d,
  // for every depth at which it shares its first d bytes with `lower`;
  // returns the length of the prefix they share.
  static size_t BitsAfter(std::string_view lower, std::string_view bound,
                          std::array<uint32_t, kMaxDepth + 1>* bits);

  size_t from_shared_;
  size_t upper_shared_;
  std::array<uint32_t, kMaxDepth + 1> from_bits_{};
  // Without an upper bound: every depth, all ones (no key is above).
  std::array<uint32_t, kMaxDepth + 1> upper_bits_{};
};

// Of the key words `words` of slots that a Filter on `from` kept (written
// on one unit), a key C > `from` on which a Filter on [from, C) keeps
// about `count` of them or more (more where the fingerprints tell keys
// apart coarsely, and those below `from` they cannot tell from it) and
// leaves out the others, whose keys are at or above C; nullopt if there
// is none (the fingerprints do not tell so many apart).
std::optional<std::string> BatchEnd(std::string_view from,
                                    const std::vector<uint64_t>& words,
                                    size_t count);

}  // namespace plush::fingerprint

#endif  // PLUSH_PLACEMENT_KEY_FINGERPRINT_H_
