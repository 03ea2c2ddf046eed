// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The damaged-pool fuzz target (fuzz/pool_fuzz_target.h) without libFuzzer:
// replays the committed seed corpus and a deterministic stream of random
// edit scripts with the project's own compiler, so that every `make test`
// (and its ASan+UBSan run) covers the target even where clang is missing.
// Coverage-guided fuzzing is scripts/fuzz.sh.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz/pool_fuzz_target.h"
#include "testutil.h"

namespace plush::test {
namespace {

std::string RunInput(const std::string& input) {
  return RunPoolFuzzInput(reinterpret_cast<const uint8_t*>(input.data()),
                          input.size());
}

TEST(FuzzCorpusTest, EverySeedKeepsTheContract) {
  int seeds = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(PLUSH_FUZZ_CORPUS_DIR)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string input(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(RunInput(input), "") << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 10)
      << "the seed corpus is missing: run tests/fuzz/make_corpus.py";
}

// One to four edits anywhere, half of the time followed by random
// operations: a blind fuzzer, weaker than libFuzzer but always run.
TEST(FuzzCorpusTest, RandomEditScriptsKeepTheContract) {
  std::mt19937_64 rng(2026);
  const int runs = Soak() ? 100000 : 1500;
  for (int i = 0; i < runs; ++i) {
    std::string input(8 * (1 + rng() % 4), '\0');
    for (char& c : input) c = static_cast<char>(rng());
    for (size_t e = 0; e < input.size(); e += 8) {
      if (input[e] == '\xFF') input[e] = 0;  // keep every edit
    }
    if (rng() % 2 == 0) {
      input += '\xFF';
      for (int op = 0; op < 16; ++op) input += static_cast<char>(rng());
    }
    ASSERT_EQ(RunInput(input), "") << "run " << i;
  }
}

}  // namespace
}  // namespace plush::test
