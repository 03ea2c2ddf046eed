// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// On-media layout of the recovery logs (paper §4.2; docs/format.md,
// "Recovery logs"). Keep the two in sync.
//
// The log region holds log_count logs of log_chunks_per_log chunks of
// log_chunk_size bytes each; chunk c of log l starts at
//   log_region_offset + (l * log_chunks_per_log + c) * log_chunk_size.
//
// A chunk is a 64-byte header followed by 24-byte entries:
//
//   header word 0 ("state"):  log_seq << 8 | in_use << 2 | check
//     check    2 bits, 1..3 (never 0): the chunk's current generation
//     in_use   the chunk holds entries of its log (else it is free)
//     log_seq  56 bits: order of the chunk within its log (higher = newer)
//   header words 1..7: zero
//
//   entry (3 words; RAWL, one persistence barrier per append):
//     w0 = check << 62 | key[0..61]
//     w1 = check << 62 | value[0..61]
//     w2 = check << 62 | key[62..63] << 60 | value[62..63] << 58
//          | tombstone << 57 | indirect << 56 | position << 48
//          | type << 46 | epoch (46 bits)
//
//   type 0 (kRecord)  a record on its own
//   type 1 (kMember)  a record of a write batch: valid only if the batch's
//                     commit entry follows its members without a gap
//   type 2 (kCommit)  ends a write batch: w0's low 62 bits count its
//                     members; epoch 0; position 0: the members are the
//                     entries right before it (w1 0); position 1
//                     (kSpilledCommit): they are the first entries of the
//                     batch spill area (batch_spill.h), and w1 holds their
//                     checksum
//   type 3            never written (an entry of type 3 is invalid)
//
//   `position` is the slot the record took in its DRAM entry, `epoch` that
//   entry's epoch: (epoch, position) orders the records of a DRAM entry
//   even across logs (a batch's records all go to one log), which is how
//   recovery rebuilds each DRAM entry in its original order. A batch that
//   gives an entry more records than it holds numbers them on into the
//   entry's next epochs (position 0 of epoch + 1 after the last slot).
//
// An entry is valid iff the check bits of all three words equal the
// chunk's check. Each word is stored atomically, so a torn entry has at
// least one word with another check (older content, or zero: check 0 is
// never valid). A batch is all or nothing: it is appended as one run of
// slots (members, then the commit) with one barrier, and replayed only if
// every entry of the run is valid; or, too large for a chunk, as a commit
// whose members the spill area holds, written under the same barrier and
// replayed only if they match its checksum. The state word changes in
// single atomic stores: freeing a chunk advances its check (invalidating
// every entry at once), activating it sets a new log_seq and in_use.
//
// Why two check bits and not the paper's one flag bit: a slot that a
// crashed writer left half-written holds words of two generations. With
// three check values, recovery zeroing every invalid slot of the chunks in
// use, and every slot that no run writes zeroed (the rest of a chunk after
// a run that does not fit, slots as they are backed: RecoveryLogs::
// ZeroSlots), so that every slot is written or zeroed in each generation,
// a slot never mixes the current generation with the one two before it,
// which a single flag bit could not tell apart, nor with the one three
// before, whose check is the current one.

#ifndef PLUSH_LOG_LOG_FORMAT_H_
#define PLUSH_LOG_LOG_FORMAT_H_

#include <cstdint>

namespace plush::log {

inline constexpr uint64_t kLogChunkHeaderSize = 64;
inline constexpr uint64_t kEntryWords = 3;
inline constexpr uint64_t kEntrySize = kEntryWords * 8;
inline constexpr unsigned kEpochBits = 46;
inline constexpr uint64_t kMaxEpoch = (1ull << kEpochBits) - 1;
inline constexpr unsigned kPositionBits = 8;

struct LogChunkState {
  uint64_t log_seq = 0;
  bool in_use = false;
  uint32_t check = 1;

  uint64_t Encode() const {
    return log_seq << 8 | uint64_t{in_use} << 2 | check;
  }
  static LogChunkState Decode(uint64_t word) {
    return {word >> 8, ((word >> 2) & 1) != 0, static_cast<uint32_t>(word & 3)};
  }
  // The check of the generation after `check` (1 -> 2 -> 3 -> 1).
  static uint32_t NextCheck(uint32_t check) { return check % 3 + 1; }
};

// What an entry is (DO NOT CHANGE: persisted).
enum class EntryType : uint8_t {
  kRecord = 0,
  kMember = 1,
  kCommit = 2,
};

// The `position` of a commit entry whose members are in the batch spill
// area (DO NOT CHANGE: persisted). A commit of members in its own chunk has
// position 0; any other position makes a commit invalid.
inline constexpr uint8_t kSpilledCommit = 1;

// The low 62 bits of a word: what an entry's w0 and w1 hold of it.
inline constexpr uint64_t kLow62 = (1ull << 62) - 1;

// A decoded recovery-log entry. `key` and `value` are the two words of a
// hash-table slot (an inline 8-byte key and value, or a key hash and a
// payload reference when `indirect`). For a kCommit entry, `key` holds the
// number of members (and `value` their checksum, if they are spilled).
struct LogRecord {
  uint64_t key = 0;
  uint64_t value = 0;
  uint64_t epoch = 0;
  bool tombstone = false;
  bool indirect = false;
  uint8_t position = 0;  // the record's slot in its DRAM entry
  EntryType type = EntryType::kRecord;
};

inline void EncodeEntry(const LogRecord& r, uint32_t check, uint64_t out[3]) {
  const uint64_t c = uint64_t{check} << 62;
  out[0] = c | (r.key & kLow62);
  out[1] = c | (r.value & kLow62);
  out[2] = c | (r.key >> 62) << 60 | (r.value >> 62) << 58 |
           uint64_t{r.tombstone} << 57 | uint64_t{r.indirect} << 56 |
           uint64_t{r.position} << 48 |
           uint64_t{static_cast<uint8_t>(r.type)} << kEpochBits |
           (r.epoch & kMaxEpoch);
}

// Returns false if the entry is not valid under `check`.
inline bool DecodeEntry(const uint64_t in[3], uint32_t check, LogRecord* r) {
  const uint64_t c = check;
  if ((in[0] >> 62) != c || (in[1] >> 62) != c || (in[2] >> 62) != c)
    return false;
  const uint64_t type = (in[2] >> kEpochBits) & 3;
  if (type > static_cast<uint64_t>(EntryType::kCommit)) return false;
  r->key = (in[0] & kLow62) | ((in[2] >> 60) & 3) << 62;
  r->value = (in[1] & kLow62) | ((in[2] >> 58) & 3) << 62;
  r->tombstone = ((in[2] >> 57) & 1) != 0;
  r->indirect = ((in[2] >> 56) & 1) != 0;
  r->position = static_cast<uint8_t>(in[2] >> 48);
  r->type = static_cast<EntryType>(type);
  r->epoch = in[2] & kMaxEpoch;
  return true;
}

inline uint64_t EntriesPerChunk(uint64_t chunk_size) {
  return (chunk_size - kLogChunkHeaderSize) / kEntrySize;
}

}  // namespace plush::log

#endif  // PLUSH_LOG_LOG_FORMAT_H_
