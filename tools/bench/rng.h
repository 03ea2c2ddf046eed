// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Random numbers for the benchmark driver: a per-thread xoshiro256**
// generator (fast, small state, good statistical quality) seeded through
// SplitMix64, and Mix64, a bijective 64-bit mixer used to turn record
// numbers into keys, with its inverse.

#ifndef PLUSH_TOOLS_BENCH_RNG_H_
#define PLUSH_TOOLS_BENCH_RNG_H_

#include <cstdint>

namespace plush::bench {

// GCC's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 Uint128;

// SplitMix64's finalizer (Stafford variant 13). Every step (xor-shift,
// multiplication by an odd constant) is invertible, so the function is a
// bijection on 64-bit integers: distinct inputs give distinct outputs, which
// is what makes generated keys unique without remembering them.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The inverse of Mix64: each step undone in reverse order (an xor-shift
// by k is undone by xoring the shifts by k, 2k, ...; a multiplication by
// the constant's inverse modulo 2^64). Turns a key back into its record.
inline uint64_t Unmix64(uint64_t x) {
  x ^= (x >> 31) ^ (x >> 62);
  x *= 0x319642b2d24d8ec3ULL;
  x ^= (x >> 27) ^ (x >> 54);
  x *= 0x96de1b173f119089ULL;
  x ^= (x >> 30) ^ (x >> 60);
  return x;
}

// xoshiro256** (Blackman and Vigna). Not thread-safe: every thread owns one.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    // SplitMix64 expands the seed so that nearby seeds (seed + thread id)
    // give unrelated streams and the state is never all zero.
    for (uint64_t& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      word = Mix64(seed);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 bits of precision.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, n) by Lemire's multiply-shift: no division, and a bias
  // of at most n / 2^64, far below anything a benchmark can observe.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<Uint128>(Next()) * n) >> 64);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_RNG_H_
