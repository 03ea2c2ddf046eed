// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Variable-length keys and values (payload logs) through the public API:
//
//   * a model-based randomized test against std::map with keys of 0..64
//     and 1024 bytes, values of 0..4 KiB (and 64 KiB), heavy overwrite and
//     delete churn, keys switching between inline 8/8 records and payload
//     records, checkpoints, unlogged writes and reopens, on the file and
//     sim back ends, with small payload chunks so that GC runs constantly;
//   * the size limits and the pool restricted to 8/8 records;
//   * forced hash collisions (InternalOptions::key_hash, a seam of the
//     engine: db/engine_seams.h);
//   * bounded space under an overwrite-only workload.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cinttypes>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "crash_explorer.h"  // SmallestPayloadChunkSize
#include "payload/payload_format.h"
#include "placement/key_hash.h"
#include "pool/pool_format.h"
#include "testing/open_db.h"
#include "testing/sim_media.h"
#include "testutil.h"
#include "util/hash.h"  // XXH3

namespace plush {
namespace {

using test::DescribeKey;
using test::ExpectGetsMatch;
using test::ExpectVerified;
using test::FromWord;
using test::Medium;
using test::Pool;
using test::ScratchPool;
using test::Word;

// `n` bytes from `rng`.
std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t r = rng();
    std::memcpy(s.data() + i, &r, std::min<size_t>(8, n - i));
  }
  return s;
}

// Statistics summed over the sessions of a test (counters restart at Open).
struct Totals {
  uint64_t gc_runs = 0, gc_moved = 0, gc_skipped = 0, migrations = 0;
  void Add(DB* db) {
    Stats s;
    ASSERT_OK(db->GetStats(&s));
    gc_runs += s.payload_gc_runs;
    gc_moved += s.payload_gc_moved;
    gc_skipped += s.payload_gc_skipped;
    migrations += s.migrations;
  }
};

// Every key of `model` has its value; every key of `keys` that the model
// lacks, and every key of `absent`, is NotFound.
void CheckAll(DB* db, const std::map<std::string, std::string>& model,
              const std::vector<std::string>& keys,
              const std::vector<std::string>& absent, const char* when) {
  ASSERT_NO_FATAL_FAILURE(ExpectGetsMatch(db, model, keys, when));
  std::string value;
  for (const std::string& key : absent) {
    const Status s = db->Get({}, key, &value);
    ASSERT_TRUE(s.IsNotFound())
        << when << ": absent " << DescribeKey(key) << ": " << s.ToString();
  }
}

// ---- Model-based randomized test --------------------------------------------

struct ModelCase {
  const char* name;
  Medium medium;
  uint32_t payload_chunk_size;  // 0: the small profile's
  uint64_t ops;
  uint64_t key_count;
  bool limit_values;  // some values at kMaxValueSize
  bool expect_gc;
};

class VarlenModelTest : public ::testing::TestWithParam<ModelCase> {};

// Key lengths: a quarter 8 bytes, 3% kMaxKeySize, the rest 0..64.
std::string RandomKey(std::mt19937_64& rng) {
  const unsigned dice = rng() % 100;
  const size_t size = dice < 25 ? 8 : dice < 28 ? kMaxKeySize : rng() % 65;
  return RandomBytes(rng, size);
}

// Value lengths: 10% empty, 25% exactly 8, 55% 1..1024, 10% up to 4 KiB;
// with `limit`, 0.5% exactly kMaxValueSize and 0.5% up to it.
std::string RandomValue(std::mt19937_64& rng, bool limit) {
  const unsigned dice = rng() % 1000;
  size_t size;
  if (limit && dice < 5) {
    size = kMaxValueSize;
  } else if (limit && dice < 10) {
    size = rng() % (kMaxValueSize + 1);
  } else if (dice < 100) {
    size = 0;
  } else if (dice < 350) {
    size = 8;
  } else if (dice < 900) {
    size = 1 + rng() % 1024;
  } else {
    size = rng() % 4097;
  }
  return RandomBytes(rng, size);
}

// Random puts, overwrites and deletes against std::map, with Get checks,
// checkpoints, bursts of unlogged writes (made durable by a checkpoint) and
// a few reopens, each followed by a check of every key and Verify().
TEST_P(VarlenModelTest, MatchesReferenceMapAcrossReopens) {
  const ModelCase& c = GetParam();
  Pool pool(c.name, c.medium);
  Options o = Options::SmallProfile();
  if (c.payload_chunk_size != 0) o.payload_chunk_size = c.payload_chunk_size;
  const uint64_t ops = test::Soak() ? c.ops * 10 : c.ops;
  std::mt19937_64 rng(std::hash<std::string>()(c.name));

  // The key universe, and keys that are never written: near misses of
  // universe keys (one more byte, last byte changed, a prefix) and others.
  std::vector<std::string> keys;
  {
    std::set<std::string> unique;
    while (unique.size() < c.key_count) unique.insert(RandomKey(rng));
    keys.assign(unique.begin(), unique.end());
    std::shuffle(keys.begin(), keys.end(), rng);
  }
  std::vector<std::string> absent;
  {
    const std::set<std::string> universe(keys.begin(), keys.end());
    auto add = [&](std::string k) {
      if (k.size() <= kMaxKeySize && universe.count(k) == 0)
        absent.push_back(k);
    };
    for (size_t i = 0; i < 60; ++i) {
      const std::string& k = keys[i];
      add(k + "x");
      if (!k.empty()) {
        std::string flipped = k;
        flipped.back() ^= 0x5a;
        add(flipped);
        add(k.substr(0, k.size() - 1));
      }
      add(RandomKey(rng));
    }
  }

  std::map<std::string, std::string> model;
  Totals totals;
  uint64_t switches = 0;  // 8-byte keys going from 8/8 to payload or back
  uint64_t big_values = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(pool.Open(o, &db));
  const uint64_t reopen_every = ops / 6;
  for (uint64_t i = 1; i <= ops; ++i) {
    const std::string& key = keys[rng() % keys.size()];
    const unsigned dice = rng() % 1000;
    if (dice < 500) {
      std::string value = RandomValue(rng, c.limit_values);
      auto it = model.find(key);
      if (key.size() == 8 && it != model.end() &&
          (it->second.size() == 8) != (value.size() == 8))
        ++switches;
      if (value.size() == kMaxValueSize) ++big_values;
      ASSERT_OK(db->Put({}, key, value));
      model[key] = std::move(value);
    } else if (dice < 650) {
      ASSERT_OK(db->Delete({}, key));
      model.erase(key);
    } else if (dice < 990) {
      const bool miss = rng() % 10 == 0;
      const std::string& k = miss ? absent[rng() % absent.size()] : key;
      std::string value;
      const Status s = db->Get({}, k, &value);
      auto it = model.find(k);
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound())
            << DescribeKey(k) << " op " << i << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok())
            << DescribeKey(k) << " op " << i << ": " << s.ToString();
        ASSERT_TRUE(value == it->second)
            << DescribeKey(k) << " op " << i << ": got " << value.size()
            << " bytes, expected " << it->second.size();
      }
    } else if (dice < 995) {
      ASSERT_OK(db->Checkpoint(1 + rng() % 2));
    } else {
      // Unlogged writes, durable after the checkpoint that ends the burst.
      WriteOptions unlogged;
      unlogged.log = false;
      for (int j = 0; j < 10; ++j) {
        const std::string& k = keys[rng() % keys.size()];
        std::string value = RandomValue(rng, false);
        ASSERT_OK(db->Put(unlogged, k, value));
        model[k] = std::move(value);
      }
      ASSERT_OK(db->Checkpoint(1));
    }
    if (i % reopen_every == 0) {
      ASSERT_NO_FATAL_FAILURE(totals.Add(db.get()));
      db.reset();  // close and recover
      ASSERT_OK(pool.Open(o, &db));
      const std::string when = "after reopen at op " + std::to_string(i);
      ASSERT_NO_FATAL_FAILURE(
          CheckAll(db.get(), model, keys, absent, when.c_str()));
      ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
    }
  }
  ASSERT_NO_FATAL_FAILURE(
      CheckAll(db.get(), model, keys, absent, "at the end"));
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
  ASSERT_NO_FATAL_FAILURE(totals.Add(db.get()));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::printf(
      "[varlen] %s: %" PRIu64 " ops, %zu live keys, %" PRIu64
      " inline/payload switches, %" PRIu64 " values of %zu bytes; %" PRIu64
      " migrations, %" PRIu64 " payload GC runs (%" PRIu64
      " records moved, %" PRIu64 " chunks skipped); now %" PRIu64
      " payload chunks, pool %" PRIu64 " bytes (%" PRIu64 " used)\n",
      c.name, ops, model.size(), switches, big_values, kMaxValueSize,
      totals.migrations, totals.gc_runs, totals.gc_moved, totals.gc_skipped,
      stats.payload_chunks, stats.pool_bytes, stats.pool_used_bytes);
  EXPECT_GT(switches, 100u) << "8-byte keys must switch record kinds";
  if (c.limit_values) {
    EXPECT_GT(big_values, 0u);
  }
  if (c.expect_gc) {
    EXPECT_GT(totals.gc_runs, 0u) << "GC must have run";
  }
  EXPECT_GE(stats.levels, 3u) << "records must reach PMem levels";
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, VarlenModelTest,
    ::testing::Values(
        // The small profile's chunks: GC all the time.
        ModelCase{"file", Medium::kFile, 0, 150000, 1500, false, true},
        ModelCase{"sim", Medium::kSim, 0, 50000, 800, false, true},
        // The default 1 MiB chunks, with values up to kMaxValueSize.
        ModelCase{"file_limits", Medium::kFile, 1u << 20, 30000, 600, true,
                  false}),
    [](const ::testing::TestParamInfo<ModelCase>& p) {
      return std::string(p.param.name);
    });

// ---- Records switching between inline 8/8 and payload -----------------------

// 8-byte keys alternate between 8-byte values (inline) and other sizes
// (payload), with checkpoints in between so that the versions of a key sit
// on different levels, in both record kinds; the newest must always win.
TEST(VarlenTest, KeysSwitchBetweenInlineAndPayloadRecords) {
  ScratchPool file("switch");
  const Options o = Options::SmallProfile();
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  constexpr uint64_t kKeys = 300;
  std::map<std::string, std::string> model;
  std::vector<std::string> keys;
  for (uint64_t k = 0; k < kKeys; ++k) keys.push_back(Word(k));
  for (uint64_t round = 0; round < 24; ++round) {
    for (uint64_t k = 0; k < kKeys; ++k) {
      std::string value;
      switch ((round + k) % 4) {
        case 0:
          value = Word(round << 32 | k);
          break;  // inline
        case 1:
          value = std::string(16 + (round * 7 + k) % 300, char(round));
          break;
        case 2:
          value = "";
          break;  // empty: payload
        case 3:
          value = std::string(9, char(k));
          break;  // 9 bytes: payload
      }
      if (round % 5 == 4 && k % 3 == 0) {
        ASSERT_OK(db->Delete({}, keys[k]));
        model.erase(keys[k]);
      } else {
        ASSERT_OK(db->Put({}, keys[k], value));
        model[keys[k]] = value;
      }
    }
    const std::string when = "round " + std::to_string(round);
    ASSERT_NO_FATAL_FAILURE(CheckAll(db.get(), model, keys, {}, when.c_str()));
    if (round % 2 == 1) {
      ASSERT_OK(db->Checkpoint(round % 4 == 1 ? 1 : 2));
    }
    if (round % 6 == 5) {
      db.reset();
      ASSERT_OK(DB::Open(o, file.path(), &db));
      ASSERT_NO_FATAL_FAILURE(
          CheckAll(db.get(), model, keys, {}, (when + ", reopened").c_str()));
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
}

// ---- Limits
// ------------------------------------------------------------------

TEST(VarlenTest, SizeLimits) {
  ScratchPool file("limits");
  Options o = Options::SmallProfile();
  o.payload_chunk_size = 1u << 20;  // the default: fits the largest record
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  std::mt19937_64 rng(7);
  const std::string max_key = RandomBytes(rng, kMaxKeySize);
  const std::string max_value = RandomBytes(rng, kMaxValueSize);
  const std::string long_key(kMaxKeySize + 1, 'k');
  const std::string long_value(kMaxValueSize + 1, 'v');
  ASSERT_OK(db->Put({}, max_key, max_value));
  EXPECT_TRUE(db->Put({}, long_key, "v").IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, long_key, Word(1)).IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, "key", long_value).IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, Word(1), long_value).IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, max_key, long_value).IsInvalidArgument());
  EXPECT_TRUE(db->Delete({}, long_key).IsInvalidArgument());
  std::string value;
  EXPECT_TRUE(db->Get({}, long_key, &value).IsInvalidArgument());

  // The empty key and the empty value are valid and distinct from absence.
  EXPECT_TRUE(db->Get({}, "", &value).IsNotFound());
  ASSERT_OK(db->Put({}, "", ""));
  value = "junk";
  ASSERT_OK(db->Get({}, "", &value));
  EXPECT_EQ(value, "");
  ASSERT_OK(db->Put({}, "e", ""));
  ASSERT_OK(db->Put({}, Word(5), ""));
  ASSERT_OK(db->Get({}, Word(5), &value));
  EXPECT_EQ(value, "");

  // The rejected writes changed nothing.
  ASSERT_OK(db->Get({}, max_key, &value));
  EXPECT_TRUE(value == max_value);
  ASSERT_OK(db->Checkpoint());
  db.reset();
  ASSERT_OK(DB::Open(o, file.path(), &db));
  ASSERT_OK(db->Get({}, max_key, &value));
  EXPECT_TRUE(value == max_value);
  ASSERT_OK(db->Get({}, "", &value));
  EXPECT_EQ(value, "");
  ASSERT_OK(db->Get({}, "e", &value));
  EXPECT_EQ(value, "");
  ASSERT_OK(db->Delete({}, ""));
  EXPECT_TRUE(db->Get({}, "", &value).IsNotFound());
  ASSERT_OK(db->Verify());
}

// The default options (1 MiB payload chunks) take the largest records.
TEST(VarlenTest, DefaultOptionsTakeTheLargestRecords) {
  ScratchPool file("defaults");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  std::mt19937_64 rng(8);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 40; ++i) {
    std::string key = RandomBytes(rng, i % 2 == 0 ? kMaxKeySize : 1 + i);
    std::string value =
        RandomBytes(rng, i % 3 == 0 ? kMaxValueSize : rng() % kMaxValueSize);
    ASSERT_OK(db->Put({}, key, value));
    model[key] = value;
  }
  ASSERT_OK(db->Put({}, Word(1), Word(2)));
  model[Word(1)] = Word(2);
  ASSERT_OK(db->Put({}, "", std::string(kMaxValueSize, 'e')));
  model[""] = std::string(kMaxValueSize, 'e');
  std::vector<std::string> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  ASSERT_NO_FATAL_FAILURE(
      CheckAll(db.get(), model, keys, {"absent"}, "written"));
  db.reset();
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  ASSERT_NO_FATAL_FAILURE(
      CheckAll(db.get(), model, keys, {"absent"}, "reopened"));
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
}

// A record needs 8 + key + value bytes, rounded up to 8, and must fit a
// chunk after its 64-byte header; larger ones are InvalidArgument. Tested
// with the smallest chunks the engine accepts (if those hold the largest
// record, there is nothing to reject: the largest record must then work).
TEST(VarlenTest, RecordLargerThanAChunkIsRejected) {
  ScratchPool file("chunklimit");
  Options o = Options::SmallProfile();
  o.payload_chunk_size = test::SmallestPayloadChunkSize(o);
  ASSERT_GT(o.payload_chunk_size, 0u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  const size_t room = o.payload_chunk_size - 64;
  std::printf("[varlen] smallest payload chunk: %u bytes\n",
              o.payload_chunk_size);
  const std::string key(16, 'k');
  std::string value;
  if (room >= 8 + kMaxKeySize + kMaxValueSize) {
    const std::string max_key(kMaxKeySize, 'k');
    for (int i = 0; i < 10; ++i) {
      ASSERT_OK(
          db->Put({}, max_key, std::string(kMaxValueSize, char('a' + i))));
    }
    ASSERT_OK(db->Get({}, max_key, &value));
    EXPECT_TRUE(value == std::string(kMaxValueSize, char('a' + 9)));
    ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
    GTEST_SKIP() << "chunks of " << o.payload_chunk_size
                 << " bytes hold the largest record";
  }
  const std::string fits(room - 8 - key.size(), 'a');  // exactly `room`
  const std::string too_big(fits.size() + 1, 'b');     // rounds up past it
  ASSERT_OK(db->Put({}, key, fits));
  EXPECT_TRUE(db->Put({}, key, too_big).IsInvalidArgument());
  EXPECT_TRUE(db->Put({}, Word(1), std::string(room, 'c')).IsInvalidArgument());
  EXPECT_TRUE(
      db->Put({}, key, std::string(kMaxValueSize, 'd')).IsInvalidArgument());
  if (room > 8 + kMaxKeySize) {
    const std::string max_key(kMaxKeySize, 'k');
    EXPECT_TRUE(
        db->Put({}, max_key, std::string(room - 8 - kMaxKeySize + 1, 'e'))
            .IsInvalidArgument());
    ASSERT_OK(db->Put({}, max_key, std::string(room - 8 - kMaxKeySize, 'e')));
    ASSERT_OK(db->Get({}, max_key, &value));
    EXPECT_EQ(value.size(), room - 8 - kMaxKeySize);
  }
  ASSERT_OK(db->Get({}, key, &value));
  EXPECT_TRUE(value == fits);
  // Records that each fill a chunk, many times over: GC must cope.
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(db->Put({}, key, std::string(fits.size(), char('a' + i % 26))));
  }
  ASSERT_OK(db->Get({}, key, &value));
  EXPECT_TRUE(value == std::string(fits.size(), char('a' + 99 % 26)));
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
}

TEST(VarlenTest, PayloadChunkSizeIsValidated) {
  for (uint32_t bad :
       {0u, 2048u, 5000u, (128u << 10) + 100, (4u << 20) + 4096, 8u << 20}) {
    ScratchPool file("badchunk");
    Options o = Options::SmallProfile();
    o.payload_chunk_size = bad;
    std::unique_ptr<DB> db;
    EXPECT_TRUE(DB::Open(o, file.path(), &db).IsInvalidArgument()) << bad;
  }
  const uint32_t smallest =
      test::SmallestPayloadChunkSize(Options::SmallProfile());
  ASSERT_GT(smallest, 0u);
  for (uint32_t good : {smallest, smallest + 4096, 1u << 20, 4u << 20}) {
    ScratchPool file("goodchunk");
    Options o = Options::SmallProfile();
    o.payload_chunk_size = good;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(o, file.path(), &db));
    ASSERT_OK(db->Put({}, "key", "value"));
    std::string value;
    ASSERT_OK(db->Get({}, "key", &value));
    EXPECT_EQ(value, "value");
  }
  if (smallest > 4096) {  // one page less than the smallest is refused
    ScratchPool file("smallchunk");
    Options o = Options::SmallProfile();
    o.payload_chunk_size = smallest - 4096;
    std::unique_ptr<DB> db;
    EXPECT_TRUE(DB::Open(o, file.path(), &db).IsInvalidArgument());
  }
}

// A pool created without payload logs takes 8/8 records only, for good:
// the creation parameter in its superblock wins over later options.
// ---- Damaged payload structures
// ----------------------------------------------

uint64_t ReadWordAt(const std::string& path, uint64_t offset) {
  uint64_t w = 0;
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_EQ(pread(fd, &w, 8, static_cast<off_t>(offset)), 8);
  close(fd);
  return w;
}

void WriteWordAt(const std::string& path, uint64_t offset, uint64_t w) {
  const int fd = open(path.c_str(), O_WRONLY);
  EXPECT_EQ(pwrite(fd, &w, 8, static_cast<off_t>(offset)), 8);
  close(fd);
}

// A closed file pool holding payload records that a checkpoint moved to
// PMem; returns the offsets of its chunk table and of its first chunk.
void MakePayloadPool(const std::string& path, uint64_t* table,
                     uint64_t* chunk) {
  Options o = Options::SmallProfile();
  o.backend = Backend::kFile;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, path, &db));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db->Put({}, "key-" + std::to_string(i), std::string(100, 'v')));
  }
  ASSERT_OK(db->Checkpoint());
  ASSERT_OK(db->Close());
  const uint64_t root_word = ReadWordAt(
      path, pool::kRootOffset + offsetof(pool::RootPage, payload_chunk_table));
  ASSERT_NE(root_word, 0u);
  *table = root_word & ~uint64_t{4095};
  *chunk = ReadWordAt(path, *table);
  ASSERT_NE(*chunk, 0u);
}

TEST(VarlenTest, DamagedPayloadMetadataIsCorruption) {
  const std::pair<const char*,
                  std::function<void(const std::string&, uint64_t, uint64_t)>>
      cases[] = {
          {"chunk table word with a capacity below one page",
           [](const std::string& p, uint64_t table, uint64_t) {
             WriteWordAt(p,
                         pool::kRootOffset +
                             offsetof(pool::RootPage, payload_chunk_table),
                         table | 3);
           }},
          {"misaligned chunk",
           [](const std::string& p, uint64_t table, uint64_t chunk) {
             WriteWordAt(p, table, chunk + 8);
           }},
          {"chunk past the allocation mark",
           [](const std::string& p, uint64_t table, uint64_t) {
             WriteWordAt(p, table, uint64_t{1} << 40);
           }},
          {"chunk state with a reserved bit",
           [](const std::string& p, uint64_t, uint64_t chunk) {
             WriteWordAt(p, chunk, ReadWordAt(p, chunk) | 2);
           }},
          {"chunk state with epoch 0",
           [](const std::string& p, uint64_t, uint64_t chunk) {
             WriteWordAt(p, chunk, ReadWordAt(p, chunk) & 0xFFFFFFFF);
           }},
      };
  for (const auto& [what, damage] : cases) {
    ScratchPool file("damaged_payload");
    uint64_t table = 0;
    uint64_t chunk = 0;
    ASSERT_NO_FATAL_FAILURE(MakePayloadPool(file.path(), &table, &chunk));
    damage(file.path(), table, chunk);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(Options(), file.path(), &db);
    EXPECT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
  }
}

TEST(VarlenTest, DamagedPayloadEntryIsReportedByVerify) {
  ScratchPool file("damaged_entry");
  uint64_t table = 0;
  uint64_t chunk = 0;
  ASSERT_NO_FATAL_FAILURE(MakePayloadPool(file.path(), &table, &chunk));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  ExpectVerified(db.get());
  db.reset();
  // A word inside the first entry's value: header (8) + "key-0" (5) + 3.
  const uint64_t value = chunk + payload::kPayloadChunkHeaderSize + 8 + 8;
  WriteWordAt(file.path(), value, ~ReadWordAt(file.path(), value));
  ASSERT_OK(DB::Open(Options(), file.path(), &db));
  std::string report;
  EXPECT_TRUE(db->Verify(&report).IsCorruption());
  EXPECT_NE(report.find("references payload"), std::string::npos) << report;
}

TEST(VarlenTest, PoolWithoutPayloadLogsTakesOnly8ByteRecords) {
  ScratchPool file("fixedonly");
  Options o = Options::SmallProfile();
  o.payload_log_count = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (int session = 0; session < 2; ++session) {
    ASSERT_OK(db->Put({}, Word(1), Word(2)));
    EXPECT_TRUE(db->Put({}, "sixteen-byte-key", Word(2)).IsNotSupported());
    EXPECT_TRUE(db->Put({}, Word(1), "nine-byte").IsNotSupported());
    EXPECT_TRUE(db->Put({}, Word(1), "").IsNotSupported());
    EXPECT_TRUE(db->Put({}, "", "").IsNotSupported());
    // Over-limit sizes are still InvalidArgument.
    EXPECT_TRUE(db->Put({}, std::string(kMaxKeySize + 1, 'k'), "v")
                    .IsInvalidArgument());
    std::string value;
    ASSERT_OK(db->Get({}, Word(1), &value));
    EXPECT_EQ(FromWord(value), 2u);
    Stats stats;
    ASSERT_OK(db->GetStats(&stats));
    EXPECT_EQ(stats.payload_chunks, 0u);
    ASSERT_OK(db->Verify());
    db.reset();
    ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  }
}

// ---- Hash collisions
// -----------------------------------------------------------

uint64_t Spread(uint64_t x) {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// 64 distinct hashes, spread over all bits.
uint64_t SixtyFourHashes(std::string_view key) {
  return Spread(XXH3_64bits(key.data(), key.size()) % 64);
}
// 64 distinct hashes in the low bits only (the high bits are all zero).
uint64_t SixtyFourLowHashes(std::string_view key) {
  return XXH3_64bits(key.data(), key.size()) % 64;
}
// Every key that is not 8 bytes long has the same hash.
uint64_t OneHash(std::string_view) { return 0x5bd1e9955bd1e995ull; }

struct CollisionCase {
  const char* name;
  KeyHashFunction hash;
  uint64_t keys;
  uint64_t ops;
};

class VarlenCollisionTest : public ::testing::TestWithParam<CollisionCase> {};

// Many distinct keys share a hash (and so a directory entry on every
// level, a filter bit pattern and a slot hash): every lookup must still
// compare the full key and return the right record, through migrations,
// GC moves and recovery.
TEST_P(VarlenCollisionTest, LookupsReturnTheRightRecord) {
  const CollisionCase& c = GetParam();
  // Every open of the pool hashes its keys with c.hash.
  const InternalOptions colliding{.key_hash = c.hash};
  ScratchPool file(c.name);
  const Options o = Options::SmallProfile();
  std::mt19937_64 rng(c.keys);
  std::vector<std::string> keys;
  {
    std::set<std::string> unique;
    while (unique.size() < c.keys) {
      std::string k = RandomKey(rng);
      if (k.size() == 8 && rng() % 4 != 0) continue;  // mostly colliding keys
      unique.insert(k);
    }
    // Keys that differ from another only in their last byte, or in length.
    unique.insert("collide");
    unique.insert("collidf");
    unique.insert("collide!");  // 8 bytes: keeps its own hash
    unique.insert("collide!!");
    unique.insert("");
    keys.assign(unique.begin(), unique.end());
  }
  std::vector<std::string> absent = {"collidd", "collide!!!", "x",
                                     std::string(kMaxKeySize, 'z')};
  for (int i = 0; i < 20; ++i) {
    std::string k = RandomBytes(rng, 9 + rng() % 30);
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      absent.push_back(k);
  }
  std::map<std::string, std::string> model;
  Totals totals;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDB(o, colliding, file.path(), &db));
  for (const std::string& k : keys) {  // every key present at first
    std::string value = RandomValue(rng, false);
    ASSERT_OK(db->Put({}, k, value));
    model[k] = value;
  }
  ASSERT_NO_FATAL_FAILURE(
      CheckAll(db.get(), model, keys, absent, "after loading"));
  for (uint64_t i = 1; i <= c.ops; ++i) {
    const std::string& key = keys[rng() % keys.size()];
    const unsigned dice = rng() % 100;
    if (dice < 60) {
      std::string value = RandomValue(rng, false);
      ASSERT_OK(db->Put({}, key, value));
      model[key] = std::move(value);
    } else if (dice < 75) {
      ASSERT_OK(db->Delete({}, key));
      model.erase(key);
    } else if (dice < 99) {
      std::string value;
      const Status s = db->Get({}, key, &value);
      auto it = model.find(key);
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << DescribeKey(key) << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << DescribeKey(key) << ": " << s.ToString();
        ASSERT_TRUE(value == it->second) << DescribeKey(key) << " op " << i;
      }
    } else {
      ASSERT_OK(db->Checkpoint());
    }
    if (i % (c.ops / 3) == 0) {
      ASSERT_NO_FATAL_FAILURE(totals.Add(db.get()));
      db.reset();
      ASSERT_OK(OpenDB(o, colliding, file.path(), &db));
      const std::string when = "after reopen at op " + std::to_string(i);
      ASSERT_NO_FATAL_FAILURE(
          CheckAll(db.get(), model, keys, absent, when.c_str()));
    }
  }
  ASSERT_NO_FATAL_FAILURE(
      CheckAll(db.get(), model, keys, absent, "at the end"));
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
  ASSERT_NO_FATAL_FAILURE(totals.Add(db.get()));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::printf("[varlen] collisions %s: %zu keys, %" PRIu64 " levels, %" PRIu64
              " migrations, %" PRIu64 " payload GC runs (%" PRIu64 " moved)\n",
              c.name, keys.size(), stats.levels, totals.migrations,
              totals.gc_runs, totals.gc_moved);
  db.reset();
}

INSTANTIATE_TEST_SUITE_P(
    Hooks, VarlenCollisionTest,
    ::testing::Values(CollisionCase{"sixty_four", SixtyFourHashes, 600, 20000},
                      CollisionCase{"sixty_four_low", SixtyFourLowHashes, 200,
                                    8000},
                      // All keys in one directory entry per level: records
                      // with equal hashes cannot spread out, and each
                      // overflow of the deepest entry adds a level (at most
                      // 15), so few keys and operations.
                      CollisionCase{"one", OneHash, 10, 400}),
    [](const ::testing::TestParamInfo<CollisionCase>& p) {
      return std::string(p.param.name);
    });

// ---- Bounded space
// -------------------------------------------------------------

// Overwrites a fixed set of 500 keys (16 bytes) with 200-byte values, 200
// times. Each round writes 500 records of 8 + 16 + 200 = 224 bytes, 112 KB;
// without garbage collection the payload logs alone would reach 200 x 112 KB
// = 22.4 MB. With it, the pool in use must stop growing once GC is under
// way: the bound is twice the figure after round 20 plus 1 MiB (round 20
// has written 2.2 MB of payload, so a pool that keeps every version
// exceeds the bound by round ~50 and ends about 3x over it).
TEST(VarlenTest, SpaceStaysBoundedUnderOverwrites) {
  ScratchPool file("bounded");
  const Options o = Options::SmallProfile();
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  constexpr uint64_t kKeys = 500, kValueSize = 200;
  const uint64_t rounds = test::Soak() ? 2000 : 200;
  auto key_of = [](uint64_t k) {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "key-%012" PRIu64, k);
    return std::string(buf, 16);
  };
  auto value_of = [](uint64_t k, uint64_t round) {
    std::string v(kValueSize, char('a' + (k + round) % 26));
    std::memcpy(v.data(), &k, 8);
    std::memcpy(v.data() + 8, &round, 8);
    return v;
  };
  Stats stats, at20;
  uint64_t max_used_after_20 = 0, max_pool_after_20 = 0;
  for (uint64_t round = 1; round <= rounds; ++round) {
    for (uint64_t k = 0; k < kKeys; ++k) {
      ASSERT_OK(db->Put({}, key_of(k), value_of(k, round)));
    }
    ASSERT_OK(db->GetStats(&stats));
    if (round == 20) at20 = stats;
    if (round > 20) {
      max_used_after_20 = std::max(max_used_after_20, stats.pool_used_bytes);
      max_pool_after_20 = std::max(max_pool_after_20, stats.pool_bytes);
    }
    if (round % 20 == 0 || round == 1) {
      std::printf("[varlen] bounded space: round %3" PRIu64 ": pool %" PRIu64
                  " bytes, %" PRIu64 " used, %" PRIu64
                  " payload chunks (%" PRIu64 " bytes), %" PRIu64
                  " GC runs, %" PRIu64 " moved, %" PRIu64 " skipped\n",
                  round, stats.pool_bytes, stats.pool_used_bytes,
                  stats.payload_chunks, stats.payload_bytes,
                  stats.payload_gc_runs, stats.payload_gc_moved,
                  stats.payload_gc_skipped);
    }
  }
  const uint64_t no_gc = rounds * kKeys * (8 + 16 + kValueSize);
  const uint64_t bound = 2 * at20.pool_used_bytes + (1u << 20);
  std::printf("[varlen] bounded space: %" PRIu64
              " bytes used at round 20, at "
              "most %" PRIu64 " after it (bound %" PRIu64
              "); pool file at most %" PRIu64
              "; without GC the payload alone "
              "would take %" PRIu64 " bytes\n",
              at20.pool_used_bytes, max_used_after_20, bound, max_pool_after_20,
              no_gc);
  EXPECT_GT(stats.payload_gc_runs, 0u);
  EXPECT_LE(max_used_after_20, bound);
  EXPECT_LE(max_pool_after_20, 2 * at20.pool_bytes + (1u << 20));
  EXPECT_LE(stats.payload_bytes, 2 * at20.payload_bytes + (1u << 20));
  // And the data is intact, before and after a reopen.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t k = 0; k < kKeys; ++k) {
      std::string value;
      ASSERT_OK(db->Get({}, key_of(k), &value));
      ASSERT_TRUE(value == value_of(k, rounds)) << k;
    }
    ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
    db.reset();
    ASSERT_OK(DB::Open(o, file.path(), &db));
  }
}

// Bulk loading as documented (WriteOptions::log = false, made durable by
// Checkpoint()) mixed with updates: 64 keys overwritten with 1000-byte
// values, every 8th write unlogged, a checkpoint after every 100 writes.
// The live data is 64 KB and every unlogged write is durable within 100
// writes, so the payload logs must stay bounded. (Until compaction kept
// only the versions that unlogged ones shadow, rather than every chunk
// touching a DRAM entry with unlogged records, they grew by ~1000 bytes
// per write.)
TEST(VarlenTest, SpaceStaysBoundedWithUnloggedWritesAndCheckpoints) {
  ScratchPool file("bounded_unlogged");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  WriteOptions unlogged;
  unlogged.log = false;
  Stats stats;
  for (uint64_t i = 1; i <= 100000; ++i) {
    ASSERT_OK(db->Put(i % 8 == 0 ? unlogged : WriteOptions(),
                      "key-" + std::to_string(i % 64),
                      std::string(1000, char('a' + i % 26))));
    if (i % 100 == 0) {
      ASSERT_OK(db->Checkpoint());
    }
    if (i % 20000 == 0) {
      ASSERT_OK(db->GetStats(&stats));
      std::printf("[varlen] unlogged + checkpoints: %6" PRIu64
                  " writes: payload %" PRIu64 " bytes, %" PRIu64
                  " GC runs, %" PRIu64 " skipped\n",
                  i, stats.payload_bytes, stats.payload_gc_runs,
                  stats.payload_gc_skipped);
    }
  }
  EXPECT_LE(stats.payload_bytes, 4u << 20)
      << "100000 writes of 1 KB: without compaction about 100 MB";
}

}  // namespace
}  // namespace plush
