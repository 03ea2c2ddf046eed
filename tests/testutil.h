// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Helpers shared by the tests: status assertions, scratch pool paths, and
// 8-byte keys and values.

#ifndef PLUSH_TESTS_TESTUTIL_H_
#define PLUSH_TESTS_TESTUTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "plush/db.h"

#define ASSERT_OK(expr)                                  \
  do {                                                   \
    const ::plush::Status _s = (expr);                   \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                  \
  do {                                                   \
    const ::plush::Status _s = (expr);                   \
    EXPECT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

namespace plush::test {

// An 8-byte string holding `v` (little-endian).
inline std::string Word(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

inline uint64_t FromWord(const std::string& s) {
  uint64_t v = 0;
  std::memcpy(&v, s.data(), std::min<size_t>(8, s.size()));
  return v;
}

// True when long "soak" variants of the tests should run (make soak).
inline bool Soak() { return std::getenv("PLUSH_SOAK") != nullptr; }

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

}  // namespace plush::test

#endif  // PLUSH_TESTS_TESTUTIL_H_
