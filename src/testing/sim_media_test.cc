// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The crash simulator on its own: what it keeps, what it drops, and how it
// tears unpersisted words.

#include "testing/sim_media.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace plush::media {
namespace {

constexpr uint64_t kSize = 1 << 20;

uint64_t* Words(SimMedia& m, uint64_t offset) { return m.At<uint64_t>(offset); }

TEST(SimMediaTest, PersistedWordsSurviveAndUnflushedOnesDoNot) {
  SimMedia m(kSize, kSize);
  Words(m, 0)[0] = 11;
  m.Persist(Words(m, 0), 8);
  Words(m, 4096)[0] = 22;  // written, never flushed
  m.CrashNow();
  const std::vector<uint64_t> durable = m.DurableImage();
  EXPECT_EQ(durable[0], 11u);
  EXPECT_EQ(durable[4096 / 8], 0u);
}

TEST(SimMediaTest, FlushWithoutDrainIsNotDurable) {
  SimMedia m(kSize, kSize);
  Words(m, 128)[0] = 7;
  m.Flush(Words(m, 128), 8);
  EXPECT_EQ(m.DurableImage()[128 / 8], 0u);
  m.Drain();
  EXPECT_EQ(m.DurableImage()[128 / 8], 7u);
}

TEST(SimMediaTest, DrainPersistsOnlyTheCallingThreadsFlushes) {
  SimMedia m(kSize, kSize);
  Words(m, 0)[0] = 1;
  m.Flush(Words(m, 0), 8);
  std::thread other([&] {
    Words(m, 64)[0] = 2;
    m.Persist(Words(m, 64), 8);
  });
  other.join();
  std::vector<uint64_t> durable = m.DurableImage();
  EXPECT_EQ(durable[0], 0u)
      << "another thread's fence must not persist our flush";
  EXPECT_EQ(durable[8], 2u);
  m.Drain();
  EXPECT_EQ(m.DurableImage()[0], 1u);
}

TEST(SimMediaTest, ArmedCrashFreezesTheDurableImageAtThatPersistPoint) {
  SimMedia m(kSize, kSize);
  m.ArmCrash(2);
  Words(m, 0)[0] = 1;
  m.Persist(Words(m, 0), 8);  // point 1: takes effect
  Words(m, 64)[0] = 2;
  m.Persist(Words(m, 64), 8);  // point 2: the crash, does not take effect
  EXPECT_TRUE(m.crashed());
  Words(m, 128)[0] = 3;
  m.Persist(Words(m, 128), 8);  // after the crash: ignored
  const std::vector<uint64_t> durable = m.DurableImage();
  EXPECT_EQ(durable[0], 1u);
  EXPECT_EQ(durable[8], 0u);
  EXPECT_EQ(durable[16], 0u);
  EXPECT_EQ(m.persist_points(), 3u);
}

TEST(SimMediaTest, CrashImageTearsUnpersistedWordsIndependently) {
  SimMedia m(kSize, kSize);
  constexpr uint64_t kWords = 4096;
  for (uint64_t i = 0; i < kWords; ++i)
    Words(m, 0)[i] = i + 1;  // never persisted
  Words(m, 65536)[0] = 99;
  m.Persist(Words(m, 65536), 8);
  m.CrashNow();
  const std::vector<uint64_t> a = m.CrashImage(1);
  const std::vector<uint64_t> b = m.CrashImage(2);
  uint64_t newer = 0;
  uint64_t differ = 0;
  for (uint64_t i = 0; i < kWords; ++i) {
    ASSERT_TRUE(a[i] == 0 || a[i] == i + 1)
        << "a word is either old or new, never mixed";
    newer += a[i] != 0;
    differ += a[i] != b[i];
  }
  // Each word is an independent coin flip: about half new, seeds differ.
  EXPECT_GT(newer, kWords / 3);
  EXPECT_LT(newer, kWords * 2 / 3);
  EXPECT_GT(differ, kWords / 4);
  EXPECT_EQ(a[65536 / 8], 99u) << "persisted words are kept in every image";
  EXPECT_EQ(m.CrashImage(1), a) << "the same seed gives the same image";
}

TEST(SimMediaTest, EveryWayOfBuildingACrashImageGivesTheSameImage) {
  SimMedia m(kSize, kSize);
  for (uint64_t i = 0; i < 2048; ++i) Words(m, 0)[i * 3] = i + 1;
  Words(m, 32768)[0] = 5;
  m.Persist(Words(m, 32768), 8);
  m.CrashNow();
  const std::vector<uint64_t> expected = m.CrashImage(7);
  std::vector<uint64_t> reused(5, 42);  // a buffer of another size
  m.CrashImage(7, &reused);
  EXPECT_EQ(reused, expected);
  m.RestoreCrashImage(7);
  EXPECT_FALSE(m.crashed());
  EXPECT_EQ(m.persist_points(), 0u);
  EXPECT_EQ(m.LiveImage(), expected);
  EXPECT_EQ(m.DurableImage(), expected);
}

TEST(SimMediaTest, TheDigestChangesWithEitherImage) {
  SimMedia m(kSize, kSize);
  const auto empty = m.ImagesDigest();
  EXPECT_EQ(m.ImagesDigest(), empty);
  Words(m, 512)[0] = 1;  // live only
  const auto live = m.ImagesDigest();
  EXPECT_NE(live, empty);
  m.Persist(Words(m, 512), 8);  // now durable too
  EXPECT_NE(m.ImagesDigest(), live);
  Words(m, 512)[0] = 0;  // live back to zero, durable not
  EXPECT_NE(m.ImagesDigest(), empty);
}

TEST(SimMediaTest, ADeviceOnTheMappingOfARemovedOneStartsZeroed) {
  constexpr uint64_t kMax = 8 << 20;
  const std::string name = "sim_media_test_reused";
  for (int round = 0; round < 3; ++round) {
    std::shared_ptr<SimMedia> device;
    ASSERT_TRUE(SimMedia::Open(name, true, kSize, kMax, &device).ok());
    EXPECT_EQ(device->LiveImage(), std::vector<uint64_t>(kSize / 8, 0))
        << "round " << round;
    EXPECT_EQ(device->DurableImage(), std::vector<uint64_t>(kSize / 8, 0));
    ASSERT_TRUE(device->Grow(2 * kSize).ok());
    for (uint64_t i = 0; i < 2 * kSize / 8; i += 7) Words(*device, 0)[i] = i;
    device->Persist(Words(*device, 0), 2 * kSize);
    device->ReleaseLock();
    device.reset();
    SimMedia::Remove(name);
  }
}

TEST(SimMediaTest, StreamedWordsAreDurableAfterDrain) {
  SimMedia m(kSize, kSize);
  const uint64_t src[3] = {5, 6, 7};
  m.StreamWords(Words(m, 256), src, 3);
  EXPECT_EQ(m.DurableImage()[32], 0u);
  m.Drain();
  const std::vector<uint64_t> durable = m.DurableImage();
  EXPECT_EQ(durable[32], 5u);
  EXPECT_EQ(durable[34], 7u);
  EXPECT_EQ(m.flushed_lines(), 1u);
  EXPECT_EQ(m.persist_calls(), 1u);
}

TEST(SimMediaTest, RestoreMakesAnImageTheContentAgain) {
  SimMedia m(kSize, kSize);
  Words(m, 0)[0] = 42;
  m.CrashNow();
  std::vector<uint64_t> image = m.DurableImage();
  image[1] = 77;
  m.Restore(image);
  EXPECT_FALSE(m.crashed());
  EXPECT_EQ(Words(m, 0)[0], 0u);
  EXPECT_EQ(Words(m, 0)[1], 77u);
  EXPECT_EQ(m.DurableImage()[1], 77u);
  EXPECT_EQ(m.persist_points(), 0u);
}

TEST(SimMediaTest, GrowsUpToItsMaximum) {
  SimMedia m(kSize, 4 * kSize);
  EXPECT_TRUE(m.Grow(2 * kSize).ok());
  EXPECT_EQ(m.size(), 2 * kSize);
  EXPECT_TRUE(m.Grow(8 * kSize).IsNoSpace());
}

TEST(SimMediaTest, RegistryGivesOneOpenerAtATime) {
  const std::string name = "sim_media_test_registry";
  std::shared_ptr<SimMedia> a;
  std::shared_ptr<SimMedia> b;
  ASSERT_TRUE(SimMedia::Open(name, true, kSize, kSize, &a).ok());
  EXPECT_TRUE(SimMedia::Open(name, false, kSize, kSize, &b).IsBusy());
  EXPECT_TRUE(SimMedia::Open(name, true, kSize, kSize, &b).IsInvalidArgument());
  a->ReleaseLock();
  ASSERT_TRUE(SimMedia::Open(name, false, kSize, kSize, &b).ok());
  EXPECT_EQ(a, b);
  b->ReleaseLock();
  SimMedia::Remove(name);
  EXPECT_TRUE(
      SimMedia::Open(name, false, kSize, kSize, &b).IsInvalidArgument());
}

}  // namespace
}  // namespace plush::media
