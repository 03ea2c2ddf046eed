// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Helpers shared by the tests: status assertions, scratch pool paths, and
// 8-byte keys and values.

#ifndef PLUSH_TESTS_TESTUTIL_H_
#define PLUSH_TESTS_TESTUTIL_H_

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "plush/db.h"
#include "sim_pool.h"
#include "testing/sim_media.h"

// Status assertions; like gtest's own, they take more context with <<.
#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::plush::test::StatusIsOk, expr)
#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::plush::test::StatusIsOk, expr)

namespace plush::test {

inline ::testing::AssertionResult StatusIsOk(const char* expr,
                                             const ::plush::Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expr << ": " << s.ToString();
}

// Test names for suites parameterized by Partitioning ("Hash", "Range").
inline std::string PartitioningName(
    const ::testing::TestParamInfo<Partitioning>& info) {
  return info.param == Partitioning::kHash ? "Hash" : "Range";
}

// A clock that moves only when told (Options::clock): expiry at the
// test's command.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(uint64_t now_ms = 1'000'000) : now_(now_ms) {}
  uint64_t NowMs() const override { return now_.load(); }
  void Set(uint64_t now_ms) { now_.store(now_ms); }
  void Advance(uint64_t ms) { now_.fetch_add(ms); }

 private:
  std::atomic<uint64_t> now_;
};

}  // namespace plush::test

namespace plush::test {

// An 8-byte string holding `v` (little-endian).
// Waits (up to 10 s, polling every millisecond) until `done()` holds;
// false if it never did. For a state another thread reaches by itself.
template <typename Done>
bool Eventually(Done done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

inline std::string Word(uint64_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 8);
}

inline uint64_t FromWord(const std::string& s) {
  uint64_t v = 0;
  std::memcpy(&v, s.data(), std::min<size_t>(8, s.size()));
  return v;
}

// A key for failure messages: its size and its first 16 bytes in hex.
inline std::string DescribeKey(std::string_view key) {
  static const char kHex[] = "0123456789abcdef";
  std::string d = std::to_string(key.size()) + "-byte key ";
  for (size_t i = 0; i < std::min<size_t>(key.size(), 16); ++i) {
    d += kHex[static_cast<unsigned char>(key[i]) >> 4];
    d += kHex[static_cast<unsigned char>(key[i]) & 15];
  }
  if (key.size() > 16) d += "...";
  if (key.empty()) d += "(empty)";
  return d;
}

// Get of every key of `keys` agrees with `model`: the model's value, or
// NotFound for a key the model lacks.
inline void ExpectGetsMatch(DB* db,
                            const std::map<std::string, std::string>& model,
                            const std::vector<std::string>& keys,
                            const std::string& when) {
  std::string value;
  for (const std::string& key : keys) {
    const Status s = db->Get({}, key, &value);
    auto it = model.find(key);
    if (it == model.end()) {
      ASSERT_TRUE(s.IsNotFound())
          << when << ": " << DescribeKey(key) << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << when << ": " << DescribeKey(key) << ": "
                          << s.ToString();
      ASSERT_TRUE(value == it->second)
          << when << ": " << DescribeKey(key) << ": got " << value.size()
          << " bytes, expected " << it->second.size();
    }
  }
}

// Verify() is clean; prints its report otherwise.
inline void ExpectVerified(DB* db) {
  std::string report;
  const Status s = db->Verify(&report);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << report;
}

// The first difference between two key-value maps (a scan's records and
// a model's), for failure messages.
inline std::string FirstDifference(
    const std::map<std::string, std::string>& got,
    const std::map<std::string, std::string>& want) {
  auto g = got.begin();
  auto w = want.begin();
  for (; g != got.end() && w != want.end(); ++g, ++w) {
    if (g->first != w->first) {
      return g->first < w->first ? "extra " + DescribeKey(g->first)
                                 : "missing " + DescribeKey(w->first);
    }
    if (g->second != w->second) {
      return DescribeKey(g->first) + " has " +
             std::to_string(g->second.size()) + " value bytes, expected " +
             std::to_string(w->second.size());
    }
  }
  if (g != got.end()) return "extra " + DescribeKey(g->first);
  if (w != want.end()) return "missing " + DescribeKey(w->first);
  return "none";
}

// An ordered scan against a model: compares the records of `it` (positioned by the caller) with the model's
// from `m` up to `end`, at most `limit` of them; when `end` comes first,
// the iterator must end too, with status OK.
inline void ExpectRecords(
    Iterator* it, std::map<std::string, std::string>::const_iterator m,
    std::map<std::string, std::string>::const_iterator end, size_t limit,
    const std::string& when) {
  for (size_t n = 0; n < limit; ++n, ++m) {
    if (m == end) {
      ASSERT_FALSE(it->Valid()) << when << ": after " << n
                                << " records, an extra "
                                << DescribeKey(it->key());
      ASSERT_OK(it->status()) << when;
      return;
    }
    ASSERT_TRUE(it->Valid())
        << when << ": ended after " << n << " records, expected "
        << DescribeKey(m->first) << "; status " << it->status().ToString();
    ASSERT_TRUE(it->key() == m->first)
        << when << ": record " << n << " is " << DescribeKey(it->key())
        << ", expected " << DescribeKey(m->first);
    ASSERT_TRUE(it->value() == m->second)
        << when << ": " << DescribeKey(m->first) << " has a value of "
        << it->value().size() << " bytes, expected " << m->second.size();
    it->Next();
  }
  ASSERT_OK(it->status()) << when;
}

// `n` bytes from `rng` (any byte value, NUL and 0xFF included).
inline std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t r = rng();
    std::memcpy(s.data() + i, &r, std::min<size_t>(8, n - i));
  }
  return s;
}

// DB::Rebalance on a hash pool, whose units do not move: NotSupported
// saying why, no move counted.
inline void ExpectRebalanceNotSupported(DB* db) {
  uint64_t moves = 7;
  const Status s = db->Rebalance(&moves);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_EQ(s.ToString(),
            "NotSupported: re-balancing needs a range pool (this one is "
            "hash-partitioned)");
  EXPECT_EQ(moves, 0u);
  Stats stats;
  ASSERT_TRUE(db->GetStats(&stats).ok());
  EXPECT_EQ(stats.range_rebalances, 0u);
}

// True when long "soak" variants of the tests should run (make soak).
inline bool Soak() { return std::getenv("PLUSH_SOAK") != nullptr; }

// The seed a crash test draws its workload (or its sample) from: `seed`
// itself, moved by the soak's round (PLUSH_SOAK_ROUND, 0 if unset), so
// that scripts/soak.sh, running the crash tests once per round, explores
// other workloads in each.
inline uint64_t SoakSeed(uint64_t seed) {
  const char* round = std::getenv("PLUSH_SOAK_ROUND");
  if (round == nullptr) return seed;
  return seed + 1'000'003 * std::strtoull(round, nullptr, 10);
}

// A pool path that no other test (or test process) uses; the file is
// removed when the object dies.
class ScratchPool {
 public:
  explicit ScratchPool(const std::string& name) {
    static std::atomic<int> counter{0};
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    path_ = std::string(dir) + "/plush_test_" + std::to_string(getpid()) + "_" +
            std::to_string(counter++) + "_" + name;
    unlink(path_.c_str());
  }
  ~ScratchPool() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Where a test's pool lives.
enum class Medium { kFile, kSim };

// A test's pool: a file, or a simulated device named after it (removed
// when the object dies).
struct Pool {
  Pool(const std::string& name, Medium where) : file(name), medium(where) {
    path = medium == Medium::kSim ? "sim:" + file.path() : file.path();
  }
  ~Pool() {
    if (medium == Medium::kSim) media::SimMedia::Remove(path);
  }
  Status Open(const Options& options, std::unique_ptr<DB>* db) const {
    return medium == Medium::kSim ? OpenSim(options, path, db)
                                  : DB::Open(options, path, db);
  }
  ScratchPool file;
  Medium medium;
  std::string path;
};

#if defined(__SANITIZE_THREAD__)
#define PLUSH_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PLUSH_TEST_UNDER_TSAN 1
#endif
#endif

// The threads of this process (/proc/self/task).
inline size_t ThreadCount() {
  size_t n = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(dir)) n += e->d_name[0] != '.';
    closedir(dir);
  }
  return n;
}

// Forks; in the child, arranges for it to be killed if the test process
// dies first, so that no child outlives a failed test (and keeps ctest
// waiting on its output). Returns fork()'s result, or -1 if another
// thread runs: the child would inherit the locks that thread holds (a DB's
// background thread inside malloc left ASan's allocator locked in a child
// forever), so the caller must stop it first (Options::background_threads
// = 0, or close its DB). TSan runs a thread of its own and forks safely.
inline pid_t ForkTestChild() {
#ifndef PLUSH_TEST_UNDER_TSAN
  if (const size_t threads = ThreadCount(); threads != 1) {
    ADD_FAILURE() << "fork with " << threads
                  << " threads running: the child could deadlock";
    return -1;
  }
#endif
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) prctl(PR_SET_PDEATHSIG, SIGKILL);
  return pid;
}

// Runs `body` in a forked child and returns its wait status (test it with
// WIFEXITED/WEXITSTATUS), so that a test can see what a second process
// sees, or let a process die in ways the test process must survive. The
// child leaves with _exit(): gtest's and atexit handlers run only in the
// parent. REQUIRES: the caller runs no other threads (fork copies one).
inline int RunInChild(const std::function<int()>& body) {
  const pid_t pid = ForkTestChild();
  if (pid == 0) _exit(body());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

}  // namespace plush::test

#endif  // PLUSH_TESTS_TESTUTIL_H_
