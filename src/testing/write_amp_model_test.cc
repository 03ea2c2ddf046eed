// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/write_amp_model.h"

#include <gtest/gtest.h>

#include <random>

#include "testing/sim_media.h"
#include "testing/write_amp_probe.h"

namespace plush::media {
namespace {

TEST(WriteAmpModelTest, SequentialLinesCombineFourToAnXPLine) {
  WriteAmpModel model;
  for (uint64_t line = 0; line < 4096; ++line) model.RecordLines(line * 64, 1);
  EXPECT_EQ(model.MediaBytes(),
            4096u * 64);  // 1 byte of media per byte flushed
}

TEST(WriteAmpModelTest, RandomLinesCostAWholeXPLineEach) {
  WriteAmpModel model;
  std::mt19937_64 rng(7);
  constexpr uint64_t kLines = 4096;
  // Far apart lines: every flush misses the buffer.
  for (uint64_t i = 0; i < kLines; ++i)
    model.RecordLines((rng() % (1ull << 30)) * 256, 1);
  EXPECT_NEAR(static_cast<double>(model.MediaBytes()), kLines * 256.0,
              kLines * 256.0 * 0.01);
}

TEST(WriteAmpModelTest, RewritesWithinTheBufferAreFree) {
  WriteAmpModel model;
  for (int round = 0; round < 100; ++round) {
    for (uint64_t x = 0; x < WriteAmpModel::kBufferLines; ++x)
      model.RecordLines(x * 256, 4);
  }
  EXPECT_EQ(model.MediaBytes(), WriteAmpModel::kBufferLines * 256);
}

TEST(WriteAmpModelTest, LeastRecentlyUsedLineIsEvicted) {
  WriteAmpModel model;
  const uint64_t n = WriteAmpModel::kBufferLines;
  for (uint64_t x = 0; x < n; ++x) model.RecordLines(x * 256, 1);
  model.RecordLines(0, 1);        // XPLine 0 is now the most recent
  model.RecordLines(n * 256, 1);  // evicts XPLine 1, not 0
  model.RecordLines(0, 1);        // still buffered: free
  EXPECT_EQ(model.MediaBytes(), (n + 1) * 256);
  model.RecordLines(256, 1);  // XPLine 1 was evicted: costs again
  EXPECT_EQ(model.MediaBytes(), (n + 2) * 256);
}

TEST(WriteAmpModelTest, ProbeFeedsFlushesAndStreamsIntoTheModel) {
  SimMedia m(1 << 20, 1 << 20);
  WriteAmpProbe probe(&m);
  m.Persist(m.At<char>(0), 256);    // one XPLine, four lines
  m.Persist(m.At<char>(4096), 64);  // another XPLine
  const uint64_t words[3] = {1, 2, 3};
  m.StreamWords(m.At<uint64_t>(8192), words, 3);  // a third
  m.Drain();
  EXPECT_EQ(m.flushed_lines(), 6u);
  EXPECT_EQ(probe.MediaBytes(), 768u);
  // The probe forwards to the simulator: what it saw is durable.
  EXPECT_EQ(m.DurableImage()[8192 / 8 + 2], 3u);
}

}  // namespace
}  // namespace plush::media
