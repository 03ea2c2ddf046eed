// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// PayloadLogs on their own, on a simulated pool, with a host that plays the
// hash table (a map from each key to the reference of its newest version):
// appends and the bytes they leave (docs/format.md §7.2, §7.3), reading
// and validating references, rotation, resuming after a clean close, and
// compaction deciding what to free, relocate or keep.

#include "payload/payload_logs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::payload {
namespace {

using table::RefMatch;

// The table's side of compaction: a key is reachable through the newest
// reference published for it.
class TableHost final : public PayloadHost {
 public:
  std::map<std::string, uint64_t> newest;
  // Keys whose entries must not be dropped yet (newer versions unlogged).
  std::map<std::string, bool> blocked;
  // Relocate() answers kBlocked for these keys.
  std::map<std::string, bool> refuse_relocation;
  int relocations = 0;

  void ClassifyReachability(std::span<const Candidate> entries,
                            Reachability* out) override {
    for (const Candidate& e : entries) *out++ = Classify(e);
  }
  Reachability Classify(const Candidate& e) const {
    const std::string k(e.key);
    if (blocked.count(k) != 0) return Reachability::kBlocked;
    auto it = newest.find(k);
    return it != newest.end() && it->second == e.ref
               ? Reachability::kReachable
               : Reachability::kUnreachable;
  }
  Status Relocate(const Candidate& entry, const CopyFn& copy,
                  Relocation* result) override {
    const std::string k(entry.key);
    const uint64_t ref = entry.ref;
    if (refuse_relocation.count(k) != 0) {
      *result = Relocation::kBlocked;
      return Status::OK();
    }
    if (newest[k] != ref) {
      *result = Relocation::kUnreachable;
      return Status::OK();
    }
    uint64_t moved = 0;
    Status s = copy(&moved);
    if (!s.ok()) return s;
    newest[k] = moved;
    ++relocations;
    *result = Relocation::kMoved;
    return Status::OK();
  }
};

class PayloadLogsTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenPool(Options::SmallProfile()); }
  void TearDown() override {
    logs_.reset();
    pool_.reset();
    media::SimMedia::Remove(path_);
  }
  void OpenPool(const Options& options) {
    bool created = false;
    ASSERT_OK(
        pool::Pool::Open(options, test::SimDevices(), path_, &pool_, &created));
    ASSERT_OK(PayloadLogs::Open(pool_.get(), &host_, &clock_, &logs_));
    logs_->FinishOpen();
  }
  // A restart on the same pool (after Close(), or after a crash if not).
  Status Reopen() {
    logs_.reset();
    Status s = PayloadLogs::Open(pool_.get(), &host_, &clock_, &logs_);
    if (s.ok()) logs_->FinishOpen();
    return s;
  }

  uint64_t Hash(std::string_view key) const {
    return pool_->key_hasher().Hash(key);
  }
  // Appends and publishes (the host's map) like a write of the DB.
  uint64_t Put(const std::string& key, const std::string& value,
               uint64_t expires_at_ms = 0) {
    uint64_t ref = 0;
    PayloadLogs::Ticket ticket;
    const Status s =
        logs_->Append(key, Hash(key), value, expires_at_ms, &ref, &ticket);
    EXPECT_OK(s) << key;
    host_.newest[key] = ref;
    return ref;
  }
  // Appends fresh records until compaction examined one more chunk.
  void PutUntilACompaction() {
    const uint64_t examined = logs_->gc_runs() + logs_->gc_skipped();
    for (; logs_->gc_runs() + logs_->gc_skipped() == examined; ++fresh_)
      Put("fresh" + std::to_string(fresh_), Big(fresh_));
  }
  // Fills `chunks` chunks with new versions of eight keys: each makes the
  // logs rotate once.
  void FillChunksOfOverwrites(int chunks) {
    for (const int end = overwrites_ + 32 * chunks; overwrites_ < end;
         ++overwrites_) {
      Put("key" + std::to_string(overwrites_ % 8), Big(overwrites_));
    }
  }
  std::string Value(uint64_t ref) {
    std::string key;
    std::string value;
    EXPECT_TRUE(logs_->ReadEntry(ref, &key, &value)) << "ref " << ref;
    return value;
  }
  // A value of about 4 KiB: 32 entries fill a 128 KiB chunk.
  static std::string Big(int i) {
    return std::string(4000, static_cast<char>('a' + i % 26)) +
           std::to_string(i);
  }
  // Where chunk `id` lives: the pool's chunk table says.
  uint64_t ChunkOffset(uint32_t id) {
    ChunkTable table(pool_.get(), pool_->params().payload_chunk_size);
    EXPECT_OK(table.Load());
    EXPECT_NE(table.OffsetOf(id), 0u) << "no chunk " << id;
    return table.OffsetOf(id);
  }
  char* ChunkBytes(uint32_t id) {
    return pool_->media().At<char>(ChunkOffset(id));
  }
  PayloadChunkHeader* Header(uint32_t id) {
    return reinterpret_cast<PayloadChunkHeader*>(ChunkBytes(id));
  }

  const std::string path_ = "sim:payload_logs_test";
  std::unique_ptr<pool::Pool> pool_;
  TableHost host_;
  test::ManualClock clock_;
  std::unique_ptr<PayloadLogs> logs_;
  int fresh_ = 0;  // records PutUntilACompaction() wrote
  int overwrites_ = 0;  // records FillChunksOfOverwrites() wrote
};

TEST_F(PayloadLogsTest, AppendedEntryReadsBackThroughItsReference) {
  const std::string key = "a key of some length";
  const std::string value = "its value, longer than eight bytes";
  const uint64_t ref = Put(key, value);
  std::string k;
  std::string v;
  ASSERT_TRUE(logs_->ReadEntry(ref, &k, &v));
  EXPECT_EQ(k, key);
  EXPECT_EQ(v, value);
  ASSERT_TRUE(logs_->ReadKey(ref, &k));
  EXPECT_EQ(k, key);
  EXPECT_EQ(logs_->ReadValue(ref, key, &v), RefMatch::kYes);
  EXPECT_EQ(v, value);
  EXPECT_EQ(logs_->ReadValue(ref, "another key", &v), RefMatch::kNo);
  EXPECT_EQ(logs_->RefHasKey(ref, key), RefMatch::kYes);
  EXPECT_EQ(logs_->RefHasKey(ref, "a key of some lengtH"), RefMatch::kNo);
  EXPECT_TRUE(logs_->IsLive(ref));
  EXPECT_TRUE(logs_->EntryIsIntact(ref, Hash(key)));
  EXPECT_FALSE(logs_->EntryIsIntact(ref, Hash(key) ^ 1))
      << "the key hash seeds the check and must match the key";
  EXPECT_EQ(logs_->chunks(), 1u);
}

TEST_F(PayloadLogsTest, EmptyKeysAndValuesAndTheLargestRecordRoundTrip) {
  const std::string big_key(1024, 'k');
  const std::string big_value(64 << 10, 'v');
  const uint64_t a = Put("", "");
  const uint64_t b = Put("k", "");
  const uint64_t c = Put(big_key, big_value);
  std::string k;
  std::string v;
  ASSERT_TRUE(logs_->ReadEntry(a, &k, &v));
  EXPECT_EQ(k, "");
  EXPECT_EQ(v, "");
  ASSERT_TRUE(logs_->ReadEntry(b, &k, &v));
  EXPECT_EQ(k, "k");
  EXPECT_EQ(v, "");
  ASSERT_TRUE(logs_->ReadEntry(c, &k, &v));
  EXPECT_EQ(k, big_key);
  EXPECT_EQ(v, big_value);
  EXPECT_TRUE(logs_->EntryIsIntact(c, Hash(big_key)));
}

// Short keys and values are copied in words that may overlap (the last
// one ends at the last byte): every length up to past the word copies',
// each byte different, reads back exactly.
TEST_F(PayloadLogsTest, KeysAndValuesOfEveryShortLengthReadBackExactly) {
  for (size_t n = 0; n <= 80; ++n) {
    std::string key(n, '\0');
    std::string value(n, '\0');
    for (size_t i = 0; i < n; ++i) {
      key[i] = static_cast<char>('A' + i % 26);
      value[i] = static_cast<char>('a' + (i * 7) % 26);
    }
    const uint64_t ref = Put(key, value);
    std::string k = "stale";
    std::string v = "stale";
    ASSERT_TRUE(logs_->ReadEntry(ref, &k, &v)) << n;
    EXPECT_EQ(k, key) << n;
    EXPECT_EQ(v, value) << n;
    EXPECT_EQ(logs_->RefHasKey(ref, key), RefMatch::kYes) << n;
  }
}

// docs/format.md §7.2 and §7.3, computed here from the document.
TEST_F(PayloadLogsTest, EntryAndReferenceAreLaidOutAsTheFormatSays) {
  const std::string key = "format";
  const std::string value = "check me";
  const uint64_t first = Put(key, value);
  const uint64_t second = Put("next", "x");
  const Ref r = Ref::Decode(first);
  EXPECT_EQ(r.chunk, 0u);
  EXPECT_EQ(r.epoch, 1u) << "a new chunk's epoch is 1";
  EXPECT_EQ(r.offset, 64u) << "entries start after the 64-byte header";
  EXPECT_EQ(first, uint64_t{0} << 40 | uint64_t{1} << 19 | 64 / 8);
  EXPECT_EQ(Ref::Decode(second).offset, 64u + 8 + 16)
      << "8-byte header + 6 + 8 bytes, padded to 8";
  const char* chunk = ChunkBytes(0);
  uint64_t state = 0;
  std::memcpy(&state, chunk, 8);
  EXPECT_TRUE(PayloadChunkState::WellFormed(state)) << state;
  EXPECT_EQ(state & ~uint64_t{0xFF00}, uint64_t{1} << 32 | 1)
      << "epoch 1, in use (by the log of this thread)";
  EXPECT_LT(PayloadChunkState::Decode(state).log, 2u);
  uint64_t header = 0;
  std::memcpy(&header, chunk + 64, 8);
  const uint64_t low = key.size() | value.size() << 11 | uint64_t{1} << 28;
  const uint64_t seed =
      Hash(key) ^ uint64_t { 1 } << 40 ^ uint64_t { 64 } << 8 ^ low;
  const uint64_t check = static_cast<uint32_t>(
      XXH3_64bits_withSeed(value.data(), value.size(), seed));
  EXPECT_EQ(header, low | check << 32);
  EXPECT_EQ(std::string(chunk + 72, 6), key);
  EXPECT_EQ(std::string(chunk + 78, 8), value);
  EXPECT_EQ(std::string(chunk + 86, 2), std::string(2, '\0')) << "padding";
}

// Each thread appends to a log of its own; sync writes all append to log 0,
// so that the writers one msync covers share its pages.
TEST_F(PayloadLogsTest, SyncWritesShareALogAndOthersUseTheirThreads) {
  auto chunk_of = [&](bool sync) {
    uint32_t chunk = 0;
    std::thread([&] {
      uint64_t ref = 0;
      PayloadLogs::Ticket ticket;
      EXPECT_OK(
          logs_->Append("key", Hash("key"), "value", 0, &ref, &ticket, sync));
      chunk = Ref::Decode(ref).chunk;
    }).join();
    return chunk;
  };
  const uint32_t synced = chunk_of(true);
  EXPECT_EQ(chunk_of(true), synced);
  EXPECT_EQ(chunk_of(true), synced);
  // Two threads alive at once hold the two lowest free thread indexes
  // (util/thread_index.h), of which at most one is log 0's.
  std::latch both_alive(2);
  uint32_t chunks[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      both_alive.arrive_and_wait();
      uint64_t ref = 0;
      PayloadLogs::Ticket ticket;
      EXPECT_OK(logs_->Append("key", Hash("key"), "value", 0, &ref, &ticket));
      chunks[t] = Ref::Decode(ref).chunk;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(chunks[0] != synced || chunks[1] != synced)
      << "no thread wrote to a log of its own";
}

TEST_F(PayloadLogsTest, AppendIsFlushedButNotFenced) {
  auto device = media::SimMedia::Find(path_);
  Put("warm", "up");  // takes the chunk (which fences its header)
  const uint64_t points = device->persist_points();
  const uint64_t ref = Put("key", "value");
  EXPECT_EQ(device->persist_points(), points)
      << "the recovery-log append that follows fences both";
  device->Drain();  // that fence
  const uint64_t at = (ChunkOffset(0) + Ref::Decode(ref).offset) / 8;
  EXPECT_EQ(device->DurableImage()[at], *pool_->media().At<uint64_t>(at * 8))
      << "the entry was flushed";
}

TEST_F(PayloadLogsTest, PoolWithoutPayloadLogsRefusesAppends) {
  TearDown();
  Options o = Options::SmallProfile();
  o.payload_log_count = 0;
  OpenPool(o);
  EXPECT_FALSE(logs_->enabled());
  uint64_t ref = 0;
  PayloadLogs::Ticket ticket;
  const Status s = logs_->Append("key", Hash("key"), "value", 0, &ref, &ticket);
  ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(s.message(),
            "this pool was created without payload logs (payload_log_count = "
            "0): it stores 8-byte keys with 8-byte values only");
}

TEST_F(PayloadLogsTest, AppendAfterCloseIsInvalidArgument) {
  Put("k", "v");
  logs_->Close();
  uint64_t ref = 0;
  PayloadLogs::Ticket ticket;
  const Status s = logs_->Append("key", Hash("key"), "value", 0, &ref, &ticket);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "the DB is closed");
}

// ---- References that do not lead to an intact entry -----------------------

TEST_F(PayloadLogsTest, ReferencesOutsideAnyEntryDangle) {
  const uint64_t ref = Put("key", "value");
  Ref r = Ref::Decode(ref);
  std::vector<uint64_t> bad;
  bad.push_back(Ref{r.chunk, r.epoch + 1, r.offset}.Encode());  // other epoch
  bad.push_back(Ref{r.chunk + 1, r.epoch, r.offset}.Encode());  // no chunk
  bad.push_back(Ref{r.chunk, r.epoch, 8}.Encode());             // in the header
  bad.push_back(Ref{r.chunk, r.epoch, 128u << 10}.Encode());    // past the end
  for (const uint64_t b : bad) {
    std::string k;
    std::string v;
    EXPECT_FALSE(logs_->IsLive(b)) << Ref::Decode(b).offset;
    EXPECT_FALSE(logs_->ReadEntry(b, &k, &v));
    EXPECT_EQ(logs_->ReadValue(b, "key", &v), RefMatch::kDangling);
    EXPECT_EQ(logs_->RefHasKey(b, "key"), RefMatch::kDangling);
    EXPECT_FALSE(logs_->EntryIsIntact(b, Hash("key")));
    logs_->PrefetchEntry(b);  // a hint: must not fault
  }
}

TEST_F(PayloadLogsTest, TornEntryIsNotIntact) {
  const std::string value(100, 'v');
  const uint64_t ref = Put("key", value);
  char* entry = ChunkBytes(0) + Ref::Decode(ref).offset;
  entry[8 + 3 + 50] ^= 1;  // a value byte the crash did not persist
  EXPECT_FALSE(logs_->EntryIsIntact(ref, Hash("key")));
  entry[8 + 3 + 50] ^= 1;
  EXPECT_TRUE(logs_->EntryIsIntact(ref, Hash("key")));
  entry[8 + 1] ^= 1;  // a key byte: the key no longer hashes to the slot's
  EXPECT_FALSE(logs_->EntryIsIntact(ref, Hash("key")));
  entry[8 + 1] ^= 1;
  std::memset(entry, 0, 8);  // a header that never reached the media
  EXPECT_FALSE(logs_->EntryIsIntact(ref, Hash("key")));
  std::string v;
  EXPECT_EQ(logs_->ReadValue(ref, "key", &v), RefMatch::kDangling)
      << "its epoch bits no longer match the chunk's";
}

// ---- Chunks -----------------------------------------------------------------

TEST_F(PayloadLogsTest, FullChunkIsFollowedByANewOne) {
  std::vector<uint64_t> refs;
  for (int i = 0; i < 40; ++i)
    refs.push_back(Put("key" + std::to_string(i), Big(i)));
  EXPECT_EQ(logs_->chunks(), 2u);
  EXPECT_EQ(Ref::Decode(refs.front()).chunk, 0u);
  EXPECT_EQ(Ref::Decode(refs.back()).chunk, 1u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(Value(refs[i]), Big(i)) << i;
}

// A background thread keeps one free chunk ready: registered as free (so a
// reopened pool counts it free too), taken by the next log that fills one.
TEST_F(PayloadLogsTest, PreparedFreeChunkIsTakenByTheNextRotation) {
  const uint64_t first = Put("a", "1");
  logs_->PrepareFreeChunk();
  EXPECT_EQ(logs_->chunks(), 2u);
  EXPECT_FALSE(PayloadChunkState::Decode(Header(1)->state).in_use);
  logs_->PrepareFreeChunk();
  EXPECT_EQ(logs_->chunks(), 2u) << "one spare is enough";
  std::vector<uint64_t> refs;
  for (int i = 0; i < 40; ++i)
    refs.push_back(Put("key" + std::to_string(i), Big(i)));
  EXPECT_EQ(logs_->chunks(), 2u) << "the rotation took the spare";
  EXPECT_EQ(Ref::Decode(refs.back()).chunk, 1u);
  EXPECT_TRUE(PayloadChunkState::Decode(Header(1)->state).in_use);
  EXPECT_EQ(Value(first), "1");
  // A spare that a crash leaves unused is a free chunk after recovery.
  logs_->PrepareFreeChunk();
  ASSERT_OK(Reopen());
  EXPECT_EQ(logs_->chunks(), 3u);
  EXPECT_FALSE(PayloadChunkState::Decode(Header(2)->state).in_use);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(Value(refs[i]), Big(i)) << i;
}

// A clean close records where appends resume; the next open goes on in the
// same chunk, and clears the mark before anything is appended.
TEST_F(PayloadLogsTest, CleanCloseResumesAppendsInTheSameChunk) {
  const uint64_t a = Put("a", "1");
  logs_->Close();
  ASSERT_OK(Reopen());
  const uint64_t b = Put("b", "2");
  EXPECT_EQ(Ref::Decode(b).chunk, Ref::Decode(a).chunk);
  EXPECT_EQ(Ref::Decode(b).offset, Ref::Decode(a).offset + 16);
  EXPECT_EQ(logs_->chunks(), 1u);
  EXPECT_EQ(Header(0)->resume, 0u) << "FinishOpen clears the mark";
  EXPECT_EQ(Value(a), "1");
}

// After a crash nothing resumes: the newest chunk counts as full.
TEST_F(PayloadLogsTest, ReopenWithoutCloseStartsANewChunk) {
  const uint64_t a = Put("a", "1");
  ASSERT_OK(Reopen());
  const uint64_t b = Put("b", "2");
  EXPECT_EQ(Ref::Decode(b).chunk, Ref::Decode(a).chunk + 1);
  EXPECT_EQ(Value(a), "1") << "the old chunk's entries stay readable";
}

TEST_F(PayloadLogsTest, ResumeOffsetOutOfRangeIsCorruption) {
  Put("a", "1");
  logs_->Close();
  PayloadChunkHeader* header = Header(0);
  for (const uint64_t resume :
       {uint64_t{8}, uint64_t{100}, uint64_t{(128u << 10) + 8}}) {
    header->resume = resume;
    const Status s = Reopen();
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), "payload chunk 0: resume offset " +
                               std::to_string(resume) + " out of range");
  }
}

TEST_F(PayloadLogsTest, DamagedChunkStateWordIsCorruptionAndReportedByVerify) {
  Put("a", "1");
  PayloadChunkHeader* header = Header(0);
  const uint64_t offset = ChunkOffset(0);
  const uint64_t good = header->state;
  const uint64_t damaged[] = {
      good | 0x10,                     // bits 1..7 are zero
      good & 0xFFFFFFFF,               // epoch 0
      uint64_t{1} << 32 | 2 << 8 | 1,  // in use by log 2 of 2
  };
  for (const uint64_t word : damaged) {
    header->state = word;
    std::string report;
    EXPECT_EQ(logs_->Verify(&report), 1u);
    EXPECT_EQ(report, "payload chunk 0 @" + std::to_string(offset) +
                          ": bad state word " + std::to_string(word) + "\n");
    const Status s = Reopen();
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), "payload chunk 0 @" + std::to_string(offset) +
                               ": bad state word " + std::to_string(word));
    header->state = good;
    ASSERT_OK(Reopen());
  }
}

// ---- Compaction
// --------------------------------------------------------------- A log
// compacts on a rotation once it has 4 sealed chunks, examining the oldest
// first. One log here: appends go to the calling thread's log.

TEST_F(PayloadLogsTest, ChunkOfGarbageIsFreedAndItsReferencesDangle) {
  // Eight keys overwritten again and again: every chunk but the newest
  // versions is garbage.
  std::vector<uint64_t> first_chunk;
  for (int i = 0; i < 32 * 4 + 1; ++i) {
    const uint64_t ref = Put("key" + std::to_string(i % 8), Big(i));
    if (Ref::Decode(ref).chunk == 0) first_chunk.push_back(ref);
  }
  ASSERT_FALSE(first_chunk.empty());
  EXPECT_EQ(logs_->chunks(), 5u);
  EXPECT_EQ(logs_->gc_runs(), 1u);
  EXPECT_EQ(logs_->gc_moved(), 0u);
  EXPECT_EQ(logs_->chunk_frees_started(), 1u);
  for (const uint64_t ref : first_chunk) {
    EXPECT_FALSE(logs_->IsLive(ref));
    std::string v;
    EXPECT_EQ(logs_->ReadValue(ref, "key0", &v), RefMatch::kDangling);
  }
  for (const auto& [key, ref] : host_.newest) EXPECT_TRUE(logs_->IsLive(ref));
  // The freed chunk is taken again, under its new epoch, when the head
  // (31 entries left) is full.
  for (int i = 0; i < 31; ++i) Put("key" + std::to_string(i % 8), Big(i));
  const Ref next = Ref::Decode(Put("key0", Big(0)));
  EXPECT_EQ(next.chunk, 0u);
  EXPECT_EQ(next.epoch, 2u);
  EXPECT_EQ(next.offset, 64u);
  EXPECT_EQ(logs_->chunks(), 5u) << "a new chunk instead of the free one";
}

TEST_F(PayloadLogsTest, LiveEntriesAreRelocatedBeforeTheirChunkIsFreed) {
  // Chunk 0: ten keys that stay current, then garbage.
  std::map<std::string, std::string> pinned;
  for (int i = 0; i < 10; ++i) {
    const std::string key = "pinned" + std::to_string(i);
    pinned[key] = Big(100 + i);
    Put(key, pinned[key]);
  }
  for (int i = 0; i < 32 * 4 - 10 + 1; ++i)
    Put("key" + std::to_string(i % 8), Big(i));
  EXPECT_EQ(logs_->gc_runs(), 1u);
  EXPECT_EQ(logs_->gc_moved(), 10u);
  EXPECT_EQ(host_.relocations, 10);
  for (const auto& [key, value] : pinned) {
    const uint64_t ref = host_.newest[key];
    EXPECT_NE(Ref::Decode(ref).chunk, 0u) << key << " was not moved";
    std::string v;
    ASSERT_EQ(logs_->ReadValue(ref, key, &v), RefMatch::kYes) << key;
    EXPECT_EQ(v, value) << key;
    EXPECT_TRUE(logs_->EntryIsIntact(ref, Hash(key)));
  }
}

// A log whose writer stopped (a background thread's, which rotates
// rarely) holds chunks that turn into garbage as others overwrite its
// keys: the writers that rotate compact them, oldest first, whatever log
// they belong to.
TEST_F(PayloadLogsTest, ChunksOfALogThatStoppedAreCompactedByAnother) {
  // Three full chunks and one entry of a fourth: three sealed chunks, too
  // few for the log to compact on its own.
  std::vector<uint64_t> stopped_log;
  std::thread([&] {
    for (int i = 0; i < 32 * 3 + 1; ++i) {
      stopped_log.push_back(Put("key" + std::to_string(i % 8), Big(i)));
    }
  }).join();
  ASSERT_EQ(logs_->gc_runs(), 0u);
  // Another log: its first rotation makes four sealed chunks in all.
  std::vector<uint64_t> other_log;
  for (int i = 0; i < 32 + 1; ++i) {
    other_log.push_back(Put("key" + std::to_string(i % 8), Big(i)));
  }
  ASSERT_NE(Ref::Decode(other_log[0]).chunk,
            Ref::Decode(stopped_log.back()).chunk)
      << "both threads wrote to one log";
  EXPECT_EQ(logs_->gc_runs(), 1u);
  EXPECT_EQ(logs_->gc_moved(), 0u);
  const uint32_t oldest = Ref::Decode(stopped_log[0]).chunk;
  for (const uint64_t ref : stopped_log) {
    if (Ref::Decode(ref).chunk == oldest) {
      EXPECT_FALSE(logs_->IsLive(ref));
    }
  }
  for (const auto& [key, ref] : host_.newest) EXPECT_TRUE(logs_->IsLive(ref));
}

TEST_F(PayloadLogsTest, MostlyLiveChunkIsKept) {
  std::vector<uint64_t> refs;
  for (int i = 0; i < 32 * 4 + 1; ++i)
    refs.push_back(Put("unique" + std::to_string(i), Big(i)));
  EXPECT_EQ(logs_->gc_runs(), 0u);
  EXPECT_EQ(logs_->gc_skipped(), 1u);
  EXPECT_EQ(logs_->gc_moved(), 0u);
  EXPECT_EQ(logs_->chunk_frees_started(), 0u);
  for (const uint64_t ref : refs) ASSERT_TRUE(logs_->IsLive(ref));
}

// An entry whose newer versions a crash could still lose must survive.
TEST_F(PayloadLogsTest, BlockedEntryKeepsItsChunk) {
  host_.blocked["key3"] = true;
  std::vector<uint64_t> refs;
  for (int i = 0; i < 32 * 4 + 1; ++i)
    refs.push_back(Put("key" + std::to_string(i % 8), Big(i)));
  EXPECT_EQ(logs_->gc_runs(), 0u);
  EXPECT_EQ(logs_->gc_skipped(), 1u);
  EXPECT_TRUE(logs_->IsLive(refs[3])) << "key3's oldest version was dropped";
}

// Rotations whose compaction was blocked (unlogged writes until the next
// checkpoint) each left the logs a chunk longer, for good: a workload
// that blocked now and then grew the logs without bound (the unlogged GC
// stress test: 14 MB in 10 s for 200 KB of live data). Now as many later
// rotations free one chunk more than they take.
TEST_F(PayloadLogsTest, LogsShedTheChunksTheyGrewWhileBlocked) {
  FillChunksOfOverwrites(4);
  for (int round = 0; round < 5; ++round) {
    host_.blocked["key3"] = true;
    FillChunksOfOverwrites(8);
    host_.blocked.clear();
    FillChunksOfOverwrites(16);
  }
  // 4 sealed chunks, a head, and the 8 a blocked round adds; without
  // shedding, every round added 8 more (44 chunks).
  EXPECT_LE(logs_->chunks(), 16u);
  EXPECT_GE(logs_->gc_skipped(), 5u);
  for (const auto& [key, ref] : host_.newest) EXPECT_TRUE(logs_->IsLive(ref));
}

// A thread appending with tickets held (a write batch) or under DRAM
// entry locks (a re-balance copying a unit's records) must not compact:
// its rotations leave compaction to its next append without one. That
// append compacted once, however many rotations had deferred: a range
// pool re-balancing under a cache's writes grew its payload by every
// chunk its copies filled. Now it compacts once per deferred rotation.
TEST_F(PayloadLogsTest, LogsShedTheChunksTheyGrewWhileCompactionWasDeferred) {
  FillChunksOfOverwrites(4);
  for (int round = 0; round < 5; ++round) {
    {
      const PayloadLogs::DeferCompaction under_locks;
      FillChunksOfOverwrites(8);
    }
    FillChunksOfOverwrites(1);
  }
  // 4 sealed chunks, a head, and the 8 a deferring round adds; paying one
  // compaction a round, every round added 7 more (40 chunks).
  EXPECT_LE(logs_->chunks(), 14u);
  for (const auto& [key, ref] : host_.newest) EXPECT_TRUE(logs_->IsLive(ref));
}

TEST_F(PayloadLogsTest, RefusedRelocationKeepsTheChunk) {
  Put("pinned", Big(1));
  host_.refuse_relocation["pinned"] = true;
  const uint64_t pinned = host_.newest["pinned"];
  for (int i = 0; i < 32 * 4; ++i) Put("key" + std::to_string(i % 8), Big(i));
  EXPECT_EQ(logs_->gc_runs(), 0u);
  EXPECT_EQ(logs_->gc_skipped(), 1u);
  EXPECT_TRUE(logs_->IsLive(pinned));
  EXPECT_EQ(Value(pinned), Big(1));
}

// An entry keeps its expiry: read back, checked, and judged by the clock
// (expired from the millisecond after it on).
TEST_F(PayloadLogsTest, AnEntryCarriesItsExpiry) {
  const uint64_t now = clock_.NowMs();
  const uint64_t ref = Put("session", "data", now + 10);
  const uint64_t plain = Put("plain", "data");
  std::string key, value;
  uint64_t expiry = 0;
  ASSERT_TRUE(logs_->ReadEntry(ref, &key, &value, &expiry));
  EXPECT_EQ(key, "session");
  EXPECT_EQ(value, "data");
  EXPECT_EQ(expiry, now + 10);
  EXPECT_EQ(Ref::Decode(plain).offset - Ref::Decode(ref).offset, 32u)
      << "header, expiry word, 7 bytes of key and 4 of value, padded";
  EXPECT_TRUE(logs_->EntryIsIntact(ref, Hash("session")));
  EXPECT_EQ(logs_->StateOfRef(ref), table::RefState::kLive);
  clock_.Advance(10);
  ASSERT_EQ(logs_->ReadValue(ref, "session", &value, &expiry), RefMatch::kYes);
  clock_.Advance(1);
  EXPECT_EQ(logs_->ReadValue(ref, "session", &value), RefMatch::kExpired);
  EXPECT_EQ(logs_->StateOfRef(ref), table::RefState::kExpired);
  EXPECT_EQ(logs_->ReadValue(plain, "plain", &value), RefMatch::kYes);
  // A torn expiry word fails the entry's check.
  auto* word = reinterpret_cast<uint64_t*>(
      ChunkBytes(Ref::Decode(ref).chunk) + Ref::Decode(ref).offset + 8);
  *word ^= 1;
  EXPECT_FALSE(logs_->EntryIsIntact(ref, Hash("session")));
  *word ^= 1;
}

// Expired entries are garbage even while reachable: a chunk of them is
// freed, and each is moved as its key alone, expired for any clock (it
// still hides the key's older versions).
TEST_F(PayloadLogsTest, ExpiredEntriesAreMovedWithoutTheirValues) {
  for (int i = 0; i < 20; ++i)
    Put("cached" + std::to_string(i), Big(i), clock_.NowMs() + 5);
  clock_.Advance(6);
  for (int i = 0; i < 32 * 4; ++i) Put("key" + std::to_string(i % 8), Big(i));
  EXPECT_EQ(logs_->gc_runs(), 1u) << "20 expired entries kept chunk 0";
  EXPECT_EQ(logs_->gc_moved(), 20u);
  for (int i = 0; i < 20; ++i) {
    const std::string key = "cached" + std::to_string(i);
    const uint64_t ref = host_.newest[key];
    EXPECT_NE(Ref::Decode(ref).chunk, 0u) << key << " was not moved";
    std::string k, v;
    uint64_t expiry = 0;
    ASSERT_TRUE(logs_->ReadEntry(ref, &k, &v, &expiry));
    EXPECT_EQ(k, key);
    EXPECT_EQ(v, "");
    EXPECT_EQ(expiry, kExpiredLongAgo);
    clock_.Set(2);  // set back by decades: still expired
    EXPECT_EQ(logs_->ReadValue(ref, key, &v), RefMatch::kExpired);
    clock_.Set(1'000'006);
  }
}

// A chunk whose entries have all expired is compacted before an older
// one that holds live data: the rotations after a cache's keys expired
// free their chunks one each, where examining the live chunk first would
// find it too live and wait.
TEST_F(PayloadLogsTest, ChunksWhoseEntriesAllExpiredAreCompactedFirst) {
  for (int i = 0; i < 32; ++i) Put("live" + std::to_string(i), Big(i));
  for (int i = 0; i < 96; ++i)  // chunks 1-3
    Put("cached" + std::to_string(i), Big(i), clock_.NowMs() + 5);
  clock_.Advance(6);
  EXPECT_EQ(logs_->gc_runs() + logs_->gc_skipped(), 0u);
  PutUntilACompaction();
  EXPECT_EQ(logs_->gc_runs(), 1u);
  EXPECT_EQ(logs_->gc_skipped(), 0u) << "the live chunk was examined first";
  PutUntilACompaction();
  PutUntilACompaction();
  EXPECT_EQ(logs_->gc_runs(), 3u) << "chunks 1-3, one a rotation";
  EXPECT_EQ(logs_->gc_skipped(), 0u);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(Value(host_.newest["live" + std::to_string(i)]), Big(i));
}

// Chunks whose entries expire later are taken in their turn, oldest first,
// as chunks of live data are.
TEST_F(PayloadLogsTest, ChunksThatExpireLaterAreTakenInTheirTurn) {
  for (int i = 0; i < 32; ++i) Put("live" + std::to_string(i), Big(i));
  for (int i = 0; i < 96; ++i)
    Put("cached" + std::to_string(i), Big(i), clock_.NowMs() + 1000);
  PutUntilACompaction();
  EXPECT_EQ(logs_->gc_runs(), 0u);
  EXPECT_EQ(logs_->gc_skipped(), 1u) << "the oldest chunk, live, first";
}

// A chunk found too live while its entries had yet to expire is examined
// again as soon as they have, before chunks that were never examined:
// otherwise it would wait its turn among the live chunks, and a cache's
// pool would grow by the chunks examined during its first round.
TEST_F(PayloadLogsTest, ChunksExaminedBeforeTheyExpiredAreTakenOnceTheyHave) {
  const uint64_t expiry = clock_.NowMs() + 1000;
  std::vector<uint64_t> refs;
  for (int i = 0; i < 96; ++i)  // chunks 0-2
    refs.push_back(Put("cached" + std::to_string(i), Big(i), expiry));
  PutUntilACompaction();
  ASSERT_EQ(logs_->gc_skipped(), 1u) << "chunk 0, live, examined";
  ASSERT_TRUE(logs_->IsLive(refs[0]));
  clock_.Advance(1001);
  PutUntilACompaction();
  EXPECT_EQ(logs_->gc_runs(), 1u);
  EXPECT_FALSE(logs_->IsLive(refs[0])) << "chunk 0 is still waiting";
  EXPECT_TRUE(logs_->IsLive(refs[32])) << "chunk 1 was taken first";
}

}  // namespace
}  // namespace plush::payload
