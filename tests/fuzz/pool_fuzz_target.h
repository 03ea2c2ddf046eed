// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The damaged-pool fuzz target. An input is not a pool (a pool is at least
// a few hundred KiB): it is an edit script applied to one valid pool image,
// built once per process with PopulatePool() on the sim back end. Each run
// restores the edited image into a fresh sim device (no file system) and
// checks the damaged-pool contract of damaged_pool.h on it.
//
// Input format (little-endian; a truncated trailing record is ignored):
//
//   input  := edit* [0xFF op*]
//   edit   := kind:u8 region:u8 offset:u32 arg:u16            8 bytes
//   op     := kind:u8 key:u8                                  2 bytes
//
//   edit kind % 7:  0 flip bit (arg % 8) of the byte
//                   1 set the byte to arg & 0xFF
//                   2 set the 8-byte word to kInteresting[arg % size]
//                   3 add (int16) arg to the 8-byte word
//                   4 zero the 64-byte line
//                   5 copy the line arg lines further (in the region) over it
//                   6 truncate the image at the offset (rounded down to 8)
//   region % 7:     0 superblock (144 bytes)    1 root page (1024 bytes)
//                   2 log chunk state words     3 log region
//                   4 level directories         5 heap in use
//                   6 the whole image
//     The offset is taken modulo the region's size, so every edit lands
//     inside its region; regions are those of the undamaged image. In
//     region 4, offset >> 24 picks the level (modulo the level count) and
//     the low 24 bits the byte in its directory (entry = byte / 512).
//   op kind % 5:    Get, Put, Delete, Checkpoint, Verify on key 3 * key
//     (a kind byte of 0xFF can never start an edit, so it ends the edits).
//   No op section: DefaultDamageOps(), which includes a Checkpoint.
//
// tests/fuzz/make_corpus.py writes the seed corpus in this format.

#ifndef PLUSH_TESTS_FUZZ_POOL_FUZZ_TARGET_H_
#define PLUSH_TESTS_FUZZ_POOL_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace plush::test {

// Runs one input; returns "" if the contract held, else what broke.
std::string RunPoolFuzzInput(const uint8_t* data, size_t size);

}  // namespace plush::test

#endif  // PLUSH_TESTS_FUZZ_POOL_FUZZ_TARGET_H_
