// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A Seek on an existing iterator allocates nothing once its buffers have
// grown to the ranges it reads (a scan-heavy benchmark seeks millions of
// times: the PiBench wrapper keeps one iterator per thread for that). The
// test counts every operator new of the process, so it has its own binary.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "plush/db.h"
#include "testutil.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

}  // namespace

void* operator new(size_t n) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace plush {
namespace {

std::string OrderedKey(uint64_t i) { return test::Word(__builtin_bswap64(i)); }

TEST(IteratorAllocationTest, ASeekOnAnExistingIteratorAllocatesNothing) {
  test::ScratchPool file("iterator_allocation");
  Options o = Options::SmallProfile();
  o.partitioning = Partitioning::kRange;
  o.dram_directory_bits = 6;
  o.background_threads = 0;  // no other thread allocates while counting
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  constexpr uint64_t kKeys = 20000;
  for (uint64_t i = 0; i < kKeys; ++i) {
    ASSERT_OK(db->Put({}, OrderedKey(i * 7),
                      i % 4 == 0 ? std::string(40, 'v') : test::Word(i)));
  }
  std::unique_ptr<Iterator> it = db->NewIterator({});
  auto seek_and_read = [&](uint64_t round) {
    it->Seek(OrderedKey((round * 7919) % (kKeys * 7)));
    for (int j = 0; j < 100 && it->Valid(); ++j) it->Next();
  };
  // Warm-up: every range once, so that the buffers reach their size.
  for (uint64_t round = 0; round < 2000; ++round) seek_and_read(round);
  counting.store(true);
  for (uint64_t round = 0; round < 2000; ++round) seek_and_read(round);
  counting.store(false);
  ASSERT_OK(it->status());
  EXPECT_EQ(allocations.load(), 0);
  // The control: the counter counts (a new iterator allocates).
  counting.store(true);
  std::unique_ptr<Iterator> fresh = db->NewIterator({});
  fresh->Seek(OrderedKey(5));
  counting.store(false);
  EXPECT_GT(allocations.load(), 0);
}

}  // namespace
}  // namespace plush
