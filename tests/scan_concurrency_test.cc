// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Ordered scans racing with writers and checkpoints on a range-partitioned
// pool whose tiny DRAM level migrates constantly. Also run under TSan.
//
// Three families of keys, interleaved in the key order (key i of each
// family shares a 6-byte prefix, whose first byte spreads the keys over
// the DRAM entries):
//
//   stable  written once before the scans start, never again;
//   mono    8-byte keys with 8-byte values (inline records), present
//           before the scans start and only ever overwritten, with rising
//           versions, by one writer;
//   churn   put, overwritten and deleted all the time by another writer;
//           a value names its key.
//
// Every scan (from the first key or from a random start, fast or with
// pauses that stretch it over many refills of the iterator's batch) must
// return keys in strictly ascending order (no duplicates), every stable and
// mono key at or after its start (the scan ran past them) with the stable
// key's value, mono versions that never go back from one scan to the next,
// churn values that belong to their key, and no other key.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testutil.h"

namespace plush {
namespace {

using test::FromWord;
using test::ScratchPool;
using test::Word;

// Key i's 6-byte prefix: a byte spreading i over the DRAM entries, then i
// in five digits.
std::string Prefix(uint64_t i) {
  char digits[8];
  std::snprintf(digits, sizeof(digits), "%05" PRIu64, i % 100000);
  return std::string(1, static_cast<char>((i * 37) & 0xff)) + digits;
}

// Stable keys: 8 bytes (with 8-byte values: inline) or 19.
std::string StableKey(uint64_t i) {
  return Prefix(i) + (i % 2 == 0 ? "s!" : "s-stable-tail");
}
std::string StableValue(uint64_t i) {
  if (i % 2 == 0) return Word(i * 7 + 1);
  return "stable " + std::to_string(i) + std::string(i % 50, '.');
}
std::string MonoKey(uint64_t i) { return Prefix(i) + "mo"; }
uint64_t MonoValue(uint64_t i, uint64_t version) { return i << 32 | version; }
// Churn keys: several per i, of 7..9 bytes (the 8-byte ones with
// payload values: same key size, other record kind).
std::string ChurnKey(uint64_t i, uint64_t j) {
  return Prefix(i) + "c" + std::string(j, 'x');
}
std::string ChurnValue(const std::string& key, uint64_t version) {
  return key + "#" + std::to_string(version);
}

struct Config {
  const char* name;
  uint32_t dram_directory_bits;
  uint64_t ids;            // key ids i
  uint64_t churn_ops;      // by the churn writer
  uint64_t mono_versions;  // per mono key
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class ScanConcurrencyTest : public ::testing::TestWithParam<Config> {};

TEST_P(ScanConcurrencyTest, ScansSeeStableKeysInOrderWhileWritersRun) {
  const Config& c = GetParam();
  // TSan runs this ~20x slower: a quarter of the writes still makes the
  // tiny DRAM level migrate hundreds of times under the scans.
#ifdef PLUSH_TEST_UNDER_TSAN
  constexpr uint64_t kScale = 4;
#else
  constexpr uint64_t kScale = 1;
#endif
  const uint64_t churn_ops =
      (test::Soak() ? c.churn_ops * 10 : c.churn_ops) / kScale;
  const uint64_t versions =
      (test::Soak() ? c.mono_versions * 10 : c.mono_versions) / kScale;
  ScratchPool file(c.name);
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = c.dram_directory_bits;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));

  // The keys that every scan must see, sorted, and which are mono keys.
  std::map<std::string, uint64_t> always;  // key -> i, or ~0 for stable
  std::vector<uint64_t> mono_ids;
  for (uint64_t i = 0; i < c.ids; ++i) {
    ASSERT_OK(db->Put({}, StableKey(i), StableValue(i)));
    always[StableKey(i)] = ~uint64_t{0};
    if (i % 4 == 0) {
      ASSERT_OK(db->Put({}, MonoKey(i), Word(MonoValue(i, 1))));
      always[MonoKey(i)] = i;
      mono_ids.push_back(i);
    }
  }
  ASSERT_OK(db->Checkpoint());  // some on PMem, the churn starts in DRAM
  const std::vector<std::string> starts = [&] {
    std::vector<std::string> s;
    for (const auto& [key, i] : always) s.push_back(key);
    return s;
  }();

  std::atomic<bool> writers_done{false};
  std::atomic<uint64_t> scans{0}, records{0}, churn_seen{0};
  enum { kChurn, kMono, kCheckpoints, kScanner0, kScanner1, kThreads };
  std::vector<std::string> errors(kThreads);
  std::map<std::string, uint64_t> churn_final;  // key -> version; by kChurn
  std::thread churn([&] {
    std::mt19937_64 rng(1);
    for (uint64_t n = 1; n <= churn_ops; ++n) {
      const std::string key = ChurnKey(rng() % c.ids, rng() % 3);
      Status s;
      if (rng() % 5 < 3) {
        s = db->Put({}, key, ChurnValue(key, n));
        churn_final[key] = n;
      } else {
        s = db->Delete({}, key);
        churn_final.erase(key);
      }
      if (!s.ok()) {
        errors[kChurn] = s.ToString();
        return;
      }
    }
  });
  std::thread mono([&] {
    for (uint64_t v = 2; v <= versions; ++v) {
      for (uint64_t i : mono_ids) {
        const Status s = db->Put({}, MonoKey(i), Word(MonoValue(i, v)));
        if (!s.ok()) {
          errors[kMono] = s.ToString();
          return;
        }
      }
    }
  });
  std::thread checkpoints([&] {  // race with everything
    while (!writers_done.load()) {
      const Status s = db->Checkpoint(2);
      if (!s.ok()) {
        errors[kCheckpoints] = s.ToString();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  });
  auto scan = [&](int scanner) {
    std::string& error = errors[kScanner0 + scanner];
    std::mt19937_64 rng(100 + scanner);
    std::map<uint64_t, uint64_t> mono_seen;  // i -> version
    std::unique_ptr<Iterator> it = db->NewIterator({});
    // Until the writers are done, and at least a few scans after that.
    for (int after = 0; after < 3 && error.empty();) {
      if (writers_done.load()) ++after;
      std::string start;
      if (rng() % 2 == 0) {
        it->SeekToFirst();
      } else {
        start = rng() % 4 == 0 ? std::string(1, static_cast<char>(rng()))
                               : starts[rng() % starts.size()];
        it->Seek(start);
      }
      auto expect = always.lower_bound(start);  // the next key to see
      std::string prev;
      bool first = true;
      for (uint64_t n = 0; it->Valid(); ++n, it->Next()) {
        const std::string_view key = it->key();
        const std::string_view value = it->value();
        if (!first && !(prev < key)) {
          error = "scan order: " + std::string(key) + " after " + prev;
          return;
        }
        if (key < start) {
          error = "a key below the start of the scan";
          return;
        }
        first = false;
        prev.assign(key);
        if (expect != always.end() && expect->first < key) {
          error = "key " + expect->first + " missing from a scan";
          return;
        }
        if (expect != always.end() && expect->first == key) {
          const uint64_t i = expect->second;
          if (i == ~uint64_t{0}) {
            if (value !=
                StableValue(std::stoull(std::string(key.substr(1, 5))))) {
              error = "stable key " + std::string(key) + ": wrong value";
              return;
            }
          } else {
            const uint64_t v =
                value.size() == 8 ? FromWord(std::string(value)) : 0;
            if (v >> 32 != i || (v & 0xFFFFFFFF) < mono_seen[i]) {
              error = "mono key " + std::to_string(i) + ": read " +
                      std::to_string(v) + " after version " +
                      std::to_string(mono_seen[i]);
              return;
            }
            mono_seen[i] = v & 0xFFFFFFFF;
          }
          ++expect;
        } else if (key.size() >= 7 && key[6] == 'c') {
          churn_seen.fetch_add(1, std::memory_order_relaxed);
          const std::string prefix = std::string(key) + "#";
          if (value.substr(0, prefix.size()) != prefix) {
            error =
                "churn key " + std::string(key) + ": a value of another key";
            return;
          }
        } else {
          error = "a key never written: " + std::string(key);
          return;
        }
        records.fetch_add(1, std::memory_order_relaxed);
        if (scanner == 1 && n % 16 == 15) std::this_thread::yield();
      }
      if (!it->status().ok()) {
        error = it->status().ToString();
        return;
      }
      if (expect != always.end()) {
        error = "scan ended before key " + expect->first;
        return;
      }
      scans.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread scanner0(scan, 0), scanner1(scan, 1);
  churn.join();
  mono.join();
  writers_done.store(true);
  checkpoints.join();
  scanner0.join();
  scanner1.join();
  const char* names[kThreads] = {"churn writer", "mono writer", "checkpoints",
                                 "scanner 0", "scanner 1"};
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << names[t];
  EXPECT_GE(scans.load(), 6u);
  EXPECT_GT(churn_seen.load(), 0u);

  // Quiet now: one scan gives exactly the final contents.
  std::map<std::string, std::string> want;
  for (uint64_t i = 0; i < c.ids; ++i) want[StableKey(i)] = StableValue(i);
  for (uint64_t i : mono_ids) want[MonoKey(i)] = Word(MonoValue(i, versions));
  for (const auto& [key, n] : churn_final) want[key] = ChurnValue(key, n);
  std::map<std::string, std::string> got;
  std::unique_ptr<Iterator> it = db->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ASSERT_TRUE(
        got.emplace(std::string(it->key()), std::string(it->value())).second);
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want);
  it.reset();
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  std::printf("[scan] concurrency %s: %" PRIu64 " scans, %" PRIu64
              " records (%" PRIu64 " churn), %" PRIu64 " migrations, %" PRIu64
              " levels\n",
              c.name, scans.load(), records.load(), churn_seen.load(),
              stats.migrations, stats.levels);
  EXPECT_GT(stats.migrations, 100u);
  ASSERT_OK(db->Verify());
}

INSTANTIATE_TEST_SUITE_P(
    Pools, ScanConcurrencyTest,
    ::testing::Values(
        // 4 DRAM entries: every write contends with every scan.
        Config{"tiny", 2, 600, 150000, 200},
        // 32 DRAM entries: scans cross many entries and refills.
        Config{"wider", 5, 1500, 300000, 150}),
    [](const ::testing::TestParamInfo<Config>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace plush
