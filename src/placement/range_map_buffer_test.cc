// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RangeMapBuffer on its own: random inserts, erases and unit changes
// against a model (sorted separators, a unit per position), answers
// checked by brute force, blocks split, emptied and rebuilt.

#include "placement/range_map_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace plush {
namespace {

using Prefix = RangeMapBuffer::Prefix;

struct Model {
  std::vector<const std::string*> separators;
  std::vector<uint32_t> units{7};  // one position

  uint32_t UnitOf(const std::string& key) const {
    size_t at_or_below = 0;
    while (at_or_below < separators.size() && *separators[at_or_below] <= key)
      ++at_or_below;
    return units[at_or_below];
  }
};

std::string Key(std::mt19937_64& rng) {
  // Shared prefixes longer than 16 bytes too: whole keys compared.
  static const char* const kPrefixes[] = {"", "k", "user:", "0123456789abcdef-"};
  char tail[16];
  std::snprintf(tail, sizeof(tail), "%04u", static_cast<unsigned>(rng() % 3000));
  return std::string(kPrefixes[rng() % 4]) + tail;
}

// The separators around `key` (the last at or below it, the first above
// it), as prefixes.
RangeMapBuffer::Bounds ModelBounds(const Model& model, const std::string& key) {
  RangeMapBuffer::Bounds bounds;
  for (const std::string* s : model.separators) {
    if (*s <= key) {
      bounds.lower = Prefix::Of(*s);
    } else {
      bounds.upper = Prefix::Of(*s);
      break;
    }
  }
  return bounds;
}

bool SamePrefix(const std::optional<Prefix>& a, const std::optional<Prefix>& b) {
  return a.has_value() == b.has_value() &&
         (!a || (a->high == b->high && a->low == b->low));
}

void ExpectSameAnswers(const RangeMapBuffer& buffer, const Model& model,
                       std::mt19937_64& rng, const std::string& when) {
  for (int i = 0; i < 300; ++i) {
    const std::string key = Key(rng);
    RangeMapBuffer::Bounds bounds;
    ASSERT_EQ(buffer.UnitOf(key, Prefix::Of(key), &bounds), model.UnitOf(key))
        << when << ", key " << key;
    const RangeMapBuffer::Bounds expected = ModelBounds(model, key);
    ASSERT_TRUE(SamePrefix(bounds.lower, expected.lower))
        << when << ", the separator at or below " << key;
    ASSERT_TRUE(SamePrefix(bounds.upper, expected.upper))
        << when << ", the separator above " << key;
  }
  for (const std::string* s : model.separators) {
    ASSERT_EQ(buffer.UnitOf(*s, Prefix::Of(*s)), model.UnitOf(*s))
        << when << ", a separator";
  }
}

TEST(RangeMapBufferTest, ChangesMatchAModel) {
  std::mt19937_64 rng(3);
  std::set<std::string> arena;
  for (const size_t positions : {4u, 64u, 1024u}) {
    RangeMapBuffer buffer(positions);
    Model model;
    buffer.Rebuild(model.separators, model.units);
    uint64_t rebuilds = 0;
    for (int step = 0; step < 6000; ++step) {
      const size_t n = model.separators.size();
      const uint64_t op = rng() % 10;
      if (op < 6 && n + 1 < positions) {
        // Insert where the key belongs (anywhere: at the ends too).
        const std::string* s = &*arena.insert(Key(rng)).first;
        const size_t index = static_cast<size_t>(
            std::upper_bound(model.separators.begin(), model.separators.end(),
                             s, [](const std::string* a, const std::string* b) {
                               return *a < *b;
                             }) -
            model.separators.begin());
        const uint32_t unit = static_cast<uint32_t>(rng() % 100000);
        model.separators.insert(model.separators.begin() + index, s);
        model.units.insert(model.units.begin() + index + 1, unit);
        if (!buffer.Insert(index, s, Prefix::Of(*s), unit)) {
          ++rebuilds;
          buffer.Rebuild(model.separators, model.units);
        }
      } else if (op < 9 && n > 0) {
        // A merge: the separator goes, the position before it takes the
        // merged range's unit.
        const size_t index = rng() % n;
        const uint32_t unit = model.units[index + rng() % 2];
        model.separators.erase(model.separators.begin() + index);
        model.units.erase(model.units.begin() + index + 1);
        model.units[index] = unit;
        buffer.Erase(index);
        buffer.SetUnit(index, unit);
      } else {
        const size_t position = rng() % (n + 1);
        const uint32_t unit = static_cast<uint32_t>(rng() % 100000);
        model.units[position] = unit;
        buffer.SetUnit(position, unit);
      }
      if (step % 97 == 0) {
        ASSERT_NO_FATAL_FAILURE(ExpectSameAnswers(
            buffer, model, rng,
            std::to_string(positions) + " positions, step " +
                std::to_string(step)));
      }
    }
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameAnswers(buffer, model, rng, "at the end"));
    // A rebuild packs the blocks, and answers the same.
    buffer.Rebuild(model.separators, model.units);
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameAnswers(buffer, model, rng, "rebuilt"));
    RecordProperty("rebuilds_" + std::to_string(positions),
                   static_cast<int>(rebuilds));
  }
}

// Separators that go first: the block's fence (searched before its
// slots) follows its first separator.
TEST(RangeMapBufferTest, SeparatorsInsertedFirst) {
  RangeMapBuffer buffer(1024);
  Model model;
  buffer.Rebuild(model.separators, model.units);
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%04d", 1000 - i);
    keys.push_back(key);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(buffer.Insert(0, &keys[i], Prefix::Of(keys[i]),
                              static_cast<uint32_t>(i + 100)));
    model.separators.insert(model.separators.begin(), &keys[i]);
    model.units.insert(model.units.begin() + 1, static_cast<uint32_t>(i + 100));
    for (const std::string& key : keys) {
      ASSERT_EQ(buffer.UnitOf(key, Prefix::Of(key)), model.UnitOf(key))
          << key << " after " << i + 1 << " separators";
    }
  }
}

// Splits of growing keys: each new separator at the end, tens of
// thousands of them; a block split each kBlock / 2, never a rebuild.
TEST(RangeMapBufferTest, SeparatorsAppendedAtTheEnd) {
  constexpr size_t kPositions = 1 << 14;
  RangeMapBuffer buffer(kPositions);
  Model model;
  buffer.Rebuild(model.separators, model.units);
  std::vector<std::string> keys(kPositions - 1);
  for (size_t i = 0; i + 1 < kPositions; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "t%08zu", i);
    keys[i] = key;
    model.separators.push_back(&keys[i]);
    model.units.push_back(static_cast<uint32_t>(i + 1));
    ASSERT_TRUE(buffer.Insert(i, &keys[i], Prefix::Of(keys[i]),
                              static_cast<uint32_t>(i + 1)))
        << "separator " << i;
  }
  for (size_t i = 0; i < keys.size(); i += 7) {
    ASSERT_EQ(buffer.UnitOf(keys[i], Prefix::Of(keys[i])), i + 1);
    const std::string below = keys[i].substr(0, 8);  // "t0000000" < "t00000001"
    ASSERT_EQ(buffer.UnitOf(below, Prefix::Of(below)), model.UnitOf(below));
  }
  EXPECT_EQ(buffer.UnitOf("a", Prefix::Of("a")), 7u);
  EXPECT_EQ(buffer.UnitOf("u", Prefix::Of("u")), kPositions - 1);
}

}  // namespace
}  // namespace plush
