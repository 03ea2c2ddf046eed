// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// InternalMediaFactory (testing/internal_media_factory.h): the media that
// InternalOptions ask for — the crash simulator, the file back end with
// PMem costs emulated, the write-amplification model — and what it leaves
// as libplush's factory opens it.

#include "testing/internal_media_factory.h"

#include <gtest/gtest.h>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::media {
namespace {

using test::ScratchPool;

FileMediaOptions Create() {
  FileMediaOptions o;
  o.backend = Backend::kFile;
  o.create = true;
  o.create_size = Media::kGrowAlignment;
  o.max_size = 4 * Media::kGrowAlignment;
  return o;
}

std::shared_ptr<Media> Open(MediaFactory& factory, const std::string& path) {
  std::shared_ptr<Media> media;
  EXPECT_OK(factory.Open(path, Create(), &media));
  return media;
}

TEST(InternalMediaFactoryTest, SimulatedOpensADeviceOfTheRegistry) {
  const std::string name = "internal_media_factory_sim";
  InternalOptions internal;
  internal.simulated = true;
  InternalMediaFactory factory(internal);
  EXPECT_FALSE(factory.Exists(name));
  std::shared_ptr<Media> media = Open(factory, name);
  ASSERT_NE(media, nullptr);
  EXPECT_EQ(media->kind(), MediaKind::kSim);
  EXPECT_TRUE(factory.Exists(name));
  EXPECT_EQ(SimMedia::Find(name), media);
  media.reset();
  SimMedia::Remove(name);
}

TEST(InternalMediaFactoryTest, WithoutOptionsItIsLibplushsFactory) {
  ScratchPool file("internal_factory_plain");
  InternalMediaFactory factory{InternalOptions()};
  std::shared_ptr<Media> media = Open(factory, file.path());
  ASSERT_NE(media, nullptr);
  EXPECT_EQ(media->kind(), MediaKind::kFile);
  ScratchPool other("internal_factory_default");
  std::shared_ptr<Media> plain = Open(*DefaultMediaFactory(), other.path());
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(media->persist_ops().flush, plain->persist_ops().flush);
  EXPECT_EQ(media->persist_ops().drain, plain->persist_ops().drain);
  EXPECT_EQ(media->persist_ops().stream, plain->persist_ops().stream);
  EXPECT_EQ(factory.ModeledMediaBytes(), 0u);
  media.reset();
  factory.RemoveFailedCreation(file.path());
  EXPECT_FALSE(factory.Exists(file.path()));
}

// The file back end's own primitives do nothing to flush; emulation puts
// PMem's flushes, fences and non-temporal stores in their place.
TEST(InternalMediaFactoryTest, EmulatedPmemCostsReplaceTheFilePrimitives) {
  ScratchPool plain_file("internal_factory_plain_ops");
  ScratchPool file("internal_factory_emulated");
  std::shared_ptr<Media> plain =
      Open(*DefaultMediaFactory(), plain_file.path());
  InternalOptions internal;
  internal.emulate_pmem_costs = true;
  InternalMediaFactory factory(internal);
  std::shared_ptr<Media> media = Open(factory, file.path());
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(media, nullptr);
  EXPECT_EQ(media->kind(), MediaKind::kFile) << "a speed, not a guarantee";
  EXPECT_NE(media->persist_ops().flush, plain->persist_ops().flush);
  EXPECT_NE(media->persist_ops().drain, plain->persist_ops().drain);
  EXPECT_NE(media->persist_ops().stream, plain->persist_ops().stream);
  const uint64_t words[3] = {1, 2, 3};
  media->StreamWords(media->At<uint64_t>(64), words, 3);
  media->Persist(media->At<char>(0), 64);
  EXPECT_EQ(media->At<uint64_t>(64)[2], 3u);
}

// The sim back end keeps its model of a persistence domain under emulation.
TEST(InternalMediaFactoryTest, EmulationLeavesTheSimulatorAlone) {
  const std::string name = "internal_media_factory_sim_emulated";
  InternalOptions internal;
  internal.simulated = true;
  internal.emulate_pmem_costs = true;
  InternalMediaFactory factory(internal);
  std::shared_ptr<Media> media = Open(factory, name);
  ASSERT_NE(media, nullptr);
  auto* device = static_cast<SimMedia*>(media.get());
  device->Persist(device->At<char>(0), 8);
  EXPECT_EQ(device->persist_points(), 1u) << "the simulator's own drain";
  media.reset();
  SimMedia::Remove(name);
}

TEST(InternalMediaFactoryTest, WriteAmpModelCountsWhatTheMediaFlushes) {
  ScratchPool file("internal_factory_write_amp");
  InternalOptions internal;
  internal.model_media_write_amp = true;
  InternalMediaFactory factory(internal);
  std::shared_ptr<Media> media = Open(factory, file.path());
  ASSERT_NE(media, nullptr);
  EXPECT_EQ(factory.ModeledMediaBytes(), 0u);
  media->Persist(media->At<char>(0), 256);     // one XPLine
  media->Persist(media->At<char>(8192), 64);   // another
  EXPECT_EQ(factory.ModeledMediaBytes(), 512u);
}

}  // namespace
}  // namespace plush::media
