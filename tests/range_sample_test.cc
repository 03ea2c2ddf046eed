// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Range pools and their key placement. Every range pool created now keeps
// an adaptive range map (Superblock::partitioning = kRangeFingerprinted): a
// base region at the start of the heap that the root page names, split at
// a key sample's quantiles (Options::range_key_sample) or, without one, at
// the keys' leading bits, and a change log that re-balancing appends to
// (Options::range_rebalance, DB::Rebalance). Keys that share their leading
// bytes, loaded in order, spread over every unit of a pool created with a
// sample, and of a pool without one once it has re-balanced; the map (base
// and changes) is checked when the pool is opened. Pools whose superblock
// names a retired partitioning are refused.
//
// Tests of the layout a pool is created with open it with FixedRange():
// a pool that re-balances moves keys between units whenever one becomes
// heavy, which is what the tests of re-balancing measure and what would
// blur the others.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "placement/range_map.h"
#include "placement/range_map_format.h"
#include "plush/db.h"
#include "plush/limits.h"
#include "pool/pool.h"
#include "pool/pool_format.h"
#include "pool_image.h"
#include "testutil.h"
#include "util/hash.h"

namespace plush {
namespace {

using test::ScratchPool;

std::string UserKey(uint64_t i) {
  char key[32];
  std::snprintf(key, sizeof(key), "user:%08" PRIu64, i);
  return key;
}

std::string BigEndian(uint64_t i) {
  const uint64_t word = __builtin_bswap64(i);
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

// A range pool of 64 units that re-balances (the default).
Options SmallRange() {
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = 6;
  o.max_pool_size = 256u << 20;
  return o;
}

// The same pool whose map changes only by DB::Rebalance(): its layout is
// the one it was created with until a test asks for a re-balance, and no
// background thread changes it while the test looks.
Options FixedRange() {
  Options o = SmallRange();
  o.range_rebalance = false;
  return o;
}

// Reads `size` bytes of the pool file at `offset`.
std::string ReadAt(const std::string& path, uint64_t offset, size_t size) {
  std::string bytes(size, '\0');
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(pread(fd, bytes.data(), size, static_cast<off_t>(offset)),
            static_cast<ssize_t>(size));
  close(fd);
  return bytes;
}

void WriteAt(const std::string& path, uint64_t offset,
             const std::string& bytes) {
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)),
            static_cast<ssize_t>(bytes.size()));
  close(fd);
}

uint64_t ReadU64(const std::string& path, uint64_t offset) {
  return test::FromWord(ReadAt(path, offset, 8));
}

void WriteU64(const std::string& path, uint64_t offset, uint64_t value) {
  WriteAt(path, offset, test::Word(value));
}

std::string Bytes(const void* data, size_t size) {
  return std::string(static_cast<const char*>(data), size);
}

// Copies the (closed) pool at `from` to `to`: one damaged copy per case of
// a pool that takes a while to make.
void CopyPool(const std::string& from, const std::string& to) {
  struct stat st;
  ASSERT_EQ(stat(from.c_str(), &st), 0);
  const std::string bytes = ReadAt(from, 0, static_cast<size_t>(st.st_size));
  const int fd = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), 0),
            static_cast<ssize_t>(bytes.size()));
  close(fd);
}

// Superblock fields (docs/format.md, "Superblock"). Spelled out rather
// than taken from pool::Superblock: these bytes are the format.
constexpr uint64_t kPartitioningOffset = 24;
constexpr uint64_t kHeapOffsetOffset = 64;
constexpr uint64_t kReservedOffset = 80;             // 56 bytes, zero
constexpr uint64_t kSuperblockChecksumOffset = 136;  // XXH64 of bytes 0..135
static_assert(offsetof(pool::Superblock, heap_offset) == kHeapOffsetOffset);
static_assert(offsetof(pool::Superblock, reserved2) == kReservedOffset);

// Root page words (docs/format.md, "Root page").
constexpr uint64_t kRootOffset = 4096;
constexpr uint64_t kAllocHighWater = kRootOffset + 0;
constexpr uint64_t kRootRangeMap = kRootOffset + 24;
constexpr uint64_t kRootRangeMapSpare = kRootOffset + 32;
constexpr uint64_t kRootRangeMapLog = kRootOffset + 40;
constexpr uint64_t kRootRangeMapLogState = kRootOffset + 48;
static_assert(offsetof(pool::RootPage, range_map) == 24);
static_assert(offsetof(pool::RootPage, range_map_spare) == 32);
static_assert(offsetof(pool::RootPage, range_map_log) == 40);
static_assert(offsetof(pool::RootPage, range_map_log_state) == 48);

// The regions' headers, as range_map_format.h and the docs lay them out.
static_assert(offsetof(RangeMapHeader, generation) == 8);
static_assert(offsetof(RangeMapHeader, unit_bits) == 16);
static_assert(offsetof(RangeMapHeader, positions) == 20);
static_assert(offsetof(RangeMapHeader, entries_bytes) == 24);
static_assert(offsetof(RangeMapHeader, entries_checksum) == 32);
static_assert(offsetof(RangeMapHeader, checksum) == 56);

uint64_t HeapOffset(const std::string& path) {
  return ReadU64(path, kHeapOffsetOffset);
}

// The region the root page names as the range map in use.
RangeMapRef ActiveMap(const std::string& path) {
  return RangeMapRef::Decode(ReadU64(path, kRootRangeMap));
}

// Rewrites the superblock's partitioning byte with a checksum that
// matches: what a version that wrote it would have left, not a bit flip.
void RewriteSuperblock(const std::string& path, uint8_t partitioning) {
  std::string superblock = ReadAt(path, 0, kSuperblockChecksumOffset);
  superblock[kPartitioningOffset] = static_cast<char>(partitioning);
  const uint64_t checksum = Checksum(superblock.data(), superblock.size());
  WriteAt(path, 0, superblock + test::Word(checksum));
}

// The status of DB::Open on a damaged pool: Corruption, with the pool's
// path and exactly `message`.
void ExpectCorruption(const Status& s, const std::string& path,
                      const std::string& message) {
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.ToString(), "Corruption: pool '" + path + "': " + message);
}

Status OpenAndClose(const Options& o, const std::string& path) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, path, &db);
  if (s.ok()) s = db->Close();
  return s;
}

// ---- Range map regions ----------------------------------------------------

// The contents of a range map region (range_map_format.h, RangeMapHeader), to
// write one with checksums that match whatever else is wrong with it.
struct MapRegion {
  uint64_t generation = 0;
  uint32_t unit_bits = 2;
  std::vector<uint32_t> units;
  std::vector<std::string> separators;
  std::optional<uint32_t> positions;      // if not units.size()
  std::string trailing;                   // raw bytes after the separators
  std::optional<uint64_t> entries_bytes;  // if not the entries' size
};

std::string Separators(const std::vector<std::string>& keys) {
  std::string bytes;
  for (const std::string& k : keys) {
    const auto length = static_cast<uint16_t>(k.size());
    bytes += Bytes(&length, 2) + k;
  }
  return bytes;
}

std::string Encode(const MapRegion& m) {
  std::string entries;
  for (const uint32_t u : m.units) entries += Bytes(&u, 4);
  entries += Separators(m.separators) + m.trailing;
  RangeMapHeader h{};
  std::memcpy(h.magic, kRangeMapMagic, sizeof(h.magic));
  h.generation = m.generation;
  h.unit_bits = m.unit_bits;
  h.positions = m.positions.value_or(static_cast<uint32_t>(m.units.size()));
  h.entries_bytes = m.entries_bytes.value_or(entries.size());
  h.entries_checksum = Checksum(entries.data(), entries.size());
  h.checksum = Checksum(&h, offsetof(RangeMapHeader, checksum));
  return Bytes(&h, sizeof(h)) + entries;
}

// A range map region read back from the pool file, checksums checked.
struct ReadBack {
  RangeMapHeader header{};
  std::vector<uint32_t> units;
  std::vector<std::string> separators;
};

ReadBack ReadMapRegion(const std::string& path, uint64_t offset) {
  ReadBack r;
  std::memcpy(&r.header, ReadAt(path, offset, sizeof(r.header)).data(),
              sizeof(r.header));
  const RangeMapHeader& h = r.header;
  EXPECT_EQ(h.checksum,
            Checksum(&h, offsetof(RangeMapHeader, checksum)));
  const std::string entries =
      ReadAt(path, offset + sizeof(h), static_cast<size_t>(h.entries_bytes));
  EXPECT_EQ(h.entries_checksum, Checksum(entries.data(), entries.size()));
  size_t at = 0;
  for (uint32_t p = 0; p < h.positions && at + 4 <= entries.size(); ++p) {
    uint32_t unit;
    std::memcpy(&unit, entries.data() + at, 4);
    r.units.push_back(unit);
    at += 4;
  }
  for (uint32_t p = 1; p < h.positions && at + 2 <= entries.size(); ++p) {
    uint16_t length;
    std::memcpy(&length, entries.data() + at, 2);
    r.separators.push_back(entries.substr(at + 2, length));
    at += 2 + length;
  }
  EXPECT_EQ(at, entries.size()) << "the entries fill the region";
  return r;
}

// ---- Change log records -----------------------------------------------------

// The root page's change log state (range_map_format.h, RangeLogState), spelled
// out: the base generation the log belongs to << 24 | its changes.
struct LogState {
  uint64_t base_generation = 0;
  uint32_t count = 0;
};

LogState ReadLogState(const std::string& path) {
  const uint64_t word = ReadU64(path, kRootRangeMapLogState);
  return {word >> 24, static_cast<uint32_t>(word & 0xFFFFFF)};
}

void WriteLogState(const std::string& path, LogState state) {
  ASSERT_LT(state.count, 1u << 24);
  WriteU64(path, kRootRangeMapLogState,
           state.base_generation << 24 | state.count);
}

// The region the root page names as the change log.
RangeMapRef ChangeLog(const std::string& path) {
  return RangeMapRef::Decode(ReadU64(path, kRootRangeMapLog));
}

uint64_t Padded(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// The check of a change record whose check bits are zero: the low 32 bits
// of its XXH64, seeded with the base generation and the record's index.
uint32_t ChangeCheck(const std::string& record, uint64_t base_generation,
                     uint32_t index) {
  return static_cast<uint32_t>(
      XXH64(record.data(), record.size(),
            base_generation * 0x9E3779B97F4A7C15ull ^ index));
}

// Change `index` after the base of `base_generation`, as range_map_format.h
// lays a record out: written by hand, to check what the engine writes
// and to append what it must accept.
std::string ChangeRecord(const RangeMap::Change& c, uint64_t base_generation,
                         uint32_t index) {
  std::string record(16 + Padded(c.separator.size()), '\0');
  const uint64_t merged =
      c.kind == RangeMap::Change::Kind::kMerge ? c.count - 2 : 0;
  const uint64_t word0 = uint64_t{c.separator.size()} << 16 |
                         uint64_t{static_cast<uint8_t>(c.kind)} << 8 | merged;
  const uint64_t word1 = uint64_t{c.unit} << 32 | c.position;
  std::memcpy(record.data(), &word0, 8);
  std::memcpy(record.data() + 8, &word1, 8);
  std::memcpy(record.data() + 16, c.separator.data(), c.separator.size());
  const uint64_t checked =
      word0 | uint64_t{ChangeCheck(record, base_generation, index)} << 32;
  std::memcpy(record.data(), &checked, 8);
  return record;
}

// The changes of a closed pool's log that its state counts, decoded and
// checked by hand; *end: the file offset after the last.
std::vector<RangeMap::Change> ReadChanges(const std::string& path,
                                          uint64_t* end = nullptr) {
  const RangeMapRef log = ChangeLog(path);
  const LogState state = ReadLogState(path);
  std::vector<RangeMap::Change> changes;
  uint64_t at = log.offset;
  for (uint32_t i = 0; i < state.count; ++i) {
    SCOPED_TRACE("change " + std::to_string(i));
    const uint64_t word0 = ReadU64(path, at);
    const uint64_t word1 = ReadU64(path, at + 8);
    RangeMap::Change c;
    c.kind = static_cast<RangeMap::Change::Kind>((word0 >> 8) & 0xFF);
    c.position = static_cast<uint32_t>(word1);
    c.unit = static_cast<uint32_t>(word1 >> 32);
    const uint64_t length = (word0 >> 16) & 0xFFFF;
    c.separator = ReadAt(path, at + 16, length);
    if (c.kind == RangeMap::Change::Kind::kMerge) {
      c.count = static_cast<uint32_t>(word0 & 0xFF) + 2;  // merged positions
    } else {
      EXPECT_EQ(word0 & 0xFF, 0u) << "bits 0..7 are zero but for merges";
    }
    EXPECT_GE(static_cast<unsigned>(c.kind), 1u);
    EXPECT_LE(static_cast<unsigned>(c.kind), 3u);
    if (c.kind != RangeMap::Change::Kind::kSplit) {
      EXPECT_EQ(length, 0u) << "a separator for a split only";
    }
    const std::string record = ChangeRecord(c, state.base_generation, i);
    EXPECT_EQ(ReadAt(path, at, record.size()), record)
        << "the record, its check and its zero padding";
    changes.push_back(std::move(c));
    at += record.size();
  }
  EXPECT_LE(at, log.offset + log.capacity());
  if (end != nullptr) *end = at;
  return changes;
}

// The map a closed pool opens with: its base with the changes of its log
// applied (those of a log that belongs to the base).
RangeMap::Layout StoredMap(const std::string& path) {
  const ReadBack base = ReadMapRegion(path, ActiveMap(path).offset);
  RangeMap::Layout layout{base.separators, base.units};
  if (ReadLogState(path).base_generation != base.header.generation)
    return layout;
  for (const RangeMap::Change& c : ReadChanges(path)) {
    EXPECT_EQ(RangeMap::ApplyTo(base.header.unit_bits, c, &layout), "");
  }
  return layout;
}

// The position of `key` on `layout`: the number of separators at or
// below it.
uint64_t PositionOn(const RangeMap::Layout& layout, const std::string& key) {
  return static_cast<uint64_t>(
      std::upper_bound(layout.separators.begin(), layout.separators.end(),
                       key) -
      layout.separators.begin());
}

// Every key of the pool with the partition an ordered scan reads it in:
// the position of its key range on the map, which is where the pool
// places it.
using Placement = std::vector<std::pair<std::string, uint64_t>>;

Placement ScanPlacement(DB* db) {
  Placement placement;
  std::unique_ptr<Iterator> it = db->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next())
    placement.emplace_back(std::string(it->key()), it->partition());
  EXPECT_OK(it->status());
  return placement;
}

// ---- Loading ----------------------------------------------------------------

// Creates a range pool at `path` split at the quantiles of `sample`, with
// one record, and closes it. (One record never makes a unit heavy; the
// pool does not re-balance all the same: the tests that damage its map
// expect the map it was created with.)
void CreateSampled(const std::string& path, std::vector<std::string> sample,
                   uint32_t dram_bits) {
  Options o = FixedRange();
  o.dram_directory_bits = dram_bits;
  o.range_key_sample = std::move(sample);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, path, &db));
  ASSERT_OK(db->Put({}, "b1", "v"));
  ASSERT_OK(db->Close());
}

// Puts keys [first, last) in order.
void PutRange(DB* db, std::string (*key)(uint64_t), uint64_t first,
              uint64_t last) {
  for (uint64_t i = first; i < last; ++i) {
    const Status s = db->Put({}, key(i), "value");
    ASSERT_TRUE(s.ok()) << "record " << i << ": " << s.ToString();
  }
}

std::vector<std::string> Keys(std::string (*key)(uint64_t), uint64_t first,
                              uint64_t last) {
  std::vector<std::string> keys;
  for (uint64_t i = first; i < last; ++i) keys.push_back(key(i));
  return keys;
}

// Every key of `keys` is there, and a scan of the pool returns them all in
// order and nothing else.
void ExpectExactlyInOrder(DB* db, std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  std::string value;
  for (const std::string& k : keys)
    ASSERT_OK(db->Get({}, k, &value)) << test::DescribeKey(k);
  std::unique_ptr<Iterator> it = db->NewIterator({});
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_LT(i, keys.size()) << "an extra key";
    ASSERT_EQ(it->key(), keys[i]) << "key " << i;
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(i, keys.size());
}

// Loads `count` keys in order; returns the stats after a reopen (with the
// same options less the sample: the pool keeps the map it has).
Stats LoadInOrder(Options o, const std::string& path,
                  std::string (*key)(uint64_t), uint64_t count) {
  std::unique_ptr<DB> db;
  EXPECT_OK(DB::Open(o, path, &db));
  for (uint64_t i = 0; i < count; ++i) {
    const Status s = db->Put({}, key(i), "value");
    if (!s.ok()) {
      ADD_FAILURE() << "record " << i << ": " << s.ToString();
      break;
    }
  }
  EXPECT_OK(db->Close());
  o.range_key_sample.clear();
  EXPECT_OK(DB::Open(o, path, &db));
  Stats stats;
  EXPECT_OK(db->GetStats(&stats));
  // Everything is there, in order.
  std::unique_ptr<Iterator> it = db->NewIterator({});
  uint64_t i = 0;
  for (it->Seek(key(count / 3)); it->Valid() && i < 100; it->Next(), ++i)
    EXPECT_EQ(it->key(), key(count / 3 + i));
  EXPECT_OK(it->status());
  std::string value;
  EXPECT_OK(db->Get({}, key(count - 1), &value));
  return stats;
}

std::vector<std::string> Sample(std::string (*key)(uint64_t), uint64_t count,
                                uint64_t step) {
  std::vector<std::string> sample;
  for (uint64_t i = 0; i < count; i += step) sample.push_back(key(i));
  return sample;
}

// The units share the records about evenly: none holds 3x the median
// (re-balancing splits a unit above 2x the mean plus a DRAM entry's worth,
// at its median: halves, so 2x the median is too tight a bound).
void ExpectSpread(const Stats& stats) {
  EXPECT_EQ(stats.range_units, "adaptive");
  EXPECT_GT(stats.range_rebalances, 0u);
  EXPECT_GT(stats.unit_records_median, 0u);
  EXPECT_LT(stats.unit_records_max, 3 * stats.unit_records_median)
      << "median " << stats.unit_records_median << ", smallest "
      << stats.unit_records_min << ", after " << stats.range_rebalances
      << " changes of the map";
}

// Loads keys [0, count) in order into a new pool opened with `o` (which
// re-balances), then re-balances it on demand as well: the keys spread,
// every one is found and a scan returns them in order, before and after a
// reopen, which keeps the map.
void LoadAndRebalance(const Options& o, const std::string& path,
                      std::string (*key)(uint64_t), uint64_t count) {
  const std::vector<std::string> keys = Keys(key, 0, count);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, path, &db));
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), key, 0, count));
  ASSERT_OK(db->Rebalance());
  Stats before;
  ASSERT_OK(db->GetStats(&before));
  {
    SCOPED_TRACE("re-balanced");
    ASSERT_NO_FATAL_FAILURE(ExpectSpread(before));
    ASSERT_NO_FATAL_FAILURE(ExpectExactlyInOrder(db.get(), keys));
  }
  ASSERT_OK(db->Close());

  SCOPED_TRACE("reopened");
  Options reopen = o;
  reopen.range_key_sample.clear();
  ASSERT_OK(DB::Open(reopen, path, &db));
  Stats after;
  ASSERT_OK(db->GetStats(&after));
  // (At least: the background thread may still split a unit it counts as
  // heavy, on a mean it computed earlier, between the stats and Close.)
  EXPECT_GE(after.range_rebalances, before.range_rebalances);
  ASSERT_NO_FATAL_FAILURE(ExpectSpread(after));
  ASSERT_NO_FATAL_FAILURE(ExpectExactlyInOrder(db.get(), keys));
  ASSERT_OK(db->Close());
}

// ---- Placement --------------------------------------------------------------

TEST(RangeSampleTest, SharedPrefixKeysInOrderSpreadOverEveryUnit) {
  constexpr uint64_t kKeys = 30000;
  ScratchPool sampled("sampled"), plain("plain");
  Options o = FixedRange();
  o.range_key_sample = Sample(UserKey, kKeys, 97);
  const Stats with = LoadInOrder(o, sampled.path(), UserKey, kKeys);
  EXPECT_EQ(with.range_units, "adaptive");
  EXPECT_EQ(with.range_rebalances, 0u);
  EXPECT_GT(with.unit_records_min, 0u);
  EXPECT_LT(with.unit_records_max, 2 * with.unit_records_median);

  // The same keys without a sample, and without re-balancing, crowd into
  // one unit (the map by leading bits puts every "user:" key on the unit
  // of 'u'), whose subtree grows deeper: the pool takes about the same
  // space (regression: more than 4 times, levels grown for every unit).
  const Stats without = LoadInOrder(FixedRange(), plain.path(), UserKey, kKeys);
  EXPECT_EQ(without.range_units, "adaptive");
  EXPECT_EQ(without.range_rebalances, 0u);
  EXPECT_EQ(without.unit_records_median, 0u);
  EXPECT_EQ(without.unit_records_max, kKeys);
  EXPECT_GT(without.levels, with.levels);
  EXPECT_LE(without.pool_bytes, 2 * with.pool_bytes)
      << without.pool_bytes << " vs " << with.pool_bytes;
  EXPECT_LE(without.pool_used_bytes, 2 * with.pool_used_bytes)
      << without.pool_used_bytes << " vs " << with.pool_used_bytes;
}

// Without a sample, re-balancing (on by default) follows the keys: the
// unit of 'u' is split again and again as it fills, and DB::Rebalance()
// finishes what the background thread and the writers left. (30000 keys:
// they load in ~150 ms, 60000 in ~650 ms.)
TEST(RangeSampleTest, SharedPrefixKeysInOrderSpreadByRebalancing) {
  ScratchPool file("rebalanced");
  ASSERT_NO_FATAL_FAILURE(
      LoadAndRebalance(SmallRange(), file.path(), UserKey, 30000));
}

TEST(RangeSampleTest, MonotonicBinaryKeys) {
  constexpr uint64_t kKeys = 60000;
  ScratchPool file("binary"), plain("binary_plain");
  Options o = FixedRange();
  o.range_key_sample = Sample(BigEndian, kKeys, 61);
  const Stats stats = LoadInOrder(o, file.path(), BigEndian, kKeys);
  EXPECT_EQ(stats.range_units, "adaptive");
  EXPECT_GT(stats.unit_records_min, 0u);
  EXPECT_LT(stats.unit_records_max, 2 * stats.unit_records_median);

  // Without a sample nor re-balancing, every key below 2^58 is on unit 0.
  const Stats crowded =
      LoadInOrder(FixedRange(), plain.path(), BigEndian, 20000);
  EXPECT_EQ(crowded.unit_records_max, 20000u);
  EXPECT_EQ(crowded.unit_records_median, 0u);
}

// Counters that keep growing: each split leaves the unit its keys and
// gives the keys above them to a free unit, which the next ones fill.
TEST(RangeSampleTest, MonotonicBinaryKeysSpreadByRebalancing) {
  ScratchPool file("binary_rebalanced");
  ASSERT_NO_FATAL_FAILURE(
      LoadAndRebalance(SmallRange(), file.path(), BigEndian, 30000));
}

// Keys beyond the sample's range go to the last unit of a pool that does
// not re-balance: the sample must span the keys to come. (What the docs
// warn about.)
TEST(RangeSampleTest, KeysAboveTheSampleGoToTheLastUnit) {
  ScratchPool file("above");
  Options o = FixedRange();
  o.range_key_sample = Sample(UserKey, 1000, 1);
  const Stats stats = LoadInOrder(o, file.path(), UserKey, 20000);
  EXPECT_EQ(stats.range_units, "adaptive");
  EXPECT_GE(stats.unit_records_max, 19000u);
}

// A pool that re-balances splits the last unit as the keys above the
// sample come: a sample that does not span the keys costs moves, not
// balance.
TEST(RangeSampleTest, KeysAboveTheSampleSpreadByRebalancing) {
  ScratchPool file("above_rebalanced");
  Options o = SmallRange();
  o.range_key_sample = Sample(UserKey, 1000, 1);
  ASSERT_NO_FATAL_FAILURE(LoadAndRebalance(o, file.path(), UserKey, 20000));
}

// ---- Format of new pools ----------------------------------------------------

// Every range pool created now has a range map (partitioning 4) at the
// start of the heap, named by the root page, and no change log until the
// map first changes; a sample only sets where the map first splits the
// keys. Hash pools have none of it.
TEST(RangeSampleTest, NewRangePoolsHaveARangeMapAtTheHeapStart) {
  ScratchPool sampled("format_sampled"), plain("format_plain"),
      hash("format_hash");
  constexpr unsigned kBits = 6;
  const std::vector<std::string> sample = Sample(UserKey, 5000, 3);
  Options o = FixedRange();
  o.range_key_sample = sample;
  ASSERT_OK(OpenAndClose(o, sampled.path()));
  ASSERT_OK(OpenAndClose(FixedRange(), plain.path()));
  ASSERT_OK(OpenAndClose(Options::SmallProfile(), hash.path()));

  struct Expected {
    const ScratchPool& file;
    std::vector<std::string> separators;
  };
  for (const Expected& e :
       {Expected{sampled, RangeMap::FromSample(sample, kBits).separators},
        Expected{plain, RangeMap::ByLeadingBits(kBits).separators}}) {
    SCOPED_TRACE(e.file.path());
    const std::string& path = e.file.path();
    EXPECT_EQ(ReadAt(path, kPartitioningOffset, 1), "\x04");
    EXPECT_EQ(ReadAt(path, kReservedOffset, 56), std::string(56, '\0'));
    const uint64_t heap = HeapOffset(path);
    const uint64_t word = ReadU64(path, kRootRangeMap);
    EXPECT_EQ(word % 4096, word & 63) << "a 4 KiB aligned offset | log2 size";
    const RangeMapRef map = RangeMapRef::Decode(word);
    EXPECT_EQ(map.offset, heap);
    EXPECT_GE(map.capacity_bits, 12u);
    EXPECT_EQ(ReadU64(path, kRootRangeMapSpare), 0u) << "no spare yet";
    EXPECT_EQ(ReadU64(path, kRootRangeMapLog), 0u) << "no change log yet";
    EXPECT_EQ(ReadU64(path, kRootRangeMapLogState), 0u) << "no change";
    EXPECT_GE(ReadU64(path, kAllocHighWater), heap + map.capacity())
        << "the region is allocated";

    EXPECT_EQ(ReadAt(path, heap, 8), std::string("PLUSHRM\0", 8));
    const ReadBack r = ReadMapRegion(path, heap);
    EXPECT_EQ(r.header.generation, 0u);
    EXPECT_EQ(r.header.unit_bits, kBits);
    EXPECT_EQ(r.header.positions, 1u << kBits);
    EXPECT_EQ(r.header.reserved[0], 0u);
    EXPECT_EQ(r.header.reserved[1], 0u);
    EXPECT_LE(sizeof(RangeMapHeader) + r.header.entries_bytes,
              map.capacity());
    EXPECT_EQ(r.units, RangeMap::IdentityUnits(1u << kBits));
    EXPECT_EQ(r.separators, e.separators);
  }
  // The sample's quantiles, not the leading bits' numbers.
  EXPECT_EQ(RangeMap::FromSample(sample, kBits).separators[0],
            sample[sample.size() / 64]);

  EXPECT_EQ(ReadAt(hash.path(), kPartitioningOffset, 1), std::string(1, '\0'));
  EXPECT_EQ(ReadAt(hash.path(), kReservedOffset, 56), std::string(56, '\0'));
  EXPECT_EQ(ReadU64(hash.path(), kRootRangeMap), 0u);
  EXPECT_EQ(ReadU64(hash.path(), kRootRangeMapSpare), 0u);
  EXPECT_EQ(ReadU64(hash.path(), kRootRangeMapLog), 0u);
  EXPECT_EQ(ReadU64(hash.path(), kRootRangeMapLogState), 0u);

  // A sample given for an existing pool is a creation parameter: ignored,
  // the pool keeps its map, unchanged.
  const std::string before = ReadAt(sampled.path(), HeapOffset(sampled.path()),
                                    4096);
  Options other = FixedRange();
  other.range_key_sample = {"x"};
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(other, sampled.path(), &db));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.partitioning, "range");
  EXPECT_EQ(stats.range_units, "adaptive");
  EXPECT_EQ(stats.range_rebalances, 0u);
  ASSERT_OK(db->Put({}, "b1", "v"));
  ASSERT_OK(db->Close());
  EXPECT_EQ(ReadAt(sampled.path(), HeapOffset(sampled.path()), 4096), before);
  EXPECT_EQ(ReadAt(sampled.path(), kPartitioningOffset, 1), "\x04");
  EXPECT_EQ(ReadU64(sampled.path(), kRootRangeMapLog), 0u);
}

TEST(RangeSampleTest, ASampleNeedsRangePartitioning) {
  ScratchPool file("sample_on_hash");
  Options o = Options::SmallProfile();
  o.range_key_sample = {"a"};
  std::unique_ptr<DB> db;
  const Status s = DB::Open(o, file.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.ToString(),
            "InvalidArgument: range_key_sample applies to range "
            "partitioning only (Options::partitioning = kRange)");
  EXPECT_NE(access(file.path().c_str(), F_OK), 0) << "no file is left";
}

// A range map keeps ~100 bytes of DRAM per unit: range pools stop at 2^20
// units, with or without a sample.
TEST(RangeSampleTest, RangePoolsAboveTheMapLimitAreRefused) {
  static_assert(pool::kMaxRangeMapBits == 20);
  for (const bool with_sample : {false, true}) {
    ScratchPool file("too_many_units");
    Options o = SmallRange();
    o.dram_directory_bits = pool::kMaxRangeMapBits + 1;
    if (with_sample) o.range_key_sample = Sample(UserKey, 100, 1);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(o, file.path(), &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_EQ(s.ToString(),
              "InvalidArgument: dram_directory_bits of a range pool must be "
              "at most 20 (its range map takes ~100 bytes of DRAM per unit)");
    EXPECT_NE(access(file.path().c_str(), F_OK), 0) << "no file is left";
  }
}

// ---- Damaged range maps -----------------------------------------------------

TEST(RangeSampleTest, DamagedRangeMapIsRefused) {
  struct Damage {
    uint64_t at;  // from the region's start
    std::string bytes;
    const char* message;
  };
  const std::vector<Damage> damages = {
      {0, "X", "range map: bad magic"},
      {8, std::string(1, '\x07'), "range map: header checksum mismatch"},
      {64 + 2, "Z", "range map: checksum mismatch"},
  };
  for (const Damage& d : damages) {
    ScratchPool file("damaged");
    ASSERT_NO_FATAL_FAILURE(
        CreateSampled(file.path(), Sample(UserKey, 1000, 1), 6));
    WriteAt(file.path(), ActiveMap(file.path()).offset + d.at, d.bytes);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     d.message);
  }
}

// Every byte of the region is covered by a checksum: any flip is refused.
TEST(RangeSampleTest, EveryFlippedByteOfTheRangeMapIsRefused) {
  ScratchPool file("flips");
  ASSERT_NO_FATAL_FAILURE(
      CreateSampled(file.path(), {"apple", "kiwi", "mango", "pear"}, 2));
  std::unique_ptr<DB> db;
  const uint64_t region = ActiveMap(file.path()).offset;
  const uint64_t entries_bytes = ReadU64(file.path(), region + 24);
  ASSERT_EQ(entries_bytes, 4 * 4 + 3 * 2 + 4 + 5 + 4u)
      << "units 0..3, then kiwi, mango, pear";
  const std::string prefix = "pool '" + file.path() + "': range map: ";
  for (uint64_t at = 0; at < 64 + entries_bytes; ++at) {
    const std::string original = ReadAt(file.path(), region + at, 1);
    WriteAt(file.path(), region + at, std::string(1, original[0] ^ 0x10));
    const Status s = DB::Open(SmallRange(), file.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << "byte " << at << ": " << s.ToString();
    EXPECT_EQ(std::string(s.message()).substr(0, prefix.size()), prefix)
        << "byte " << at << ": " << s.ToString();
    WriteAt(file.path(), region + at, original);
  }
  ASSERT_OK(DB::Open(SmallRange(), file.path(), &db));
}

// Regions whose checksums are right but whose contents are not: the
// checks behind the checksums, each with its message.
TEST(RangeSampleTest, InconsistentRangeMapsAreRefused) {
  const std::vector<uint32_t> identity = {0, 1, 2, 3};
  const std::vector<std::string> bcd = {"b", "c", "d"};
  constexpr uint64_t kCapacity = 4096;  // of a 4-unit map's region
  struct Case {
    MapRegion region;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{.unit_bits = 3, .units = identity, .separators = bcd},
       "made for 3 DRAM directory bits, the pool has 2"},
      {{.units = {}, .separators = {}}, "0 positions for 4 units"},
      {{.units = {0, 1, 2, 3, 0}, .separators = {"b", "c", "d", "e"}},
       "5 positions for 4 units"},
      {{.units = {0, 1, 2}, .separators = {}, .positions = 4},
       "entries cut short"},  // in the units
      {{.units = identity, .separators = {"b", "c"}},
       "entries cut short"},  // in the separators
      {{.units = identity, .separators = {"b", "c", std::string(1025, 'x')}},
       "separator 2 has a bad length (1025)"},  // longer than a key
      {{.units = identity,
        .separators = {"b", "c"},
        .trailing = std::string("\x0a\x00", 2) + "ab"},
       "separator 2 has a bad length (10)"},  // past the entries
      {{.units = identity, .separators = bcd, .trailing = "zz"},
       "entries do not fill the region"},
      {{.units = identity,
        .separators = bcd,
        .entries_bytes = kCapacity - 64 + 1},
       "entries extend past their region"},  // past the region
      {{.units = identity, .separators = bcd, .entries_bytes = uint64_t{1} << 40},
       "entries extend past their region"},
      {{.units = {0, 1, 2, 4}, .separators = bcd},
       "position 3 names unit 4 of 4"},
      {{.units = {0, 1, 1, 3}, .separators = bcd},
       "unit 1 is named twice (position 2)"},
      {{.units = identity, .separators = {"c", "b", "d"}},
       "separator 1 is out of order"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    ScratchPool file("inconsistent");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    const RangeMapRef map = ActiveMap(file.path());
    ASSERT_EQ(map.capacity(), kCapacity);
    const std::string region = Encode(c.region);
    ASSERT_LE(region.size(), map.capacity());
    WriteAt(file.path(), map.offset, region);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: " + c.message);
  }
}

// What a re-balance leaves is accepted: fewer positions than units (a unit
// named by none is free), equal separators (an empty position), a later
// generation, which the stats report as the re-balances made. The pool's
// record "b1" stays on unit 1 in both maps. (A base written by hand, with
// no change log: the log state's generation, 0, is not the base's.)
TEST(RangeSampleTest, ChangedRangeMapsAreAccepted) {
  const std::vector<MapRegion> maps = {
      {.generation = 5, .units = {0, 1, 3}, .separators = {"b", "d"}},
      {.generation = 2, .units = {0, 1, 2, 3}, .separators = {"b", "d", "d"}},
  };
  for (const MapRegion& m : maps) {
    ScratchPool file("changed");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    WriteAt(file.path(), ActiveMap(file.path()).offset, Encode(m));
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(FixedRange(), file.path(), &db));
    Stats stats;
    ASSERT_OK(db->GetStats(&stats));
    EXPECT_EQ(stats.range_units, "adaptive");
    EXPECT_EQ(stats.range_rebalances, m.generation);
    std::string value;
    EXPECT_OK(db->Get({}, "b1", &value));
    for (const char* key : {"a1", "c1", "d1", "e1"})
      ASSERT_OK(db->Put({}, key, "v"));
    std::unique_ptr<Iterator> it = db->NewIterator({});
    std::vector<std::string> keys;
    for (it->SeekToFirst(); it->Valid(); it->Next())
      keys.emplace_back(it->key());
    EXPECT_OK(it->status());
    EXPECT_EQ(keys, (std::vector<std::string>{"a1", "b1", "c1", "d1", "e1"}));
    ASSERT_OK(db->Close());
    const ReadBack r = ReadMapRegion(file.path(), ActiveMap(file.path()).offset);
    EXPECT_EQ(r.header.generation, m.generation);
    EXPECT_EQ(r.units, m.units);
    EXPECT_EQ(r.separators, m.separators);
    EXPECT_EQ(ReadU64(file.path(), kRootRangeMapLog), 0u);
  }
}

// The root page's references are checked before anything is read through
// them: aligned, at least a page, inside the allocated heap. The change
// log's too, whether or not its state counts changes.
TEST(RangeSampleTest, BadRangeMapReferencesAreRefused) {
  ScratchPool probe("references_probe");
  ASSERT_NO_FATAL_FAILURE(CreateSampled(probe.path(), {"a", "b", "c", "d"}, 2));
  const uint64_t heap = HeapOffset(probe.path());
  const uint64_t mark = ReadU64(probe.path(), kAllocHighWater);
  const uint64_t active = ReadU64(probe.path(), kRootRangeMap);
  ASSERT_EQ(active, heap | 12);
  ASSERT_GE(mark, heap + 8192) << "room for the cases below";
  const uint64_t above_mark = ((mark + 4095) & ~uint64_t{4095}) + 4096;
  const auto too_big = static_cast<uint64_t>(std::bit_width(mark - heap));

  const std::vector<uint64_t> words = {
      0,                          // no map at all
      heap | 11,                  // less than a page
      heap | 41,                  // more than 1 TiB
      kRootOffset | 12,           // below the heap
      above_mark | 12,            // above the allocations
      heap | too_big,             // past the allocations
  };
  for (const uint64_t word : words) {
    SCOPED_TRACE(word);
    ScratchPool file("references");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    WriteU64(file.path(), kRootRangeMap, word);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: the root page's active reference (" +
                         std::to_string(word) +
                         ") is not a region inside the allocated heap");
  }
  // The same checks for the spare and the change log.
  struct Other {
    uint64_t root_offset;
    const char* name;
  };
  for (const Other& other : {Other{kRootRangeMapSpare, "spare"},
                             Other{kRootRangeMapLog, "change log"}}) {
    for (const uint64_t word : {above_mark | 12, (heap + 64) | 12, heap | 11}) {
      SCOPED_TRACE(std::string(other.name) + " " + std::to_string(word));
      ScratchPool file("other_reference");
      ASSERT_NO_FATAL_FAILURE(
          CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
      WriteU64(file.path(), other.root_offset, word);
      std::unique_ptr<DB> db;
      ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                       std::string("range map: the root page's ") +
                           other.name + " reference (" + std::to_string(word) +
                           ") is not a region inside the allocated heap");
    }
  }
  // A spare that overlaps the region in use: a change would write over
  // the map the pool runs on.
  {
    ScratchPool file("spare_overlaps");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    WriteU64(file.path(), kRootRangeMapSpare, heap | 13);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: the spare region overlaps the region in use");
  }
}

// The reference's offset is 4 KiB aligned: bits 6..11 of the word are
// neither offset nor capacity, and a word with any of them set is damaged
// (RangeMapRef::Decode would mask them away and open the region at the
// offset rounded down).
TEST(RangeSampleTest, MisalignedRangeMapReferenceIsRefused) {
  for (const uint64_t misalignment : {uint64_t{64}, uint64_t{2048}}) {
    ScratchPool file("misaligned");
    ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
    const uint64_t word = (HeapOffset(file.path()) + misalignment) | 12;
    WriteU64(file.path(), kRootRangeMap, word);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: the root page's active reference (" +
                         std::to_string(word) +
                         ") is not a region inside the allocated heap");
  }
}

// A change stores the new map's reference, then the old one as the spare:
// a crash between the two stores leaves both words naming the map in use.
// That is a pool without a spare, not a damaged one.
TEST(RangeSampleTest, ASpareEqualToTheActiveMapIsAccepted) {
  ScratchPool file("spare_equal");
  ASSERT_NO_FATAL_FAILURE(CreateSampled(file.path(), {"a", "b", "c", "d"}, 2));
  WriteU64(file.path(), kRootRangeMapSpare, ReadU64(file.path(), kRootRangeMap));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(SmallRange(), file.path(), &db));
  std::string value;
  EXPECT_OK(db->Get({}, "b1", &value));
  ASSERT_OK(db->Put({}, "c1", "v"));
  EXPECT_OK(db->Get({}, "c1", &value));
  ASSERT_OK(db->Close());
}

// ---- The change log ---------------------------------------------------------

// Creates a pool at `path` whose map has changed, and closes it: `count`
// "user:" keys loaded in order without a sample crowd the unit of 'u'
// until DB::Rebalance() splits it (and merges light neighbours to free
// units for it). No background re-balancing: the changes are the ones
// that call made, and none comes after.
void CreateRebalanced(const std::string& path, uint64_t count = 5000) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(FixedRange(), path, &db));
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), UserKey, 0, count));
  uint64_t moves = 0;
  ASSERT_OK(db->Rebalance(&moves));
  ASSERT_GT(moves, 0u);
  ASSERT_OK(db->Close());
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool Overlap(uint64_t a, uint64_t a_bytes, uint64_t b, uint64_t b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

// The pool's keys are where `layout` places them: the partition a scan
// reads each in is its position on the map.
void ExpectPlacedOn(const Placement& placement,
                    const RangeMap::Layout& layout) {
  ASSERT_FALSE(placement.empty());
  for (const auto& [key, partition] : placement)
    ASSERT_EQ(partition, PositionOn(layout, key)) << test::DescribeKey(key);
}

// A re-balance appends its changes to the change log, which the root page
// names (a region like the base's: 4 KiB aligned, inside the allocated
// heap, apart from the bases), and the log state counts them after the
// base's generation; the map a pool opens with is the base with those
// changes: the one it ran on, and the stats count its changes.
TEST(RangeSampleTest, RebalancedPoolsKeepTheirChangesInALog) {
  ScratchPool file("change_log");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(FixedRange(), file.path(), &db));
  // Two crowds, each split on demand: "user:" keys on the unit of 'u',
  // then big-endian counters on unit 0.
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), UserKey, 0, 10000));
  ASSERT_OK(db->Rebalance());
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), BigEndian, 0, 10000));
  ASSERT_OK(db->Rebalance());
  Stats before;
  ASSERT_OK(db->GetStats(&before));
  ASSERT_GT(before.range_rebalances, 0u);
  ASSERT_NO_FATAL_FAILURE(ExpectSpread(before));
  const Placement placement = ScanPlacement(db.get());
  ASSERT_EQ(placement.size(), 20000u);
  ASSERT_OK(db->Close());

  const std::string& path = file.path();
  const uint64_t heap = HeapOffset(path);
  const uint64_t mark = ReadU64(path, kAllocHighWater);
  const uint64_t word = ReadU64(path, kRootRangeMapLog);
  ASSERT_NE(word, 0u);
  EXPECT_EQ(word % 4096, word & 63) << "a 4 KiB aligned offset | log2 size";
  const RangeMapRef log = ChangeLog(path);
  EXPECT_GE(log.capacity_bits, 12u);
  EXPECT_GE(log.offset, heap);
  EXPECT_LE(log.offset + log.capacity(), mark);
  const RangeMapRef base = ActiveMap(path);
  EXPECT_FALSE(
      Overlap(log.offset, log.capacity(), base.offset, base.capacity()));
  if (const uint64_t spare = ReadU64(path, kRootRangeMapSpare); spare != 0) {
    const RangeMapRef s = RangeMapRef::Decode(spare);
    EXPECT_FALSE(Overlap(log.offset, log.capacity(), s.offset, s.capacity()));
  }

  const ReadBack r = ReadMapRegion(path, base.offset);
  const LogState state = ReadLogState(path);
  EXPECT_EQ(state.base_generation, r.header.generation);
  EXPECT_GT(state.count, 0u);
  EXPECT_EQ(r.header.generation + state.count, before.range_rebalances);
  // The records decode and check as range_map_format.h says, and the base with
  // them is the map the pool ran on.
  uint64_t end = 0;
  const std::vector<RangeMap::Change> changes = ReadChanges(path, &end);
  ASSERT_EQ(changes.size(), state.count);
  EXPECT_GT(end, log.offset);
  ASSERT_NO_FATAL_FAILURE(ExpectPlacedOn(placement, StoredMap(path)));

  // The pool reopens on that map, the same layout, every key where it was.
  const std::string root = ReadAt(path, kRootOffset, 64);
  ASSERT_OK(DB::Open(FixedRange(), path, &db));
  Stats after;
  ASSERT_OK(db->GetStats(&after));
  EXPECT_EQ(after.range_rebalances, r.header.generation + state.count);
  EXPECT_EQ(after.unit_records_max, before.unit_records_max);
  EXPECT_EQ(ScanPlacement(db.get()), placement);
  std::vector<std::string> keys = Keys(UserKey, 0, 10000);
  for (const std::string& k : Keys(BigEndian, 0, 10000)) keys.push_back(k);
  ASSERT_NO_FATAL_FAILURE(ExpectExactlyInOrder(db.get(), keys));
  ASSERT_OK(db->Close());
  EXPECT_EQ(ReadAt(path, kRootOffset + 24, 32),
            root.substr(24, 32)) << "opening changes no map word";
}

// A pool reopened goes on appending to its log: the changes made in the
// next session follow the last one, numbered on from it, and the ones
// before are left as they were.
TEST(RangeSampleTest, ChangesAfterAReopenAppendToTheLog) {
  ScratchPool file("append");
  const std::string& path = file.path();
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(path));
  const RangeMapRef log = ChangeLog(path);
  const LogState first = ReadLogState(path);
  uint64_t end = 0;
  ASSERT_EQ(ReadChanges(path, &end).size(), first.count);
  const std::string written = ReadAt(path, log.offset, end - log.offset);

  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(FixedRange(), path, &db));
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), BigEndian, 0, 5000));
  uint64_t moves = 0;
  ASSERT_OK(db->Rebalance(&moves));
  EXPECT_GT(moves, 0u);
  const Placement placement = ScanPlacement(db.get());
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  ASSERT_OK(db->Close());

  EXPECT_EQ(ChangeLog(path).Encode(), log.Encode()) << "the same log";
  const LogState second = ReadLogState(path);
  EXPECT_EQ(second.base_generation, first.base_generation);
  EXPECT_EQ(second.count, first.count + moves);
  EXPECT_EQ(ReadAt(path, log.offset, written.size()), written);
  EXPECT_EQ(ReadChanges(path).size(), second.count);  // each checked
  EXPECT_EQ(second.base_generation + second.count, stats.range_rebalances);
  ASSERT_NO_FATAL_FAILURE(ExpectPlacedOn(placement, StoredMap(path)));
}

// Each damage of the log, and what the pool says about it, naming the
// change. One pool is made, and each case damages a copy of it.
TEST(RangeSampleTest, DamagedChangeLogsAreRefused) {
  ScratchPool made("change_log_made");
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(made.path()));
  const LogState state = ReadLogState(made.path());
  const uint32_t n = state.count;
  ASSERT_GT(n, 0u);
  const uint64_t generation = state.base_generation;
  const RangeMapRef log = ChangeLog(made.path());
  uint64_t end = 0;
  ASSERT_EQ(ReadChanges(made.path(), &end).size(), n);
  const RangeMap::Layout map = StoredMap(made.path());
  const auto positions = static_cast<uint32_t>(map.units.size());
  const std::string change_n = "change " + std::to_string(n) + " of " +
                               std::to_string(n + 1) + ": ";
  using Kind = RangeMap::Change::Kind;

  struct Case {
    std::string name;
    std::string record;  // appended after the last change, if not empty
    uint32_t count;      // the state's count
    std::string message;
  };
  std::vector<Case> cases = {
      // Counted, never written: the zeros after the last change.
      {"one more counted", "", n + 1,
       "range map: " + change_n + "check mismatch"},
      {"many more counted", "", n + 1000,
       "range map: change " + std::to_string(n) + " of " +
           std::to_string(n + 1000) + ": check mismatch"},
      // Records that are right but for another index or another base: a
      // record left from earlier never passes for a new one.
      {"checked as another index",
       ChangeRecord({Kind::kReassign, 0, map.units[0], ""}, generation, n + 1),
       n + 1, "range map: " + change_n + "check mismatch"},
      {"checked for another base",
       ChangeRecord({Kind::kReassign, 0, map.units[0], ""}, generation + 1, n),
       n + 1, "range map: " + change_n + "check mismatch"},
  };
  // Records that pass their check and do not apply to the map: what the
  // map says about them, after the change's number.
  const uint32_t named = map.units[0];
  uint32_t neither = 0;
  while (neither == map.units[0] || neither == map.units[1]) ++neither;
  const std::vector<std::pair<RangeMap::Change, std::string>> wrong = {
      {{Kind::kSplit, 0, named, ""},
       "unit " + std::to_string(named) + " is named twice (position 1)"},
      {{Kind::kMerge, positions - 1, map.units.back(), ""},
       "merge of 2 positions from " + std::to_string(positions - 1) +
           " of " + std::to_string(positions)},
      {{Kind::kMerge, 0, neither, ""},
       "merge of positions 0 .. 1 onto unit " + std::to_string(neither) +
           ", which none names"},
      {{Kind::kReassign, positions, 0, ""},
       "reassignment of position " + std::to_string(positions) + " of " +
           std::to_string(positions)},
      {{Kind::kReassign, 0, 64, ""}, "position 0 names unit 64 of 64"},
      {{static_cast<Kind>(7), 0, 0, ""}, "unknown change kind 7"},
  };
  for (const auto& [change, message] : wrong) {
    cases.push_back({message, ChangeRecord(change, generation, n), n + 1,
                     "range map: " + change_n + message});
  }
  // A separator longer than a key is refused before its bytes are read.
  {
    std::string record =
        ChangeRecord({Kind::kSplit, 0, 0, "x"}, generation, n);
    uint64_t word0 = test::FromWord(record);
    word0 = (word0 & ~(uint64_t{0xFFFF} << 16)) | uint64_t{2000} << 16;
    record.replace(0, 8, test::Word(word0));
    cases.push_back({"long separator", record, n + 1,
                     "range map: " + change_n + "bad separator length (2000)"});
  }

  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScratchPool file("damaged_log");
    ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
    if (!c.record.empty()) WriteAt(file.path(), end, c.record);
    ASSERT_NO_FATAL_FAILURE(WriteLogState(file.path(), {generation, c.count}));
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     c.message);
  }

  // Changes counted, and the root names no log.
  {
    ScratchPool file("no_log");
    ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
    WriteU64(file.path(), kRootRangeMapLog, 0);
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: " + std::to_string(n) +
                         " changes counted, and no change log");
  }

  // Changes that all pass their checks, to the end of the log, and one
  // more counted: the log ends before it.
  {
    ScratchPool file("past_the_end");
    ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
    uint32_t count = n;
    std::string records;
    for (uint64_t at = end; at + 16 <= log.offset + log.capacity(); at += 16) {
      records += ChangeRecord({Kind::kReassign, 0, named, ""}, generation,
                              count++);
    }
    WriteAt(file.path(), end, records);
    ASSERT_NO_FATAL_FAILURE(
        WriteLogState(file.path(), {generation, count + 1}));
    std::unique_ptr<DB> db;
    ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                     "range map: change " + std::to_string(count) + " of " +
                         std::to_string(count + 1) +
                         ": past the end of the change log");
  }
}

// Every byte of a change is covered by its check: any flip of the first
// change, or of the first split (a separator and its padding), is
// refused, naming the change (a flip of the separator length may make the
// length itself impossible, which is found first).
TEST(RangeSampleTest, EveryFlippedByteOfAChangeIsRefused) {
  ScratchPool file("change_flips");
  const std::string& path = file.path();
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(path));
  const RangeMapRef log = ChangeLog(path);
  const std::vector<RangeMap::Change> changes = ReadChanges(path);
  const auto n = static_cast<uint32_t>(changes.size());
  ASSERT_GT(n, 0u);
  std::vector<uint64_t> offsets;  // of each change, from the log's start
  uint64_t at = 0;
  for (const RangeMap::Change& c : changes) {
    offsets.push_back(at);
    at += 16 + Padded(c.separator.size());
  }
  uint32_t split = 0;
  while (split < n && changes[split].kind != RangeMap::Change::Kind::kSplit)
    ++split;
  ASSERT_LT(split, n) << "a re-balance splits";
  ASSERT_NE(changes[split].separator.size() % 8, 0u) << "with padding";

  for (const uint32_t i : {uint32_t{0}, split}) {
    const uint64_t record = log.offset + offsets[i];
    const uint64_t bytes = 16 + Padded(changes[i].separator.size());
    const std::string prefix = "range map: change " + std::to_string(i) +
                               " of " + std::to_string(n) + ": ";
    for (uint64_t b = 0; b < bytes; ++b) {
      SCOPED_TRACE("change " + std::to_string(i) + ", byte " +
                   std::to_string(b));
      const std::string original = ReadAt(path, record + b, 1);
      WriteAt(path, record + b, std::string(1, original[0] ^ 0x10));
      const uint64_t word0 = ReadU64(path, record);
      const uint64_t length = (word0 >> 16) & 0xFFFF;
      const bool split_kind =
          ((word0 >> 8) & 0xFF) ==
          static_cast<uint64_t>(RangeMap::Change::Kind::kSplit);
      const bool bad_length =
          length > kMaxKeySize ||
          16 + Padded(length) > log.capacity() - offsets[i] ||
          (!split_kind && length != 0);
      std::unique_ptr<DB> db;
      ExpectCorruption(
          DB::Open(SmallRange(), path, &db), path,
          prefix + (bad_length ? "bad separator length (" +
                                     std::to_string(length) + ")"
                               : std::string("check mismatch")));
      WriteAt(path, record + b, original);
    }
  }
  ASSERT_OK(OpenAndClose(FixedRange(), path));
}

// A change log that overlaps a base region would have the next change
// written over the map: like a spare that overlaps the base in use, it is
// damage. (Regression: the log's reference was checked only against the
// heap; such a pool opened, and its next re-balance wrote a change over
// its base.)
TEST(RangeSampleTest, AChangeLogOverABaseIsRefused) {
  ScratchPool file("log_over_base");
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(file.path()));
  WriteU64(file.path(), kRootRangeMapLog, ReadU64(file.path(), kRootRangeMap));
  ASSERT_NO_FATAL_FAILURE(WriteLogState(file.path(), {0, 0}));
  std::unique_ptr<DB> db;
  ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                   "range map: the change log overlaps a base region");
}

// A log whose state names another base generation holds no change of the
// base in use (a crash between a new base and the reset of the log): the
// pool opens on the base alone, and a log is then not needed: keys
// written then are placed on the base. (The pool's records were placed on
// the map with the changes, so some may now be misplaced, and their
// fingerprints, taken on that map's lower bounds, leave them out of a
// scan: only where the scan finds a key is checked.)
TEST(RangeSampleTest, ALogOfAnotherBaseContributesNoChange) {
  ScratchPool made("other_base_made");
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(made.path()));
  const LogState state = ReadLogState(made.path());
  const ReadBack base =
      ReadMapRegion(made.path(), ActiveMap(made.path()).offset);
  ASSERT_EQ(state.base_generation, base.header.generation);
  ASSERT_GT(state.count, 0u);
  for (const bool without_log : {false, true}) {
    SCOPED_TRACE(without_log ? "and no log" : "with its log");
    ScratchPool file("other_base");
    ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
    ASSERT_NO_FATAL_FAILURE(WriteLogState(
        file.path(), {base.header.generation + 1, state.count}));
    if (without_log) WriteU64(file.path(), kRootRangeMapLog, 0);
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(FixedRange(), file.path(), &db));
    Stats stats;
    ASSERT_OK(db->GetStats(&stats));
    EXPECT_EQ(stats.range_rebalances, base.header.generation);
    // 16 keys for each of the 64 leading-bit ranges.
    auto spread = +[](uint64_t i) { return BigEndian(i << 54); };
    ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), spread, 0, 1024));
    const Placement placement = ScanPlacement(db.get());  // status checked
    ASSERT_NO_FATAL_FAILURE(
        ExpectPlacedOn(placement, {base.separators, base.units}));
    for (const std::string& k : Keys(spread, 0, 1024)) {
      ASSERT_TRUE(std::any_of(placement.begin(), placement.end(),
                              [&](const auto& p) { return p.first == k; }))
          << test::DescribeKey(k);
    }
    ASSERT_OK(db->Close());
  }
}

// A base and changes written by hand, as range_map_format.h describes them, are
// the map the pool opens with: a base folded from the log (what the engine
// writes when the log is full), of a later generation, then a change
// after it, checked with that generation. The engine's next changes
// follow it.
TEST(RangeSampleTest, ABaseAndChangesWrittenByHandAreApplied) {
  ScratchPool file("by_hand");
  const std::string& path = file.path();
  // Few enough keys that some positions hold none: the merge below takes
  // two neighbours of which one at most holds keys.
  constexpr uint64_t kKeys = 1000;
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(path, kKeys));
  const LogState state = ReadLogState(path);
  const uint64_t generation = state.base_generation + state.count;
  const RangeMap::Layout folded = StoredMap(path);
  const RangeMapRef base = ActiveMap(path);
  const std::string region =
      Encode({.generation = generation,
              .unit_bits = 6,
              .units = folded.units,
              .separators = folded.separators});
  ASSERT_LE(region.size(), base.capacity());
  WriteAt(path, base.offset, region);
  ASSERT_NO_FATAL_FAILURE(WriteLogState(path, {generation, 0}));
  std::vector<std::string> keys = Keys(UserKey, 0, kKeys);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(FixedRange(), path, &db));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.range_rebalances, generation);
  ASSERT_NO_FATAL_FAILURE(ExpectPlacedOn(ScanPlacement(db.get()), folded));
  ASSERT_NO_FATAL_FAILURE(ExpectExactlyInOrder(db.get(), keys));
  ASSERT_OK(db->Close());

  // A merge of two positions of which one at most holds keys, onto that
  // one's unit: one position fewer, nothing misplaced.
  auto holds_keys = [&](uint32_t position) {
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
      return PositionOn(folded, k) == position;
    });
  };
  uint32_t p = 0;
  while (p + 1 < folded.units.size() && holds_keys(p) && holds_keys(p + 1))
    ++p;
  ASSERT_LT(p + 1, folded.units.size());
  const RangeMap::Change merge{RangeMap::Change::Kind::kMerge, p,
                               folded.units[holds_keys(p + 1) ? p + 1 : p],
                               ""};
  RangeMap::Layout merged = folded;
  ASSERT_EQ(RangeMap::ApplyTo(6, merge, &merged), "");
  WriteAt(path, ChangeLog(path).offset, ChangeRecord(merge, generation, 0));
  ASSERT_NO_FATAL_FAILURE(WriteLogState(path, {generation, 1}));
  ASSERT_OK(DB::Open(FixedRange(), path, &db));
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.range_rebalances, generation + 1);
  ASSERT_NO_FATAL_FAILURE(ExpectPlacedOn(ScanPlacement(db.get()), merged));
  ASSERT_NO_FATAL_FAILURE(ExpectExactlyInOrder(db.get(), keys));

  // The engine's next changes follow that one, checked with the same
  // generation (ReadChanges checks each).
  ASSERT_NO_FATAL_FAILURE(PutRange(db.get(), BigEndian, 0, 5000));
  uint64_t moves = 0;
  ASSERT_OK(db->Rebalance(&moves));
  EXPECT_GT(moves, 0u);
  const Placement placement = ScanPlacement(db.get());
  ASSERT_OK(db->Close());
  const LogState now = ReadLogState(path);
  EXPECT_EQ(now.base_generation, generation);
  EXPECT_EQ(now.count, 1 + moves);
  const std::vector<RangeMap::Change> changes = ReadChanges(path);
  ASSERT_EQ(changes.size(), now.count);
  EXPECT_EQ(changes[0].kind, merge.kind);
  EXPECT_EQ(changes[0].position, merge.position);
  EXPECT_EQ(changes[0].unit, merge.unit);
  ASSERT_NO_FATAL_FAILURE(ExpectPlacedOn(placement, StoredMap(path)));
}

// ---- Fingerprints -----------------------------------------------------------

// A slot's fingerprint that does not match its key (damage in bits
// 40..63 of its key word, which lookups do not read) would hide the record
// from scans: Verify() reports it. A re-balanced pool's fingerprints all
// match (Verify() checks each against its unit's lower bound).
TEST(RangeSampleTest, AWrongFingerprintIsReportedByVerify) {
  ScratchPool file("fingerprint");
  ASSERT_NO_FATAL_FAILURE(CreateRebalanced(file.path()));
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(FixedRange(), file.path(), &db));
    ASSERT_OK(db->Verify());
    ASSERT_OK(db->Close());
  }
  test::PoolImage image = test::PoolImage::FromFile(file.path());
  const std::optional<uint64_t> entry = image.FindEntry(1, 1);
  ASSERT_TRUE(entry.has_value());
  const uint64_t slot = *image.BucketOffset(1, *entry, 0);  // key word
  image.SetWord(slot, image.Word(slot) ^ uint64_t{1} << 58);  // depth
  ASSERT_TRUE(image.Save(file.path()));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(FixedRange(), file.path(), &db));
  std::string report;
  EXPECT_TRUE(db->Verify(&report).IsCorruption());
  EXPECT_NE(report.find("level 1 entry " + std::to_string(*entry) +
                        ": slot 0's fingerprint does not match its key"),
            std::string::npos)
      << report;
}

// ---- Retired partitionings -------------------------------------------------

// Partitionings 1 (units by key bits), 2 (units by fixed boundaries) and 3
// (a range map without fingerprints) were written by builds before this
// one: a pool whose superblock names one is refused, saying which and how
// to copy it over; a value above 4 is damage.
TEST(RangeSampleTest, RetiredPartitioningsAreNotSupported) {
  ScratchPool made("retired_made");
  ASSERT_OK(OpenAndClose(FixedRange(), made.path()));
  struct Case {
    uint8_t partitioning;
    const char* name;
  };
  for (const Case& c : {Case{pool::kRangeByKeyBits, "range by key bits"},
                        Case{pool::kRangeByBoundaries,
                             "range by fixed boundaries"},
                        Case{pool::kRangeAdaptive,
                             "range without fingerprints"}}) {
    SCOPED_TRACE(c.name);
    ScratchPool file("retired");
    ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
    RewriteSuperblock(file.path(), c.partitioning);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(SmallRange(), file.path(), &db);
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    const std::string expected =
        "NotSupported: pool '" + file.path() + "': pool has partitioning " +
        std::to_string(c.partitioning) + " (" + c.name +
        "); this library reads partitioning 0 (hash) and 4 (range) only: "
        "copy the pool with plush dump of the version that wrote it, then "
        "plush load of this one";
    EXPECT_EQ(s.ToString(), expected);
  }
  ScratchPool file("unknown");
  ASSERT_NO_FATAL_FAILURE(CopyPool(made.path(), file.path()));
  RewriteSuperblock(file.path(), 5);
  std::unique_ptr<DB> db;
  ExpectCorruption(DB::Open(SmallRange(), file.path(), &db), file.path(),
                   "superblock parameters: partitioning must be kHash or "
                   "kRange (byte 5)");
}

}  // namespace
}  // namespace plush
