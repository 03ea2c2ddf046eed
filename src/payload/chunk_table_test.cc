// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The payload chunk table on its own (payload/chunk_table.h, docs/format.md
// §7.1), on a simulated pool: ids in order, growth by doubling with the
// switch of the root word last, reloading, and every way a damaged table
// is refused.

#include "payload/chunk_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::payload {
namespace {

class ChunkTableTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenPool(Options::SmallProfile()); }
  void TearDown() override {
    pool_.reset();
    media::SimMedia::Remove(path_);
  }
  void OpenPool(const Options& options) {
    bool created = false;
    ASSERT_OK(
        pool::Pool::Open(options, test::SimDevices(), path_, &pool_, &created));
    chunk_size_ = pool_->params().payload_chunk_size;
    table_ = std::make_unique<ChunkTable>(pool_.get(), chunk_size_);
    ASSERT_OK(table_->Load());
  }

  // A real chunk: chunk_size_ bytes of heap, 4 KiB aligned.
  uint64_t NewChunk() {
    uint64_t offset = 0;
    EXPECT_OK(pool_->allocator().Allocate(chunk_size_, 4096, &offset));
    return offset;
  }
  uint32_t Add(uint64_t offset) {
    uint32_t id = ~0u;
    EXPECT_OK(table_->Add(offset, &id));
    return id;
  }
  uint64_t& RootWord() { return pool_->root()->payload_chunk_table; }
  uint64_t* Entries() {
    return pool_->media().At<uint64_t>(RootWord() & ~uint64_t{4095});
  }
  // Load() of a fresh ChunkTable over the pool as it is now.
  Status Reload(std::unique_ptr<ChunkTable>* table = nullptr) {
    auto fresh = std::make_unique<ChunkTable>(pool_.get(), chunk_size_);
    Status s = fresh->Load();
    if (table != nullptr) *table = std::move(fresh);
    return s;
  }
  void ExpectCorruption(const std::string& message) {
    const Status s = Reload();
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(s.message(), message);
  }

  const std::string path_ = "sim:chunk_table_test";
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<ChunkTable> table_;
  uint64_t chunk_size_ = 0;
};

TEST_F(ChunkTableTest, NewPoolHasNoTableAndNoChunks) {
  EXPECT_EQ(RootWord(), 0u);
  EXPECT_EQ(table_->count(), 0u);
  EXPECT_EQ(table_->OffsetOf(0), 0u);
}

TEST_F(ChunkTableTest, IdsAreHandedOutInOrder) {
  std::vector<uint64_t> chunks;
  for (int i = 0; i < 5; ++i) {
    chunks.push_back(NewChunk());
    EXPECT_EQ(Add(chunks.back()), static_cast<uint32_t>(i));
  }
  EXPECT_EQ(table_->count(), 5u);
  for (uint32_t id = 0; id < 5; ++id)
    EXPECT_EQ(table_->OffsetOf(id), chunks[id]);
  EXPECT_EQ(table_->OffsetOf(5), 0u) << "no such chunk";
  EXPECT_EQ(table_->OffsetOf(~uint64_t{0}), 0u);
}

TEST_F(ChunkTableTest, FirstChunkCreatesATableOf512EntriesInTheHeap) {
  const uint64_t chunk = NewChunk();
  Add(chunk);
  const uint64_t word = RootWord();
  EXPECT_EQ(word & 4095, 9u) << "log2 of 512 entries";
  const uint64_t table = word & ~uint64_t{4095};
  EXPECT_GE(table, pool_->heap_offset());
  EXPECT_LE(table + 512 * 8, pool_->allocated_end());
  EXPECT_TRUE(table + 512 * 8 <= chunk || table >= chunk + chunk_size_)
      << "the table and the chunk share space";
  EXPECT_EQ(Entries()[0], chunk);
  EXPECT_EQ(Entries()[1], 0u) << "the first zero ends the table";
}

// Add() records offsets without reading the chunks: the growth tests use
// made-up offsets, which keeps the pool small.
TEST_F(ChunkTableTest, FullTableDoublesAndKeepsEveryEntry) {
  auto fake = [](uint64_t i) { return (i + 1) << 20; };
  for (uint64_t i = 0; i < 512; ++i) Add(fake(i));
  const uint64_t first = RootWord();
  EXPECT_EQ(first & 4095, 9u);
  EXPECT_EQ(Add(fake(512)), 512u);
  const uint64_t second = RootWord();
  EXPECT_EQ(second & 4095, 10u) << "1024 entries";
  EXPECT_NE(second & ~uint64_t{4095}, first & ~uint64_t{4095});
  for (uint64_t i = 0; i < 513; ++i) ASSERT_EQ(table_->OffsetOf(i), fake(i));
  // The old table is left as it was (a crash before the switch reads it).
  const uint64_t* old = pool_->media().At<uint64_t>(first & ~uint64_t{4095});
  for (uint64_t i = 0; i < 512; ++i) ASSERT_EQ(old[i], fake(i));
  for (uint64_t i = 513; i < 1025; ++i) Add(fake(i));
  EXPECT_EQ(RootWord() & 4095, 11u);
  EXPECT_EQ(table_->count(), 1025u);
  EXPECT_EQ(table_->OffsetOf(1024), fake(1024));
}

// The root word may name the new table only once the table is durable (at
// an earlier persist point: a crash at the one that persists the root word
// may tear anything it persists), and an added chunk is durable before
// Add() returns.
TEST_F(ChunkTableTest, RootWordSwitchesOnlyToADurableTable) {
  auto fake = [](uint64_t i) { return (i + 1) << 20; };
  for (uint64_t i = 0; i < 512; ++i) Add(fake(i));
  const uint64_t old_word = RootWord();
  // The bump allocator puts the new table here.
  const uint64_t new_table =
      (pool_->allocator().used_bytes() + 4095) & ~4095ull;
  auto device = media::SimMedia::Find(path_);
  ASSERT_NE(device, nullptr);
  int point = 0;
  int table_durable_at = 0;
  int switched_at = 0;
  uint64_t switched_to = 0;
  device->SetPersistObserver([&] {
    ++point;
    const std::vector<uint64_t> durable = device->DurableImage();
    if (table_durable_at == 0) {
      bool all = true;
      for (uint64_t i = 0; i < 512 && all; ++i)
        all = durable[new_table / 8 + i] == fake(i);
      if (all) table_durable_at = point;
    }
    const uint64_t word =
        durable[(pool::kRootOffset +
                 offsetof(pool::RootPage, payload_chunk_table)) /
                8];
    if (word != old_word && switched_at == 0) {
      switched_at = point;
      switched_to = word;
    }
  });
  Add(fake(512));
  device->SetPersistObserver(nullptr);
  ASSERT_NE(switched_at, 0) << "the new root word was never made durable";
  EXPECT_EQ(switched_to, new_table | 10);
  ASSERT_NE(table_durable_at, 0) << "the new table was never made durable";
  EXPECT_LT(table_durable_at, switched_at)
      << "the root word became durable no later than the table it names";
  const std::vector<uint64_t> durable = device->DurableImage();
  EXPECT_EQ(durable[new_table / 8 + 512], fake(512));
}

TEST_F(ChunkTableTest, ReloadFindsEveryChunkAfterGrowth) {
  std::vector<uint64_t> chunks;
  for (int i = 0; i < 600; ++i) {  // past the first table's 512
    chunks.push_back(NewChunk());
    Add(chunks.back());
  }
  std::unique_ptr<ChunkTable> reloaded;
  ASSERT_OK(Reload(&reloaded));
  ASSERT_EQ(reloaded->count(), 600u);
  for (uint32_t id = 0; id < 600; ++id)
    ASSERT_EQ(reloaded->OffsetOf(id), chunks[id]);
  // It goes on where the table ended.
  uint32_t id = 0;
  ASSERT_OK(reloaded->Add(NewChunk(), &id));
  EXPECT_EQ(id, 600u);
}

TEST_F(ChunkTableTest, FirstZeroEndsTheTable) {
  for (int i = 0; i < 3; ++i) Add(NewChunk());
  Entries()[1] = 0;
  std::unique_ptr<ChunkTable> reloaded;
  ASSERT_OK(Reload(&reloaded));
  EXPECT_EQ(reloaded->count(), 1u);
  EXPECT_EQ(reloaded->OffsetOf(2), 0u);
}

TEST_F(ChunkTableTest, GrowingWithoutSpaceIsNoSpaceAndChangesNothing) {
  TearDown();
  Options o = Options::SmallProfile();
  o.max_pool_size = 4 << 20;
  OpenPool(o);
  Add(NewChunk());  // allocates the first table
  uint64_t offset = 0;
  for (const uint64_t size : {64 << 10, 4096}) {
    while (pool_->allocator().Allocate(size, 4096, &offset).ok()) {
    }
  }
  for (uint64_t i = 1; i < 512; ++i) Add(uint64_t{i} << 20);
  const uint64_t word = RootWord();
  uint32_t id = 7;
  const Status s = table_->Add(uint64_t{512} << 20, &id);
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(s.message().substr(0, 13), "pool is full:") << s.ToString();
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(table_->count(), 512u);
  EXPECT_EQ(RootWord(), word);
}

// ---- Damaged tables: Load() refuses them with Corruption ------------------

TEST_F(ChunkTableTest, RootWordWithStrayBitsIsCorruption) {
  Add(NewChunk());
  RootWord() |= 0x40;  // between the capacity bits and the page offset
  ExpectCorruption("payload chunk table word " + std::to_string(RootWord()) +
                   " does not describe a table inside the heap");
}

TEST_F(ChunkTableTest, CapacityOutsideTheFormatsRangeIsCorruption) {
  Add(NewChunk());
  const uint64_t table = RootWord() & ~uint64_t{4095};
  for (const uint64_t log2 : {0, 8, 25, 63}) {
    RootWord() = table | log2;
    ExpectCorruption("payload chunk table word " + std::to_string(RootWord()) +
                     " does not describe a table inside the heap");
  }
}

TEST_F(ChunkTableTest, TableOutsideTheAllocatedHeapIsCorruption) {
  Add(NewChunk());
  const uint64_t mark = pool_->allocated_end();
  const std::pair<uint64_t, uint64_t> outside[] = {
      {pool::kRootOffset, 9},       // the root page
      {pool::kLogRegionOffset, 9},  // the recovery logs
      {mark + 4096, 9},             // beyond the mark
      {mark - 4096, 10},            // starts inside, runs past the mark
  };
  for (const auto& [table, log2] : outside) {
    RootWord() = table | log2;
    ExpectCorruption("payload chunk table word " + std::to_string(RootWord()) +
                     " does not describe a table inside the heap");
  }
}

TEST_F(ChunkTableTest, MisalignedChunkIsCorruption) {
  Add(NewChunk());
  const uint64_t chunk = NewChunk();
  Add(chunk);
  Entries()[1] = chunk + 8;
  ExpectCorruption("payload chunk table @" +
                   std::to_string(RootWord() & ~uint64_t{4095}) +
                   ": chunk at " + std::to_string(chunk + 8) +
                   " is misaligned or outside the allocated heap");
}

TEST_F(ChunkTableTest, ChunkOutsideTheAllocatedHeapIsCorruption) {
  Add(NewChunk());
  const uint64_t mark = pool_->allocated_end();
  const uint64_t outside[] = {
      pool::kLogRegionOffset,                        // below the heap
      (mark + 4095) & ~4095ull,                      // at or past the mark
      ((mark - chunk_size_) & ~4095ull) + 4096 * 2,  // ends past the mark
  };
  for (const uint64_t chunk : outside) {
    Entries()[0] = chunk;
    ExpectCorruption("payload chunk table @" +
                     std::to_string(RootWord() & ~uint64_t{4095}) +
                     ": chunk at " + std::to_string(chunk) +
                     " is misaligned or outside the allocated heap");
  }
}

TEST_F(ChunkTableTest, OverlappingChunksAreCorruption) {
  const uint64_t a = NewChunk();
  NewChunk();  // room for a chunk that starts inside `a`
  Add(a);
  Add(a + 4096);
  ExpectCorruption(
      "payload chunk table @" + std::to_string(RootWord() & ~uint64_t{4095}) +
      ": chunk at " + std::to_string(a + 4096) + " overlaps another chunk");
  Entries()[1] = a;  // the same chunk twice
  ExpectCorruption(
      "payload chunk table @" + std::to_string(RootWord() & ~uint64_t{4095}) +
      ": chunk at " + std::to_string(a) + " overlaps another chunk");
}

}  // namespace
}  // namespace plush::payload
