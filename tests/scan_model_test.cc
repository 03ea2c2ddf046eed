// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Ordered scans (DB::NewIterator) on range-partitioned pools, checked
// against std::map<std::string, std::string>, whose order (char_traits<char>
// compares as unsigned char) is the order the iterator promises:
//
//   * a model-based randomized test: puts, deletes, unlogged bursts and
//     checkpoints on keys of 0..40 bytes (heavily shared prefixes, a small
//     alphabet around 0x00, 0x7F/0x80 and 0xFF, "user" + digits, uniformly
//     random bytes), 8-byte keys with 8-byte values (inline records) and
//     keys up to 1024 bytes; scans from random start keys, full scans,
//     seeks past the last key, reopens and, on the sim back end, simulated
//     power failures, after each of which a full scan must equal the model;
//   * edge cases: hash pools (NotSupported), empty pools, unsigned byte
//     order across inline and payload records, newest version and
//     tombstones across levels, key()/value() stable until the iterator
//     moves.
//
// scan_concurrency_test.cc has the scans racing with writers.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstring>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "plush/write_batch.h"
#include "pool_image.h"
#include "testing/sim_media.h"
#include "testutil.h"

namespace plush {
namespace {

using test::DescribeKey;
using test::ExpectGetsMatch;
using test::ExpectVerified;
using test::Medium;
using test::Pool;
using test::ExpectRecords;
using test::RandomBytes;
using test::ScratchPool;
using test::Word;

using Model = std::map<std::string, std::string>;

// ---- Keys and values --------------------------------------------------------

// Bytes where signed and unsigned comparison disagree, and their
// neighbours: keys drawn from them share prefixes all the time.
constexpr char kAlphabet[] = {'\x00', '\x01', 'a',    'b',
                              '\x7f', '\x80', '\xfe', '\xff'};

std::string AlphabetString(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = kAlphabet[rng() % sizeof(kAlphabet)];
  return s;
}

// A key derived from `k`: a prefix, an extension by 0x00 or 0xFF, or the
// last byte moved by one (neighbours in the order).
std::string NearKey(std::mt19937_64& rng, std::string k) {
  switch (rng() % 5) {
    case 0:
      k.resize(k.size() / 2);
      break;
    case 1:
      if (k.size() < kMaxKeySize) k.push_back('\x00');
      break;
    case 2:
      if (k.size() < kMaxKeySize) k.push_back('\xff');
      break;
    case 3:
      if (!k.empty()) k.back() = static_cast<char>(k.back() + 1);
      break;
    default:
      if (!k.empty()) k.back() = static_cast<char>(k.back() - 1);
      break;
  }
  return k;
}

// A key of the universe; `so_far` feeds the near keys.
std::string RandomKey(std::mt19937_64& rng,
                      const std::vector<std::string>& so_far) {
  const unsigned dice = rng() % 100;
  if (dice < 25) return AlphabetString(rng, rng() % 41);
  if (dice < 40) return "user" + std::to_string(rng() % 100000);
  if (dice < 58) return RandomBytes(rng, rng() % 41);
  if (dice < 75) {  // 8 bytes: inline records when the value is 8 bytes too
    return rng() % 2 == 0 ? AlphabetString(rng, 8) : RandomBytes(rng, 8);
  }
  if (dice < 80) {  // long keys with a shared-looking start
    const size_t size =
        rng() % 10 == 0 ? kMaxKeySize : 41 + rng() % (kMaxKeySize - 40);
    std::string k = AlphabetString(rng, rng() % 13);
    k += RandomBytes(rng, size - k.size());
    return k;
  }
  if (so_far.empty()) return RandomBytes(rng, rng() % 41);
  return NearKey(rng, so_far[rng() % so_far.size()]);
}

// `count` distinct keys, with the extremes of the order among them.
std::vector<std::string> KeyUniverse(std::mt19937_64& rng, size_t count) {
  std::set<std::string> unique = {"",
                                  std::string(1, '\x00'),
                                  std::string(1, '\xff'),
                                  std::string(8, '\x00'),
                                  std::string(8, '\xff'),
                                  std::string(kMaxKeySize, '\x00'),
                                  std::string(kMaxKeySize, '\xff'),
                                  "user",
                                  "user0"};
  std::vector<std::string> keys(unique.begin(), unique.end());
  while (unique.size() < count) {
    std::string k = RandomKey(rng, keys);
    if (unique.insert(k).second) keys.push_back(std::move(k));
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

// Value sizes: 10% empty, 25% exactly 8, the rest 1..300; with `big`,
// 0.5% up to kMaxValueSize.
std::string RandomValue(std::mt19937_64& rng, bool big) {
  const unsigned dice = rng() % 1000;
  size_t size;
  if (big && dice < 5) {
    size = dice == 0 ? kMaxValueSize : rng() % (kMaxValueSize + 1);
  } else if (dice < 100) {
    size = 0;
  } else if (dice < 350) {
    size = 8;
  } else {
    size = 1 + rng() % 300;
  }
  return RandomBytes(rng, size);
}

// A start key for a scan: a key of the universe, a near key, a short
// alphabet string, random bytes, "" or a "user" prefix.
std::string RandomStart(std::mt19937_64& rng,
                        const std::vector<std::string>& keys) {
  const unsigned dice = rng() % 100;
  if (dice < 40) return keys[rng() % keys.size()];
  if (dice < 60) return NearKey(rng, keys[rng() % keys.size()]);
  if (dice < 80) return AlphabetString(rng, rng() % 13);
  if (dice < 90) return RandomBytes(rng, rng() % 17);
  if (dice < 95) return "";
  return "user" + std::to_string(rng() % 1000);
}

// ---- Checks -----------------------------------------------------------------


// Seek(start) and up to `limit` records, like the model's lower_bound.
// The target is passed from a buffer that is wiped right after the call:
// the iterator must not keep a view of it.
void ExpectScan(Iterator* it, const Model& model, const std::string& start,
                size_t limit, const std::string& when) {
  std::string target = start;
  it->Seek(target);
  target.assign(target.size(), '\x5a');
  ASSERT_NO_FATAL_FAILURE(
      ExpectRecords(it, model.lower_bound(start), model.end(), limit,
                    when + ", seek to " + DescribeKey(start)));
}

void ExpectFullScan(Iterator* it, const Model& model, const std::string& when) {
  it->SeekToFirst();
  ASSERT_NO_FATAL_FAILURE(
      ExpectRecords(it, model.begin(), model.end(), SIZE_MAX,
                    when + ", full scan"));
}

// Seeking past the last key ends the iterator with status OK; seeking to
// the last key gives it and then the end.
void ExpectSeekPastEnd(Iterator* it, const Model& model,
                       const std::string& when) {
  if (model.empty()) {
    it->Seek("");
    EXPECT_FALSE(it->Valid()) << when;
    ASSERT_OK(it->status());
    return;
  }
  const std::string& last = model.rbegin()->first;
  if (last.size() < kMaxKeySize) {
    it->Seek(last + '\x00');  // the smallest key above `last`
    ASSERT_FALSE(it->Valid()) << when << ": seek past " << DescribeKey(last)
                              << " gave " << DescribeKey(it->key());
    ASSERT_OK(it->status());
  }
  it->Seek(std::string(kMaxKeySize, '\xff'));  // the largest possible key
  ASSERT_NO_FATAL_FAILURE(ExpectRecords(
      it, model.lower_bound(std::string(kMaxKeySize, '\xff')), model.end(), 2,
      when + ", seek to the largest key"));
  it->Seek(last);
  ASSERT_NO_FATAL_FAILURE(ExpectRecords(it, std::prev(model.end()), model.end(), 2,
                                        when + ", seek to the last key"));
}

// Every record a full scan returns, checking strictly ascending order.
Model Collect(DB* db, std::string* error) {
  Model out;
  std::unique_ptr<Iterator> it = db->NewIterator({});
  std::string prev;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string key(it->key());
    if (!out.empty() && !(prev < key)) {
      *error = DescribeKey(key) + " after " + DescribeKey(prev);
      return out;
    }
    out.emplace(key, std::string(it->value()));
    prev = std::move(key);
  }
  if (!it->status().ok()) *error = it->status().ToString();
  return out;
}

Options RangeSmall() {
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  return o;
}

// The default geometry (fanout 16, 1 MiB payload chunks that take the
// largest values) with 16 DRAM entries and smaller recovery logs.
Options RangeDefaultish() {
  Options o;
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = 4;
  o.log_chunk_size = 1u << 20;
  o.initial_pool_size = 16ull << 20;
  return o;
}

// RangeDefaultish with boundaries from a sample of keys like the test's
// (another draw of the same generator).
Options RangeSampled() {
  Options o = RangeDefaultish();
  std::mt19937_64 rng(99);
  o.range_key_sample = KeyUniverse(rng, 500);
  return o;
}

// ---- Model-based randomized test --------------------------------------------

struct ScanCase {
  const char* name;
  Options (*options)();
  Medium medium;
  uint64_t ops;
  size_t keys;
  bool big_values;  // some values up to kMaxValueSize
  bool crashes;     // simulated power failures (sim back end)
  uint32_t min_levels;
};

void PrintTo(const ScanCase& c, std::ostream* os) { *os << c.name; }

class ScanModelTest : public ::testing::TestWithParam<ScanCase> {};

TEST_P(ScanModelTest, MatchesReferenceMap) {
  const ScanCase& c = GetParam();
  Pool pool(c.name, c.medium);
  Options o = c.options();
  const uint64_t ops = test::Soak() ? c.ops * 10 : c.ops;
  std::mt19937_64 rng(std::hash<std::string>()(c.name));
  const std::vector<std::string> keys = KeyUniverse(rng, c.keys);

  Model model;
  std::unique_ptr<DB> db;
  ASSERT_OK(pool.Open(o, &db));
  // One iterator lives across operations and is re-positioned; others are
  // made for one scan.
  std::unique_ptr<Iterator> held = db->NewIterator({});
  uint64_t scans = 0, full_scans = 0, reopens = 0, crashes = 0, inline_puts = 0;
  uint64_t migrations = 0;  // over all sessions (counters restart at Open)
  auto count_migrations = [&] {
    Stats s;
    ASSERT_OK(db->GetStats(&s));
    migrations += s.migrations;
  };
  const uint64_t reopen_every = ops / 5;
  const uint64_t crash_every = c.crashes ? ops / 20 : 0;

  // Recovery (after a reopen or a crash) gave exactly `model`.
  auto check_recovered = [&](const std::string& when) {
    std::string error;
    const Model got = Collect(db.get(), &error);
    ASSERT_EQ(error, "") << when;
    ASSERT_TRUE(got == model)
        << when << ": " << got.size() << " records, " << model.size()
        << " expected; first difference: " << test::FirstDifference(got, model);
    ASSERT_NO_FATAL_FAILURE(ExpectGetsMatch(db.get(), model, keys, when));
    ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
  };

  for (uint64_t i = 1; i <= ops; ++i) {
    const std::string when = std::string(c.name) + " op " + std::to_string(i);
    const unsigned dice = rng() % 1000;
    if (dice < 450) {
      const std::string& key = keys[rng() % keys.size()];
      std::string value = RandomValue(rng, c.big_values);
      if (key.size() == 8 && value.size() == 8) ++inline_puts;
      ASSERT_OK(db->Put({}, key, value));
      model[key] = std::move(value);
    } else if (dice < 600) {
      const std::string& key = keys[rng() % keys.size()];
      ASSERT_OK(db->Delete({}, key));
      model.erase(key);
    } else if (dice < 700) {
      ASSERT_NO_FATAL_FAILURE(
          ExpectGetsMatch(db.get(), model, {keys[rng() % keys.size()]}, when));
    } else if (dice < 980) {
      ++scans;
      const std::string start = RandomStart(rng, keys);
      const size_t limit = 1 + rng() % 40;
      if (rng() % 2 == 0) {
        ASSERT_NO_FATAL_FAILURE(
            ExpectScan(held.get(), model, start, limit, when));
      } else {
        std::unique_ptr<Iterator> it = db->NewIterator({});
        ASSERT_NO_FATAL_FAILURE(
            ExpectScan(it.get(), model, start, limit, when));
      }
    } else if (dice < 985) {
      ++full_scans;
      ASSERT_NO_FATAL_FAILURE(ExpectFullScan(held.get(), model, when));
    } else if (dice < 990) {
      ASSERT_NO_FATAL_FAILURE(ExpectSeekPastEnd(held.get(), model, when));
    } else if (dice < 996) {
      ASSERT_OK(db->Checkpoint(1 + rng() % 2));
    } else {
      // Unlogged writes, scanned before and after the checkpoint that
      // makes them durable (so that a crash after it loses nothing).
      WriteOptions unlogged;
      unlogged.log = false;
      for (int j = 0; j < 20; ++j) {
        const std::string& key = keys[rng() % keys.size()];
        if (rng() % 4 == 0) {
          ASSERT_OK(db->Delete(unlogged, key));
          model.erase(key);
        } else {
          std::string value = RandomValue(rng, false);
          ASSERT_OK(db->Put(unlogged, key, value));
          model[key] = std::move(value);
        }
      }
      ASSERT_NO_FATAL_FAILURE(
          ExpectScan(held.get(), model, RandomStart(rng, keys), 100, when));
      ASSERT_OK(db->Checkpoint(1));
      ASSERT_NO_FATAL_FAILURE(
          ExpectScan(held.get(), model, RandomStart(rng, keys), 100, when));
    }

    if (i % reopen_every == 0) {
      ++reopens;
      ASSERT_NO_FATAL_FAILURE(count_migrations());
      held.reset();  // iterators die before their DB
      ASSERT_OK(db->Close());
      db.reset();
      ASSERT_OK(pool.Open(o, &db));
      ASSERT_NO_FATAL_FAILURE(check_recovered(when + ", reopened"));
      held = db->NewIterator({});
    } else if (crash_every != 0 && i % crash_every == 0) {
      ++crashes;
      ASSERT_NO_FATAL_FAILURE(count_migrations());
      held.reset();
      auto device = media::SimMedia::Find(pool.path);
      ASSERT_NE(device, nullptr);
      if (crashes % 2 == 1) {
        // Between operations: everything acknowledged is logged or
        // checkpointed, so recovery must give the model exactly.
        device->CrashNow();
        db.reset();
        device->RestoreCrashImage(rng());
        ASSERT_OK(pool.Open(o, &db));
        ASSERT_NO_FATAL_FAILURE(check_recovered(when + ", crashed"));
      } else {
        // At a persist point inside one of a run of logged writes: the
        // write in flight may or may not have happened.
        device->ArmCrash(1 + rng() % 64);
        std::string key, value;
        bool put = false;
        for (int j = 0; j < 100000 && !device->crashed(); ++j) {
          key = keys[rng() % keys.size()];
          put = rng() % 4 != 0;
          if (put) value = RandomValue(rng, false);
          const Status s = put ? db->Put({}, key, value) : db->Delete({}, key);
          if (device->crashed()) break;
          ASSERT_OK(s);
          if (put) {
            model[key] = value;
          } else {
            model.erase(key);
          }
        }
        ASSERT_TRUE(device->crashed()) << when;
        db.reset();
        device->RestoreCrashImage(rng());
        ASSERT_OK(pool.Open(o, &db));
        Model with_it = model;
        if (put) {
          with_it[key] = value;
        } else {
          with_it.erase(key);
        }
        std::string error;
        const Model got = Collect(db.get(), &error);
        ASSERT_EQ(error, "") << when;
        ASSERT_TRUE(got == model || got == with_it)
            << when << ", crashed in a write of " << DescribeKey(key)
            << ": first difference: " << test::FirstDifference(got, model);
        model = got;
        ASSERT_NO_FATAL_FAILURE(check_recovered(when + ", crashed in a write"));
      }
      held = db->NewIterator({});
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectFullScan(held.get(), model, "at the end"));
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
  ASSERT_NO_FATAL_FAILURE(count_migrations());
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::printf("[scan] %s: %" PRIu64 " ops, %zu live keys, %" PRIu64
              " inline puts, %" PRIu64 " scans, %" PRIu64
              " full scans, %" PRIu64 " reopens, %" PRIu64 " crashes; %" PRIu64
              " levels, %" PRIu64 " migrations; records per unit %" PRIu64
              " / %" PRIu64 " / %" PRIu64 "\n",
              c.name, ops, model.size(), inline_puts, scans, full_scans,
              reopens, crashes, stats.levels, migrations,
              stats.unit_records_min, stats.unit_records_median,
              stats.unit_records_max);
  EXPECT_GE(stats.levels, c.min_levels) << "records must reach PMem levels";
  EXPECT_GT(migrations, 100u);
  EXPECT_GT(inline_puts, 100u);
  if (c.crashes) {
    EXPECT_GE(crashes, 10u);
  }
  if (!o.range_key_sample.empty()) {
    // The boundaries survived every reopen and crash: the units stay even.
    EXPECT_GT(stats.unit_records_min, 0u);
    EXPECT_LT(stats.unit_records_max, 3 * stats.unit_records_median);
  }
  held.reset();
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, ScanModelTest,
    ::testing::Values(ScanCase{"small_file", RangeSmall, Medium::kFile, 80000,
                               2000, false, false, 3},
                      ScanCase{"small_sim", RangeSmall, Medium::kSim, 60000,
                               1500, false, true, 3},
                      ScanCase{"defaultish_file", RangeDefaultish,
                               Medium::kFile, 90000, 6000, true, false, 2},
                      ScanCase{"sampled_sim", RangeSampled, Medium::kSim,
                               60000, 3000, false, true, 2}),
    [](const ::testing::TestParamInfo<ScanCase>& p) {
      return std::string(p.param.name);
    });

// ---- Edge cases -------------------------------------------------------------

// The model's order is the promised one: unsigned bytes, a prefix first.
TEST(ScanTest, ModelOrderIsUnsignedByteOrder) {
  EXPECT_LT(std::string("\x7f"), std::string("\x80"));
  EXPECT_LT(std::string("\x01"), std::string("\xff"));
  EXPECT_LT(std::string(""), std::string(1, '\x00'));
  EXPECT_LT(std::string("a"), std::string("a\x00", 2));
  EXPECT_LT(std::string("a\xff"), std::string("b"));
}

// Hash pools iterate too (hash_iteration_test.cc), but cannot Seek.
TEST(ScanTest, SeekOnAHashPoolIsNotSupported) {
  ScratchPool file("hash");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(Options::SmallProfile(), file.path(), &db));
  ASSERT_OK(db->Put({}, "a", "1"));
  ASSERT_OK(db->Put({}, Word(1), Word(2)));
  std::unique_ptr<Iterator> it = db->NewIterator({});
  ASSERT_NE(it, nullptr);
  EXPECT_FALSE(it->Valid());
  it->Seek("a");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotSupported()) << it->status().ToString();
  EXPECT_NE(it->status().ToString().find("hash-partitioned"),
            std::string::npos);
  it->SeekToFirst();
  EXPECT_TRUE(it->Valid());
  EXPECT_OK(it->status());
  // Reopening with range options is refused: partitioning is a creation
  // parameter (DBTest.RangeOptionOnAHashPoolIsRefused).
  it.reset();
  db.reset();
  const Status s = DB::Open(RangeSmall(), file.path(), &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

void ExpectEmpty(DB* db, const char* when) {
  std::unique_ptr<Iterator> it = db->NewIterator({});
  EXPECT_FALSE(it->Valid()) << when;
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid()) << when;
  EXPECT_OK(it->status());
  for (const std::string& target :
       {std::string(), std::string(1, '\x00'), std::string("key"),
        std::string(kMaxKeySize, '\xff')}) {
    it->Seek(target);
    EXPECT_FALSE(it->Valid()) << when << ": " << DescribeKey(target);
    EXPECT_OK(it->status());
  }
}

// No records, or only tombstones (in DRAM, then on PMem, then recovered).
TEST(ScanTest, EmptyRangePool) {
  ScratchPool file("empty");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.partitioning, "range");
  ASSERT_NO_FATAL_FAILURE(ExpectEmpty(db.get(), "new pool"));
  std::vector<std::string> keys = {"", "a", "user1", Word(7),
                                   std::string(kMaxKeySize, 'k')};
  for (int i = 0; i < 200; ++i) keys.push_back("key" + std::to_string(i));
  for (const std::string& k : keys) {
    ASSERT_OK(db->Put({}, k, k.size() == 8 ? Word(1) : "value"));
  }
  for (const std::string& k : keys) ASSERT_OK(db->Delete({}, k));
  ASSERT_NO_FATAL_FAILURE(ExpectEmpty(db.get(), "tombstones in DRAM"));
  ASSERT_OK(db->Checkpoint());
  ASSERT_NO_FATAL_FAILURE(ExpectEmpty(db.get(), "tombstones on PMem"));
  db.reset();
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  ASSERT_NO_FATAL_FAILURE(ExpectEmpty(db.get(), "reopened"));
  // A tombstone only (the key was never put).
  ASSERT_OK(db->Delete({}, "never"));
  ASSERT_NO_FATAL_FAILURE(ExpectEmpty(db.get(), "a lone tombstone"));
}

// Keys that order differently as signed chars, as little-endian words
// (8-byte keys are stored inline as words) or by length; inline and payload
// records interleaved; some on PMem, some in DRAM; each Seek lands right.
TEST(ScanTest, UnsignedByteOrderAcrossRecordKinds) {
  ScratchPool file("order");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  std::vector<std::string> keys = {
      "",
      std::string(1, '\x00'),
      std::string(2, '\x00'),
      std::string("\x00\x01", 2),
      "\x01",
      "a",
      std::string("a\x00", 2),
      "a\x7f",
      "a\x80",
      "a\xff",
      "ab",
      "abcdefg",
      "abcdefgh",  // 8 bytes
      std::string("abcdefgh\x00", 9),
      // Equal first 8 bytes: the rest decides, as unsigned bytes.
      "abcdefgh\x01",
      "abcdefgh\x7f",
      "abcdefgh\x7f\x80",
      "abcdefgh\x80",
      "abcdefgh\xff",
      "abcdefgh\xff\xff",
      "abcdefgi",
      "\x7f",
      "\x7f\xff\xff\xff\xff\xff\xff\xff",
      "\x80",
      std::string("\x80\x00\x00\x00\x00\x00\x00\x01", 8),
      "\xfe",
      "\xff",
      std::string("\xff\x00", 2),
      "\xff\xff",
      std::string(8, '\xff'),
      std::string(kMaxKeySize, '\xff'),
      "user1",
      "user10",
      "user100",
      "user2",
      "user9",
      "user99",
  };
  // 8-byte keys whose numeric order as little-endian words is the
  // opposite of their byte order.
  for (uint64_t v : {1ull, 255ull, 256ull, 1ull << 56, (1ull << 56) + 1})
    keys.push_back(Word(v));
  std::mt19937_64 rng(5);
  std::shuffle(keys.begin(), keys.end(), rng);
  Model model;
  for (size_t i = 0; i < keys.size(); ++i) {
    // 8-byte values for every other key: inline records for 8-byte keys.
    std::string value = i % 2 == 0 ? Word(i) : "value " + std::to_string(i);
    ASSERT_OK(db->Put({}, keys[i], value));
    model[keys[i]] = value;
    if (i == keys.size() / 2) {
      ASSERT_OK(db->Checkpoint());
    }
  }
  for (int session = 0; session < 2; ++session) {
    const std::string when = session == 0 ? "written" : "reopened";
    std::unique_ptr<Iterator> it = db->NewIterator({});
    ASSERT_NO_FATAL_FAILURE(ExpectFullScan(it.get(), model, when));
    for (const auto& [key, value] : model) {
      ASSERT_NO_FATAL_FAILURE(ExpectScan(it.get(), model, key, 3, when));
      // Between a key and its successor in the order.
      if (key.size() < kMaxKeySize) {
        ASSERT_NO_FATAL_FAILURE(
            ExpectScan(it.get(), model, key + '\x00', 3, when));
      }
    }
    it.reset();
    db.reset();
    ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  }
}

// Versions of a key on several levels (and in both record kinds): scans
// return the newest one and skip keys whose newest version is a tombstone,
// also when an older live version sits deeper.
TEST(ScanTest, NewestVersionWinsAcrossLevels) {
  ScratchPool file("versions");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  constexpr int kKeys = 600;
  auto key_of = [](int k) {
    // 8-byte keys for a third, "user"-style keys for the rest.
    return k % 3 == 0 ? Word(static_cast<uint64_t>(k) << 40)
                      : "user" + std::to_string(k);
  };
  Model model;
  for (int round = 0; round < 8; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      if ((k + round) % 5 == 0) {
        ASSERT_OK(db->Delete({}, key_of(k)));
        model.erase(key_of(k));
      } else if ((k + round) % 3 != 1) {
        // 8-byte values (inline for 8-byte keys) and payload values in turn.
        std::string value = (k + round) % 2 == 0
                                ? Word(static_cast<uint64_t>(round) << 32 | k)
                                : std::string(1 + (k * 7 + round) % 200,
                                              static_cast<char>('a' + round));
        ASSERT_OK(db->Put({}, key_of(k), value));
        model[key_of(k)] = value;
      }
    }
    const std::string when = "round " + std::to_string(round);
    std::unique_ptr<Iterator> it = db->NewIterator({});
    ASSERT_NO_FATAL_FAILURE(ExpectFullScan(it.get(), model, when));
    ASSERT_NO_FATAL_FAILURE(ExpectScan(it.get(), model, "user3", 50, when));
    if (round % 2 == 1) {
      ASSERT_OK(db->Checkpoint(round % 4 == 1 ? 1 : 2));
    }
    if (round == 5) {
      it.reset();
      db.reset();
      ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
      it = db->NewIterator({});
      ASSERT_NO_FATAL_FAILURE(
          ExpectFullScan(it.get(), model, when + " reopened"));
    }
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_GE(stats.levels, 3u);
  ASSERT_NO_FATAL_FAILURE(ExpectVerified(db.get()));
}

// key() and value() stay valid, and keep their content, until the
// iterator moves: writes, overwrites and deletes of the current key, other
// reads and checkpoints (which migrate records and may compact payload
// chunks) in between do not disturb them. Only the current key and keys
// already passed are written, so the records ahead must come out as they
// were.
TEST(ScanTest, KeyAndValueStayValidUntilTheIteratorMoves) {
  ScratchPool file("views");
  Options o = RangeSmall();
  o.payload_chunk_size = 1u << 20;  // takes the largest values
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  std::mt19937_64 rng(11);
  const std::vector<std::string> keys = KeyUniverse(rng, 600);
  Model model;
  for (const std::string& k : keys) {
    const unsigned dice = rng() % 100;
    std::string value = dice < 30   ? RandomBytes(rng, 8)
                        : dice < 33 ? RandomBytes(rng, 4096 + rng() % 60000)
                                    : RandomValue(rng, false);
    ASSERT_OK(db->Put({}, k, value));
    model[k] = std::move(value);
    if (rng() % 200 == 0) {
      ASSERT_OK(db->Checkpoint());
    }
  }
  const Model before = model;
  std::unique_ptr<Iterator> it = db->NewIterator({});
  it->SeekToFirst();
  auto m = before.begin();
  std::vector<std::string> passed;
  for (size_t n = 0; m != before.end(); ++n, ++m) {
    ASSERT_TRUE(it->Valid()) << "ended early at " << DescribeKey(m->first)
                             << ": " << it->status().ToString();
    const std::string_view key = it->key();
    const std::string_view value = it->value();
    // Calls that do not move the iterator, and writes behind it.
    EXPECT_TRUE(it->Valid());
    EXPECT_OK(it->status());
    std::string got;
    ASSERT_OK(db->Get({}, m->first, &got));
    const unsigned dice = rng() % 4;
    if (dice == 0) {
      ASSERT_OK(db->Delete({}, m->first));
    } else {
      ASSERT_OK(db->Put({}, m->first, RandomValue(rng, dice == 1)));
    }
    for (int j = 0; j < 3 && !passed.empty(); ++j) {
      ASSERT_OK(
          db->Put({}, passed[rng() % passed.size()], RandomValue(rng, false)));
    }
    if (n % 25 == 24) {
      ASSERT_OK(db->Checkpoint(1 + n % 2));
    }
    // Only now look at the views, then copy.
    ASSERT_TRUE(key == m->first) << "record " << n << ": " << DescribeKey(key)
                                 << ", expected " << DescribeKey(m->first);
    ASSERT_TRUE(value == m->second)
        << DescribeKey(m->first) << ": the value changed under the view";
    ASSERT_TRUE(it->key() == key && it->value() == value);
    passed.emplace_back(key);
    it->Next();
  }
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::printf("[scan] views: %zu records; %" PRIu64 " migrations, %" PRIu64
              " payload GC runs\n",
              before.size(), stats.migrations, stats.payload_gc_runs);
  EXPECT_GT(stats.migrations, 10u);
}

// Re-positioning after the end, and Seek to targets around every key of a
// small pool: an iterator is reusable however it was left.
TEST(ScanTest, IteratorIsReusableAfterTheEnd) {
  ScratchPool file("reuse");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  Model model;
  for (int i = 0; i < 50; ++i) {
    std::string k = "k";  // (GCC 12 warns on "k" + std::string&&)
    k += std::to_string(i * 7);
    ASSERT_OK(db->Put({}, k, std::to_string(i)));
    model[k] = std::to_string(i);
  }
  std::unique_ptr<Iterator> it = db->NewIterator({});
  for (int pass = 0; pass < 3; ++pass) {
    ASSERT_NO_FATAL_FAILURE(ExpectFullScan(it.get(), model, "pass"));
    ASSERT_FALSE(it->Valid());
    ASSERT_NO_FATAL_FAILURE(ExpectSeekPastEnd(it.get(), model, "pass"));
    ASSERT_NO_FATAL_FAILURE(ExpectScan(it.get(), model, "", 5, "pass"));
    ASSERT_NO_FATAL_FAILURE(ExpectScan(it.get(), model, "k5", 5, "pass"));
    ASSERT_NO_FATAL_FAILURE(ExpectScan(it.get(), model, "k", 100, "pass"));
  }
}

// Keys sharing their leading bytes crowd into one DRAM entry of a range
// pool that does not re-balance: its subtree grows by itself (directory
// blocks of that unit only), so the pool holds about as many records as a
// hash pool of the same size before NoSpace says it is full (regression:
// the crowded unit made the pool allocate whole levels, for every unit,
// and ran out at a small fraction of that); the records written so far
// stay readable.
int FillUntilFull(const Options& o, const std::string& path, Status* s,
                  std::unique_ptr<DB>* db) {
  EXPECT_OK(DB::Open(o, path, db));
  int written = 0;
  for (; written < 1000000; ++written) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%07d", written);
    *s = (*db)->Put({}, key, "v");
    if (!s->ok()) break;
  }
  return written;
}

TEST(ScanTest, SkewedKeysFillThePoolLikeAHashPool) {
  ScratchPool file("skew"), hashed("skew_hash");
  Options o = RangeSmall();
  o.max_pool_size = 8u << 20;
  o.range_rebalance = false;
  Options h = o;
  h.partitioning = Partitioning::kHash;
  std::unique_ptr<DB> db;
  Status s;
  const int hash_written = FillUntilFull(h, hashed.path(), &s, &db);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  db.reset();
  const int written = FillUntilFull(o, file.path(), &s, &db);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.ToString().find("max_pool_size is 8388608"), std::string::npos)
      << s.ToString();
  EXPECT_GT(written, hash_written / 2)
      << written << " records in one unit, " << hash_written << " hashed";
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.unit_records_median, 0u) << "the keys crowd into one unit";
  std::string value;
  ASSERT_OK(db->Get({}, "k0000000", &value));
  EXPECT_EQ(value, "v");
  std::unique_ptr<Iterator> it = db->NewIterator({});
  int scanned = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++scanned;
  ASSERT_OK(it->status());
  EXPECT_EQ(scanned, written);
}

// Keys that only grow (timestamps, `user:%08d` in order) in a range pool
// that re-balances: each split above the largest key retires the unit it
// leaves behind, which keeps its records in DRAM (the background thread
// does not migrate it ahead of need) and whose successor takes no
// directory block for the epoch it is raised to. The records stay in the
// DRAM level as a hash pool's do, in about as much space (regression: each
// split migrated both units, and the pool held every record on PMem in
// blocks of its own: 2.1x a hash pool's allocated bytes at 200,000), also
// when written in batches (regression: batches took a unit past its
// high-water mark without a split, and it migrated) and by two threads
// taking the keys from one counter (regression: their writes, a little out
// of order, made a unit look like one of keys in no order).
TEST(ScanTest, GrowingKeysTakeAboutAHashPoolsSpace) {
  // (In 4096 units, below a mean of 96 records: a unit of growing keys is
  // then split at its DRAM entry's high-water mark, RangeRebalancer::
  // GrowingAbove.)
  constexpr uint64_t kRecords = 200000;
  std::string (*const orders[])(uint64_t) = {
      [](uint64_t i) { return Word(__builtin_bswap64(1700000000000 + i)); },
      [](uint64_t i) {
        char key[16];
        std::snprintf(key, sizeof(key), "user:%08" PRIu64, i);
        return std::string(key);
      }};
  enum class Writes { kPuts, kBatches, kTwoThreads };
  for (const Writes writes : {Writes::kPuts, Writes::kBatches, Writes::kTwoThreads}) {
    for (auto* key : orders) {
      SCOPED_TRACE(DescribeKey(key(0)) + (writes == Writes::kPuts ? " puts"
                                          : writes == Writes::kBatches
                                              ? " batches of 100"
                                              : " two threads"));
      Stats stats[2];
      for (const Partitioning p : {Partitioning::kHash, Partitioning::kRange}) {
        ScratchPool file(p == Partitioning::kHash ? "grow_hash" : "grow_range");
        Options o;
        o.dram_directory_bits = 12;
        o.partitioning = p;
        std::unique_ptr<DB> db;
        ASSERT_OK(DB::Open(o, file.path(), &db));
        std::atomic<uint64_t> next{0};
        auto write = [&] {
          WriteBatch batch;
          for (uint64_t i = next++; i < kRecords; i = next++) {
            std::string value = "v";
            value += std::to_string(i);
            if (writes != Writes::kBatches) {
              ASSERT_OK(db->Put({}, key(i), value));
              continue;
            }
            batch.Put(key(i), value);
            if (batch.Count() == 100 || i + 1 == kRecords) {
              ASSERT_OK(db->Write({}, &batch));
              batch.Clear();
            }
          }
        };
        if (writes == Writes::kTwoThreads) {
          std::thread other(write);
          write();
          other.join();
        } else {
          write();
        }
        Stats& st = stats[p == Partitioning::kRange];
        ASSERT_OK(db->GetStats(&st));
        ASSERT_EQ(st.records_per_level.at(0), kRecords)
            << "records migrated out of the DRAM level";
        ASSERT_OK(db->Close());
      }
      EXPECT_GT(stats[1].range_rebalances, kRecords / 256);
      // (Plus the range map's regions and a step of the heap's growth.)
      EXPECT_LT(stats[1].pool_allocated_bytes,
                stats[0].pool_allocated_bytes * 3 / 2 + (8 << 20))
          << "hash pool " << stats[0].pool_allocated_bytes;
    }
  }
}

// A damaged bucket reference on a PMem level: a scan over it stops with
// Corruption instead of reading wild memory or skipping the records.
TEST(ScanTest, DamagedBucketReferenceIsCorruption) {
  ScratchPool file("damaged");
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
    for (int i = 0; i < 400; ++i) ASSERT_OK(db->Put({}, Word(i), Word(i)));
    ASSERT_OK(db->Checkpoint());
    ASSERT_OK(db->Close());
  }
  test::PoolImage image = test::PoolImage::FromFile(file.path());
  const std::optional<uint64_t> entry = image.FindEntry(1, 1);
  ASSERT_TRUE(entry.has_value());
  const uint64_t reference = *image.EntryOffset(1, *entry) + 384;  // bucket[0]
  image.SetWord(reference, image.Word(reference) + 8);             // misaligned
  ASSERT_TRUE(image.Save(file.path()));

  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(RangeSmall(), file.path(), &db));
  std::unique_ptr<Iterator> it = db->NewIterator({});
  size_t records = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++records;
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_LT(records, 400u);
}

}  // namespace
}  // namespace plush
