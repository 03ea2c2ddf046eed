// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Re-balancing a range pool (db/range_rebalancer.h) while other threads
// read, write and scan it: moves of key ranges between units, in the
// background (Options::range_rebalance), by writers whose unit is
// overloaded, and by a thread that calls DB::Rebalance() in a loop. Also
// run under TSan.
//
// Keys (all distinct between families, and owned by one thread each):
//
//   stable   "user:%08d/s" and big-endian 8-byte counters (even; inline
//            8/8 records), written before the threads start and never
//            again: every Get must find them with their value, every scan
//            that passes them must return them;
//   growing  "user:%08d" and big-endian counters (odd) that keep growing,
//            and 0x02 + big-endian counters that keep falling, put by one
//            writer, which deletes some of its recent keys;
//   random   "user:%08d:x", big-endian odd counters below the growing
//            ones' and random binary keys, put and deleted by another
//            writer;
//   counted  "user:%08d/i", a few keys spread over the stable ones'
//            range, incremented by one (DB::Increment) by a third writer.
//
// Each writer reads its own keys back now and then (no other thread
// writes them): a write that raced a switch of the map must not be lost,
// and an increment must count once however often it starts over.
// A value names its key, so a scan can tell a record that belongs to
// another key. At the end a full scan must equal the stable keys plus
// what each writer last wrote, every key ever written must read so, and
// Verify() must be clean; also after a reopen.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testutil.h"

namespace plush {
namespace {

using test::DescribeKey;
using test::FromWord;
using test::ScratchPool;
using test::Word;

using Model = std::map<std::string, std::string>;

// ---- Keys and values --------------------------------------------------------

std::string UserKey(uint64_t n, const char* suffix) {
  char key[32];
  std::snprintf(key, sizeof(key), "user:%08" PRIu64 "%s", n, suffix);
  return key;
}

// Counters share their leading 5 bytes: all on one unit of a map by
// leading bits, until re-balancing spreads them.
constexpr uint64_t kCounterBase = uint64_t{1} << 40;

std::string Counter(uint64_t n) {
  const uint64_t word = __builtin_bswap64(kCounterBase + n);
  return std::string(reinterpret_cast<const char*>(&word), 8);
}

// Keys that keep falling as n grows (payload records, whose slots hold
// fingerprints; no other family starts with 0x02, and the last byte keeps
// them from ending like a counted key).
std::string Falling(uint64_t n) {
  const uint64_t word = __builtin_bswap64(kCounterBase - n);
  return "\x02" + std::string(reinterpret_cast<const char*>(&word), 8) + "f";
}

bool IsCounter(std::string_view key) {
  return key.size() == 8 && key[0] == 0 && key[1] == 0 && key[2] == 1;
}

uint64_t CounterOf(std::string_view key) {
  uint64_t word = 0;
  std::memcpy(&word, key.data(), 8);
  return __builtin_bswap64(word) - kCounterBase;
}

// A value that names its key: for a counter, an 8-byte word (an inline
// record) holding the counter and a version; for other keys, the key, '#'
// and the version.
std::string ValueOf(std::string_view key, uint64_t version) {
  if (IsCounter(key)) return Word(CounterOf(key) << 20 | (version & 0xfffff));
  return std::string(key) + "#" + std::to_string(version);
}

bool IsCounted(std::string_view key) {
  return key.size() > 2 && key.substr(key.size() - 2) == "/i";
}

bool BelongsTo(std::string_view value, std::string_view key) {
  if (IsCounted(key)) return value.size() == 8;  // an int64
  if (IsCounter(key)) {
    return value.size() == 8 &&
           FromWord(std::string(value)) >> 20 == CounterOf(key);
  }
  return value.size() > key.size() && value.substr(0, key.size()) == key &&
         value[key.size()] == '#';
}

// Stable key i, of two kinds in turn.
std::string StableKey(uint64_t i) {
  return i % 2 == 0 ? UserKey(i * 50, "/s") : Counter(i * 100);
}

// Counted key k of kCounted, spread over the range of `stable` stable keys.
constexpr uint64_t kCounted = 32;
std::string CountedKey(uint64_t k, uint64_t stable) {
  return UserKey(k * stable * 50 / kCounted, "/i");
}

// ---- The test ---------------------------------------------------------------

struct Config {
  const char* name;
  uint32_t dram_directory_bits;
  uint64_t stable;  // stable keys
  std::chrono::milliseconds duration;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

// The errors of the threads: the first of each, and a flag that stops
// them all.
class Errors {
 public:
  explicit Errors(size_t threads) : errors_(threads) {}
  void Set(size_t thread, std::string error) {
    if (errors_[thread].empty()) errors_[thread] = std::move(error);
    failed_.store(true);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  const std::string& operator[](size_t thread) const { return errors_[thread]; }

 private:
  std::vector<std::string> errors_;  // each written by its thread only
  std::atomic<bool> failed_{false};
};

// A writer's keys and what it last wrote to each (absent: deleted).
struct Written {
  Model live;
  std::vector<std::string> keys;  // every key it wrote, once
  std::map<std::string, bool> seen;
  void Put(const std::string& key, std::string value) {
    if (seen.emplace(key, true).second) keys.push_back(key);
    live[key] = std::move(value);
  }
  void Delete(const std::string& key) {
    if (seen.emplace(key, true).second) keys.push_back(key);
    live.erase(key);
  }
};

// Reads `key` back as its only writer last wrote it.
std::string ReadBack(DB* db, const Written& w, const std::string& key) {
  std::string value;
  const Status s = db->Get({}, key, &value);
  auto it = w.live.find(key);
  if (it == w.live.end()) {
    if (s.IsNotFound()) return "";
    return "deleted " + DescribeKey(key) + " reads " + s.ToString();
  }
  if (!s.ok()) return "written " + DescribeKey(key) + ": " + s.ToString();
  if (value != it->second) {
    return "written " + DescribeKey(key) + " reads a value of " +
           std::to_string(value.size()) + " bytes, not the one written";
  }
  return "";
}

class RebalanceConcurrencyTest : public ::testing::TestWithParam<Config> {};

TEST_P(RebalanceConcurrencyTest, ReadersAndScansSeeStableKeysThroughMoves) {
  const Config& c = GetParam();
  const auto duration = test::Soak() ? c.duration * 10 : c.duration;
  ScratchPool file(c.name);
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = c.dram_directory_bits;
  o.max_pool_size = 1u << 30;
  ASSERT_TRUE(o.range_rebalance);  // the default: background re-balancing
  ASSERT_GT(o.background_threads, 0u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));

  Model stable;
  std::vector<std::string> stable_keys;
  for (uint64_t i = 0; i < c.stable; ++i) {
    const std::string key = StableKey(i);
    stable_keys.push_back(key);
    stable[key] = ValueOf(key, i);
    ASSERT_OK(db->Put({}, key, stable[key]));
  }
  ASSERT_OK(db->Checkpoint());  // some on PMem, the writers' in DRAM

  enum {
    kGrowing,
    kRandom,
    kIncrementer,
    kGetter,
    kScanner0,
    kScanner1,
    kRebalancer,
    kThreads
  };
  Errors errors(kThreads);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> gets{0}, scans{0}, scanned{0}, calls{0}, moves{0};
  Written growing, random;

  // Keys that keep growing, from above the stable keys' range on, and
  // keys that keep falling; deletes of recent ones.
  std::thread growing_writer([&] {
    std::mt19937_64 rng(1);
    const uint64_t first = c.stable * 100;
    for (uint64_t n = 0; !stop.load() && !errors.failed(); ++n) {
      const std::string key = n % 3 == 0   ? UserKey(first + n, "")
                              : n % 3 == 1 ? Counter((first + n) | 1)
                                           : Falling(n);
      Status s;
      if (n > 10 && rng() % 10 == 0) {
        const std::string old = n % 3 == 0   ? UserKey(first + n - 9, "")
                                : n % 3 == 1 ? Counter((first + n - 9) | 1)
                                             : Falling(n - 9);
        s = db->Delete({}, old);
        if (s.ok()) growing.Delete(old);
      } else {
        std::string value = ValueOf(key, n);
        s = db->Put({}, key, value);
        if (s.ok()) growing.Put(key, std::move(value));
      }
      if (!s.ok()) return errors.Set(kGrowing, s.ToString());
      if (n % 16 == 0) {
        const std::string& k = growing.keys[rng() % growing.keys.size()];
        if (std::string e = ReadBack(db.get(), growing, k); !e.empty())
          return errors.Set(kGrowing, e);
      }
    }
  });
  // Puts and deletes all over the stable keys' range, and random binary
  // keys (starting with 0x01: no other family does).
  std::thread random_writer([&] {
    std::mt19937_64 rng(2);
    for (uint64_t n = 0; !stop.load() && !errors.failed(); ++n) {
      std::string key;
      const unsigned dice = rng() % 3;
      if (dice == 0) {
        key = UserKey(rng() % (c.stable * 50), ":x");
      } else if (dice == 1) {
        key = Counter((rng() % (c.stable * 100)) | 1);
      } else {
        key = "\x01" + std::string(rng() % 12, static_cast<char>(rng()));
      }
      Status s;
      if (rng() % 4 == 0) {
        s = db->Delete({}, key);
        if (s.ok()) random.Delete(key);
      } else {
        std::string value = ValueOf(key, n);
        s = db->Put({}, key, value);
        if (s.ok()) random.Put(key, std::move(value));
      }
      if (!s.ok()) return errors.Set(kRandom, s.ToString());
      if (n % 8 == 0) {
        if (std::string e = ReadBack(db.get(), random, key); !e.empty())
          return errors.Set(kRandom, e);
      }
    }
  });
  // Increments: each counts once, whatever moves its key.
  std::vector<int64_t> counts(kCounted);  // by the incrementer
  std::thread incrementer([&] {
    std::mt19937_64 rng(6);
    while (!stop.load() && !errors.failed()) {
      const uint64_t k = rng() % kCounted;
      int64_t result = 0;
      const Status s = db->Increment({}, CountedKey(k, c.stable), 1, &result);
      if (!s.ok()) return errors.Set(kIncrementer, s.ToString());
      if (result != ++counts[k]) {
        return errors.Set(kIncrementer,
                          "increment " + std::to_string(counts[k]) + " of " +
                              DescribeKey(CountedKey(k, c.stable)) +
                              " gave " + std::to_string(result));
      }
    }
  });
  // Gets and MultiGets of stable keys: always found, with their value.
  std::thread getter([&] {
    std::mt19937_64 rng(3);
    std::string value;
    while (!stop.load() && !errors.failed()) {
      const std::string& key = stable_keys[rng() % stable_keys.size()];
      const Status s = db->Get({}, key, &value);
      if (!s.ok() || value != stable.at(key)) {
        return errors.Set(kGetter, "stable " + DescribeKey(key) + ": " +
                                       s.ToString());
      }
      std::vector<std::string_view> batch;
      for (int i = 0; i < 8; ++i)
        batch.push_back(stable_keys[rng() % stable_keys.size()]);
      std::vector<std::string> values;
      const std::vector<Status> statuses = db->MultiGet({}, batch, &values);
      for (size_t i = 0; i < batch.size(); ++i) {
        const std::string& want = stable.at(std::string(batch[i]));
        if (!statuses[i].ok() || values[i] != want) {
          return errors.Set(kGetter, "MultiGet of stable " +
                                         DescribeKey(batch[i]) + ": " +
                                         statuses[i].ToString());
        }
      }
      gets.fetch_add(9, std::memory_order_relaxed);
    }
  });
  // Scans from the first key or a stable key, some bounded: keys strictly
  // ascending, every stable key in the range present with its value, every
  // value naming its key.
  auto scan = [&](size_t thread, uint64_t seed) {
    std::mt19937_64 rng(seed);
    while (!stop.load() && !errors.failed()) {
      const std::string start =
          rng() % 4 == 0 ? std::string()
                         : stable_keys[rng() % stable_keys.size()];
      ReadOptions ro;
      if (rng() % 2 == 0)
        ro.iterate_upper_bound = stable_keys[rng() % stable_keys.size()];
      std::unique_ptr<Iterator> it = db->NewIterator(ro);
      it->Seek(start);
      auto expect = stable.lower_bound(start);  // the next stable key due
      std::string prev;
      bool first = true;
      for (; it->Valid(); it->Next()) {
        const std::string_view key = it->key();
        if (key < start || (!first && !(prev < key))) {
          return errors.Set(thread, "scan order: " + DescribeKey(key) +
                                        " after " + DescribeKey(prev));
        }
        if (ro.iterate_upper_bound && key >= *ro.iterate_upper_bound) {
          return errors.Set(thread,
                            "scan past its bound: " + DescribeKey(key));
        }
        if (expect != stable.end() && expect->first < key) {
          return errors.Set(thread, "stable " + DescribeKey(expect->first) +
                                        " missing from a scan");
        }
        if (expect != stable.end() && expect->first == key) {
          if (it->value() != expect->second) {
            return errors.Set(thread, "stable " + DescribeKey(key) +
                                          ": another value in a scan");
          }
          ++expect;
        } else if (!BelongsTo(it->value(), key)) {
          return errors.Set(thread,
                            DescribeKey(key) + ": a value of another key");
        }
        first = false;
        prev.assign(key);
        scanned.fetch_add(1, std::memory_order_relaxed);
      }
      if (!it->status().ok())
        return errors.Set(thread, it->status().ToString());
      // The scan reached its end: the stable keys below its bound are due.
      if (expect != stable.end() && (!ro.iterate_upper_bound ||
                                     expect->first < *ro.iterate_upper_bound)) {
        return errors.Set(thread, "scan ended before stable " +
                                      DescribeKey(expect->first));
      }
      scans.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread scanner0(scan, kScanner0, 4), scanner1(scan, kScanner1, 5);
  // DB::Rebalance() in a loop, racing the background thread's moves and
  // the writers' splits; a checkpoint now and then, and a backup (which
  // holds every unit's lock while it copies; checked at the end).
  ScratchPool backup(std::string(c.name) + "_backup");
  uint64_t backups = 0;
  std::thread rebalancer([&] {
    for (uint64_t n = 0; !stop.load() && !errors.failed(); ++n) {
      uint64_t made = 0;
      Status s = db->Rebalance(&made);
      if (s.ok() && n % 16 == 15) s = db->Checkpoint();
      if (s.ok() && n % 32 == 8) {
        unlink(backup.path().c_str());
        s = db->Backup(backup.path());
        ++backups;
      }
      if (!s.ok()) return errors.Set(kRebalancer, s.ToString());
      calls.fetch_add(1, std::memory_order_relaxed);
      moves.fetch_add(made, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });

  std::this_thread::sleep_for(duration);
  stop.store(true);
  for (std::thread* t : {&growing_writer, &random_writer, &incrementer,
                         &getter, &scanner0, &scanner1, &rebalancer}) {
    t->join();
  }
  const char* names[kThreads] = {"growing writer", "random writer",
                                 "incrementer",    "getter",
                                 "scanner 0",      "scanner 1",
                                 "rebalancer"};
  for (size_t t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << names[t];
  ASSERT_FALSE(errors.failed());

  // The last backup opens like a pool after a crash, with every stable
  // key, and passes Verify.
  if (backups > 0) {
    std::unique_ptr<DB> copy;
    ASSERT_OK(DB::Open(o, backup.path(), &copy));
    ASSERT_NO_FATAL_FAILURE(
        test::ExpectGetsMatch(copy.get(), stable, stable_keys, "the backup"));
    ASSERT_NO_FATAL_FAILURE(test::ExpectVerified(copy.get()));
    ASSERT_OK(copy->Close());
  }

  // Quiet now: the contents are exactly the stable keys and what each
  // writer last wrote.
  Model want = stable;
  for (const Written* w : {&growing, &random}) {
    for (const auto& [key, value] : w->live) want[key] = value;
  }
  std::vector<std::string> all = stable_keys;
  for (const Written* w : {&growing, &random})
    all.insert(all.end(), w->keys.begin(), w->keys.end());
  int64_t increments = 0;
  for (uint64_t k = 0; k < kCounted; ++k) {
    all.push_back(CountedKey(k, c.stable));
    if (counts[k] > 0) want[CountedKey(k, c.stable)] = Word(counts[k]);
    increments += counts[k];
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  for (int session = 0; session < 2; ++session) {
    SCOPED_TRACE(session == 0 ? "after the threads" : "reopened");
    Model got;
    std::unique_ptr<Iterator> it = db->NewIterator({});
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ASSERT_TRUE(got.empty() || got.rbegin()->first < it->key())
          << DescribeKey(it->key());
      got.emplace(std::string(it->key()), std::string(it->value()));
    }
    ASSERT_OK(it->status());
    it.reset();
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want);
    ASSERT_NO_FATAL_FAILURE(test::ExpectGetsMatch(db.get(), want, all,
                                                  "every key written"));
    ASSERT_NO_FATAL_FAILURE(test::ExpectVerified(db.get()));
    ASSERT_OK(db->Close());
    ASSERT_OK(DB::Open(o, file.path(), &db));
  }
  std::printf(
      "[rebalance] concurrency %s: %zu stable keys, %zu + %zu keys written, "
      "%" PRId64 " increments, %" PRIu64 " gets, %" PRIu64 " scans (%" PRIu64
      " records), %" PRIu64 " backups; Rebalance() %" PRIu64 " times: %" PRIu64
      " moves; %" PRIu64 " changes of the map in all; %" PRIu64
      " levels; records per unit %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
      c.name, stable_keys.size(), growing.keys.size(), random.keys.size(),
      increments, gets.load(), scans.load(), scanned.load(), backups,
      calls.load(), moves.load(), stats.range_rebalances, stats.levels,
      stats.unit_records_min, stats.unit_records_median,
      stats.unit_records_max);
  EXPECT_GT(stats.range_rebalances, 0u);
  EXPECT_GT(scans.load(), 10u);
  EXPECT_GT(calls.load(), 10u);
  EXPECT_GT(backups, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Pools, RebalanceConcurrencyTest,
    ::testing::Values(
        // 16 units: moves free units by merging most of the others.
        Config{"units16", 4, 2000, std::chrono::milliseconds(800)},
        // 64 units: more positions, more moves of smaller ranges.
        Config{"units64", 6, 4000, std::chrono::milliseconds(800)}),
    [](const ::testing::TestParamInfo<Config>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace plush
