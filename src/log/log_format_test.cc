// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The recovery-log format on its own (log/log_format.h, docs/format.md §5):
// the three words of an entry, which entries are valid under which check
// bits (every way an entry can be torn or stale), and the chunk state word.

#include "log/log_format.h"

#include <gtest/gtest.h>

#include <ostream>
#include <random>
#include <tuple>

namespace plush::log {

void PrintTo(const LogRecord& r, std::ostream* os) {
  *os << "{key " << r.key << ", value " << r.value << ", epoch " << r.epoch
      << ", tombstone " << r.tombstone << ", indirect " << r.indirect
      << ", position " << unsigned{r.position} << ", type "
      << static_cast<int>(r.type) << "}";
}

namespace {

auto Fields(const LogRecord& r) {
  return std::make_tuple(r.key, r.value, r.epoch, r.tombstone, r.indirect,
                         r.position, r.type);
}

constexpr uint64_t kTop = 62;  // the check bits' position in every word

class LogFormatTest : public ::testing::Test {
 protected:
  LogRecord RandomRecord() {
    LogRecord r;
    r.key = rng_();
    r.value = rng_();
    r.epoch = rng_() & kMaxEpoch;
    r.tombstone = rng_() & 1;
    r.indirect = rng_() & 1;
    r.position = static_cast<uint8_t>(rng_());
    r.type = static_cast<EntryType>(rng_() % 3);
    return r;
  }
  // An entry of a record on its own, valid under `check`.
  void Encode(uint32_t check, uint64_t out[3]) {
    LogRecord r;
    r.key = 0x0123456789ABCDEFull;
    r.value = 0xFEDCBA9876543210ull;
    r.epoch = 77;
    r.position = 5;
    EncodeEntry(r, check, out);
  }
  static bool Valid(const uint64_t w[3], uint32_t check) {
    LogRecord r;
    return DecodeEntry(w, check, &r);
  }

  std::mt19937_64 rng_{2026};
};

TEST_F(LogFormatTest, EveryFieldRoundTrips) {
  for (uint32_t check = 1; check <= 3; ++check) {
    for (int i = 0; i < 20000; ++i) {
      const LogRecord in = RandomRecord();
      uint64_t w[3];
      EncodeEntry(in, check, w);
      LogRecord out;
      ASSERT_TRUE(DecodeEntry(w, check, &out)) << ::testing::PrintToString(in);
      ASSERT_EQ(Fields(out), Fields(in)) << ::testing::PrintToString(in);
    }
  }
  // The extremes of every field at once.
  LogRecord max;
  max.key = max.value = ~uint64_t{0};
  max.epoch = kMaxEpoch;
  max.tombstone = max.indirect = true;
  max.position = 255;
  max.type = EntryType::kCommit;
  uint64_t w[3];
  EncodeEntry(max, 3, w);
  LogRecord out;
  ASSERT_TRUE(DecodeEntry(w, 3, &out));
  EXPECT_EQ(Fields(out), Fields(max));
}

// docs/format.md §5.2 and its worked example (§8).
TEST_F(LogFormatTest, WordsAreLaidOutAsTheFormatDocumentSays) {
  for (uint64_t c = 1; c <= 3; ++c) {
    LogRecord r;
    r.key = 1;
    r.value = 2;
    r.epoch = 1;
    uint64_t w[3];
    EncodeEntry(r, static_cast<uint32_t>(c), w);
    EXPECT_EQ(w[0], c << kTop | 1);
    EXPECT_EQ(w[1], c << kTop | 2);
    EXPECT_EQ(w[2], c << kTop | 1);
    r.position = 1;  // the entry's second write
    EncodeEntry(r, static_cast<uint32_t>(c), w);
    EXPECT_EQ(w[2], c << kTop | uint64_t{1} << 48 | 1);
  }
  LogRecord r;
  r.key = 0xC000000000000007ull;    // top bits 11
  r.value = 0x4000000000000009ull;  // top bits 01
  r.tombstone = true;
  r.indirect = true;
  r.position = 0xAB;
  r.type = EntryType::kMember;
  r.epoch = 0x123456789ull;
  uint64_t w[3];
  EncodeEntry(r, 2, w);
  EXPECT_EQ(w[0], uint64_t{2} << kTop | 7);
  EXPECT_EQ(w[1], uint64_t{2} << kTop | 9);
  EXPECT_EQ(w[2], uint64_t{2} << kTop | uint64_t{3} << 60 | uint64_t{1} << 58 |
                      uint64_t{1} << 57 | uint64_t{1} << 56 |
                      uint64_t{0xAB} << 48 | uint64_t{1} << 46 |
                      0x123456789ull);
}

// §5.3: a commit entry counts its members in w0; the rest is zero.
TEST_F(LogFormatTest, CommitEntryCountsItsMembers) {
  LogRecord commit;
  commit.key = 37;
  commit.type = EntryType::kCommit;
  uint64_t w[3];
  EncodeEntry(commit, 1, w);
  EXPECT_EQ(w[0], uint64_t{1} << kTop | 37);
  EXPECT_EQ(w[1], uint64_t{1} << kTop);
  EXPECT_EQ(w[2], uint64_t{1} << kTop | uint64_t{2} << 46);
  LogRecord out;
  ASSERT_TRUE(DecodeEntry(w, 1, &out));
  EXPECT_EQ(out.type, EntryType::kCommit);
  EXPECT_EQ(out.key, 37u);
}

// A torn entry: each word is stored atomically, so a crash leaves some
// words of the new entry and some of what the slot held before: an older
// generation's words, or zeros.
TEST_F(LogFormatTest, TornWordFromAnotherGenerationIsInvalid) {
  for (uint32_t check = 1; check <= 3; ++check) {
    for (int word = 0; word < 3; ++word) {
      for (uint64_t other = 0; other <= 3; ++other) {
        if (other == check) continue;
        uint64_t w[3];
        Encode(check, w);
        w[word] = (w[word] & ((uint64_t{1} << kTop) - 1)) | other << kTop;
        EXPECT_FALSE(Valid(w, check)) << "check " << check << ", word " << word
                                      << " with check " << other;
      }
    }
  }
}

TEST_F(LogFormatTest, TornWordFromAnOlderEntryIsInvalid) {
  // The slot held an entry of the generation before (check - 1): the new
  // entry's first word landed, the others did not.
  for (uint32_t check = 1; check <= 3; ++check) {
    const uint32_t before = check == 1 ? 3 : check - 1;
    uint64_t old_words[3];
    uint64_t new_words[3];
    Encode(before, old_words);
    Encode(check, new_words);
    for (int landed = 1; landed < 7; ++landed) {  // subsets of words
      uint64_t w[3];
      for (int i = 0; i < 3; ++i)
        w[i] = (landed >> i) & 1 ? new_words[i] : old_words[i];
      EXPECT_FALSE(Valid(w, check))
          << "check " << check << ", landed words " << landed << " of 7";
      EXPECT_FALSE(Valid(w, before));
    }
  }
}

TEST_F(LogFormatTest, ZeroedSlotIsInvalidUnderEveryCheck) {
  const uint64_t zero[3] = {0, 0, 0};
  for (uint32_t check = 1; check <= 3; ++check)
    EXPECT_FALSE(Valid(zero, check)) << "check " << check;
  // A slot of which one word was written before the crash.
  for (uint32_t check = 1; check <= 3; ++check) {
    for (int word = 0; word < 3; ++word) {
      uint64_t full[3];
      Encode(check, full);
      uint64_t w[3] = {0, 0, 0};
      w[word] = full[word];
      EXPECT_FALSE(Valid(w, check)) << "check " << check << ", word " << word;
    }
  }
}

// Freeing a chunk advances its check: every entry of the old generation
// turns invalid at once, under both later checks.
TEST_F(LogFormatTest, EntryOfAnotherGenerationIsInvalid) {
  for (uint32_t check = 1; check <= 3; ++check) {
    uint64_t w[3];
    Encode(check, w);
    EXPECT_TRUE(Valid(w, check));
    const uint32_t next = LogChunkState::NextCheck(check);
    EXPECT_FALSE(Valid(w, next)) << "check " << check;
    EXPECT_FALSE(Valid(w, LogChunkState::NextCheck(next))) << "check " << check;
  }
}

TEST_F(LogFormatTest, TypeThreeIsInvalid) {
  for (uint32_t check = 1; check <= 3; ++check) {
    uint64_t w[3];
    Encode(check, w);
    w[2] |= uint64_t{3} << 46;
    EXPECT_FALSE(Valid(w, check)) << "check " << check;
  }
}

// An epoch beyond 46 bits must not spill into the type bits (it would turn
// a record into a batch member or an invalid type 3).
TEST_F(LogFormatTest, EpochIsCutToItsFieldAndLeavesTheTypeAlone) {
  LogRecord r;
  r.epoch = (uint64_t{3} << kEpochBits) | 12345;
  r.type = EntryType::kRecord;
  uint64_t w[3];
  EncodeEntry(r, 1, w);
  LogRecord out;
  ASSERT_TRUE(DecodeEntry(w, 1, &out));
  EXPECT_EQ(out.type, EntryType::kRecord);
  EXPECT_EQ(out.epoch, 12345u);
}

// Format version 1 wrote neither positions nor types: its entries read as
// records on their own at position 0.
TEST_F(LogFormatTest, VersionOneEntryReadsAsARecordAtPositionZero) {
  const uint64_t c = 2;
  const uint64_t w[3] = {c << kTop | 10, c << kTop | 20,
                         c << kTop | uint64_t{1} << 57 | 999};
  LogRecord out;
  ASSERT_TRUE(DecodeEntry(w, 2, &out));
  EXPECT_EQ(out.type, EntryType::kRecord);
  EXPECT_EQ(out.position, 0);
  EXPECT_EQ(out.epoch, 999u);
  EXPECT_TRUE(out.tombstone);
  EXPECT_EQ(out.key, 10u);
  EXPECT_EQ(out.value, 20u);
}

TEST_F(LogFormatTest, ChunkStateWordRoundTripsAndANewChunkIsFreeWithCheckOne) {
  EXPECT_EQ(LogChunkState{}.Encode(), 1u) << "format §5.1: a new pool's word";
  const LogChunkState fresh = LogChunkState::Decode(1);
  EXPECT_FALSE(fresh.in_use);
  EXPECT_EQ(fresh.check, 1u);
  EXPECT_EQ(fresh.log_seq, 0u);
  const LogChunkState s{(uint64_t{1} << 56) - 1, true, 3};
  EXPECT_EQ(s.Encode(), ~uint64_t{0} << 8 | 4 | 3);
  const LogChunkState back = LogChunkState::Decode(s.Encode());
  EXPECT_EQ(back.log_seq, s.log_seq);
  EXPECT_TRUE(back.in_use);
  EXPECT_EQ(back.check, 3u);
  EXPECT_EQ(LogChunkState::Decode(uint64_t{9} << 8 | 2).log_seq, 9u);
  EXPECT_FALSE(LogChunkState::Decode(uint64_t{9} << 8 | 2).in_use);
}

TEST_F(LogFormatTest, ChecksCycleThroughThreeNonZeroGenerations) {
  EXPECT_EQ(LogChunkState::NextCheck(1), 2u);
  EXPECT_EQ(LogChunkState::NextCheck(2), 3u);
  EXPECT_EQ(LogChunkState::NextCheck(3), 1u);
}

TEST_F(LogFormatTest, ChunkHoldsWholeEntriesAfterItsHeader) {
  EXPECT_EQ(kEntrySize, 24u);
  EXPECT_EQ(kLogChunkHeaderSize, 64u);
  EXPECT_EQ(EntriesPerChunk(4096), 168u) << "format §8";
  EXPECT_EQ(EntriesPerChunk(64 + 24 * 10 + 23), 10u);
  EXPECT_EQ(EntriesPerChunk(uint64_t{1} << 30), ((1u << 30) - 64) / 24);
}

}  // namespace
}  // namespace plush::log
