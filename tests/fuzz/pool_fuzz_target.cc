// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "fuzz/pool_fuzz_target.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "damaged_pool.h"
#include "sim_pool.h"
#include "pool_image.h"
#include "testing/sim_media.h"

namespace plush::test {
namespace {

constexpr char kBaseDevice[] = "pool_fuzz_base";
constexpr char kDevice[] = "pool_fuzz";

Options FuzzOptions() {
  Options o = Options::SmallProfile();
  o.max_pool_size = 16 << 20;  // growth stays cheap; the sim maps this twice
  // One input, one run: a background thread's timing would make a failing
  // input fail only sometimes.
  o.background_threads = 0;
  return o;
}

// Word values that sit on the edges of the format's checks.
constexpr uint64_t kInteresting[] = {
    0,
    1,
    2,
    3,
    4,
    7,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0xFFFF,
    0x10000,
    0x10001,
    0x10020,
    0x10021,
    4096,
    8192,
    32768,
    1ull << 20,
    4ull << 20,
    1ull << 32,
    1ull << 47,
    (1ull << 48) - 1,
    1ull << 48,
    1ull << 62,
    1ull << 63,
    ~0ull - 255,
    ~0ull,
};

// The undamaged pool and where its regions lie.
struct Base {
  PoolImage image;
  std::vector<std::pair<uint64_t, uint64_t>> directories;  // [begin, end)
  // (block tables and directory blocks)
  uint64_t chunks = 0;
};

const Base& GetBase() {
  static const Base* base = [] {
    auto* b = new Base;
    media::SimMedia::Remove(kBaseDevice);
    std::unique_ptr<DB> db;
    if (!OpenSim(FuzzOptions(), kBaseDevice, &db).ok() ||
        !PopulatePool(db.get()).ok()) {
      std::abort();  // the fuzzer cannot start without its base pool
    }
    db.reset();
    PoolImage full = PoolImage::FromWords(
        media::SimMedia::Find(kBaseDevice)->DurableImage());
    media::SimMedia::Remove(kBaseDevice);
    // Space past the allocation mark is unused: leave it out.
    b->image = PoolImage(full.bytes().substr(0, full.alloc_high_water()));
    // Every level's block table and directory blocks.
    const uint64_t units = uint64_t{1}
                           << b->image.superblock().dram_directory_bits;
    for (unsigned l = 1; l <= b->image.level_count(); ++l) {
      const pool::LevelDescriptor& d = b->image.root().levels[l - 1];
      b->directories.emplace_back(d.block_table_offset,
                                  d.block_table_offset + units * 8);
      for (uint64_t u = 0; u < units; ++u) {
        const uint64_t block = b->image.Word(d.block_table_offset + u * 8);
        if (block != 0 && !pool::IsEpochFloor(block))
          b->directories.emplace_back(block, block + d.block_bytes);
      }
    }
    b->chunks = b->image.log_chunks();
    return b;
  }();
  return *base;
}

// Absolute offset of `offset` in `region` (see the header).
uint64_t Locate(const Base& base, uint8_t region, uint32_t offset) {
  const PoolImage& img = base.image;
  switch (region % 7) {
    case 0:
      return offset % sizeof(pool::Superblock);
    case 1:
      return pool::kRootOffset + offset % sizeof(pool::RootPage);
    case 2:
      return *img.ChunkOffset(offset / 8 % base.chunks) + offset % 8;
    case 3:
      return pool::kLogRegionOffset +
             offset % (img.heap_offset() - pool::kLogRegionOffset);
    case 4: {
      const auto& [begin, end] =
          base.directories[(offset >> 24) % base.directories.size()];
      return begin + (offset & 0xFFFFFF) % (end - begin);
    }
    case 5:
      return img.heap_offset() + offset % (img.size() - img.heap_offset());
    default:
      return offset % img.size();
  }
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void ApplyEdit(const Base& base, const uint8_t* e, PoolImage* img) {
  const uint8_t kind = e[0];
  const uint8_t region = e[1];
  const uint64_t at = Locate(base, region, Load<uint32_t>(e + 2));
  const uint16_t arg = Load<uint16_t>(e + 6);
  if (at >= img->size()) return;  // truncated by an earlier edit
  std::string& bytes = img->bytes();
  const uint64_t word = at & ~uint64_t{7};
  const uint64_t line = at & ~uint64_t{63};
  switch (kind % 7) {
    case 0:
      img->FlipBit(at, arg % 8);
      break;
    case 1:
      bytes[at] = static_cast<char>(arg & 0xFF);
      break;
    case 2:
      img->SetWord(word, kInteresting[arg % std::size(kInteresting)]);
      break;
    case 3:
      img->SetWord(word, img->Word(word) +
                             static_cast<uint64_t>(static_cast<int16_t>(arg)));
      break;
    case 4:
      std::memset(bytes.data() + line, 0,
                  std::min<uint64_t>(64, bytes.size() - line));
      break;
    case 5: {
      const uint64_t from =
          Locate(base, region, Load<uint32_t>(e + 2) + arg * 64u) &
          ~uint64_t{63};
      if (from + 64 <= bytes.size() && line + 64 <= bytes.size()) {
        std::memmove(bytes.data() + line, bytes.data() + from, 64);
      }
      break;
    }
    default:
      bytes.resize(at & ~uint64_t{7});
      break;
  }
}

}  // namespace

std::string RunPoolFuzzInput(const uint8_t* data, size_t size) {
  const Base& base = GetBase();
  PoolImage image = base.image;
  size_t pos = 0;
  while (pos + 8 <= size && data[pos] != 0xFF) {
    ApplyEdit(base, data + pos, &image);
    pos += 8;
  }
  std::vector<PoolOp> ops;
  if (pos < size && data[pos] == 0xFF) {
    for (++pos; pos + 2 <= size && ops.size() < 64; pos += 2) {
      const auto kind = static_cast<PoolOp::Kind>(data[pos] % 5);
      ops.push_back({kind, uint64_t{data[pos + 1]} * 3, 0xF0220000 + pos});
    }
  } else {
    ops = DefaultDamageOps(kDamageKeys);
  }

  // A fresh device of exactly the image's size: a truncation edit is a
  // shorter device, and nothing of an earlier run survives into this one.
  media::SimMedia::Remove(kDevice);
  std::shared_ptr<media::SimMedia> device;
  std::vector<uint64_t> words = image.ToWords();
  if (words.empty()) words.push_back(0);  // a device has at least one word
  if (!media::SimMedia::Open(kDevice, true, words.size() * 8,
                             FuzzOptions().max_pool_size, &device)
           .ok()) {
    return "cannot create the simulated device";
  }
  device->ReleaseLock();
  device->Restore(words);
  device.reset();
  const DamageReport r = ExerciseDamagedPool(FuzzOptions(), Simulated(), kDevice, ops);
  media::SimMedia::Remove(kDevice);
  return r.violation;
}

}  // namespace plush::test
