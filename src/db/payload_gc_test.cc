// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// PayloadGc on its own (db/payload_gc.h), on the engine's layers opened by
// hand (tests/engine_layers.h): what payload compaction is told about an
// entry (reachable while it is its key's current version, on any level;
// unreachable once overwritten; blocked while only unlogged versions
// shadow it), and relocation, which republishes a copy as the key's
// current version only when the entry still is that, under the key's lock.

#include "db/payload_gc.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "engine_layers.h"
#include "testutil.h"

namespace plush {
namespace {

using Candidate = payload::PayloadHost::Candidate;
using Reachability = payload::PayloadHost::Reachability;
using Relocation = payload::PayloadHost::Relocation;

const char* Name(Reachability r) {
  switch (r) {
    case Reachability::kReachable:
      return "reachable";
    case Reachability::kUnreachable:
      return "unreachable";
    case Reachability::kBlocked:
      return "blocked";
  }
  return "?";
}

class PayloadGcTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(layers_.Open(options())); }
  virtual Options options() const { return Options::SmallProfile(); }

  PayloadGc& gc() { return layers_.payload_gc(); }

  std::string Classify(const std::string& key, uint64_t ref) {
    const Candidate c{key, layers_.HashOf(key), ref};
    Reachability r = Reachability::kBlocked;
    gc().ClassifyReachability({&c, 1}, &r);
    return Name(r);
  }
  uint64_t Put(const std::string& key, const std::string& value,
               bool log = true) {
    uint64_t ref = 0;
    EXPECT_OK(layers_.Put(key, value, log, &ref)) << key;
    EXPECT_NE(ref, 0u) << key << " is not in the payload logs";
    return ref;
  }
  std::string Get(const std::string& key) {
    std::string value;
    const Status s = layers_.Get(key, &value);
    return s.ok() ? value : s.ToString();
  }
  // The reference the key's newest version holds (0: none).
  uint64_t CurrentRef(const std::string& key) {
    table::Slot slot;
    const table::Found f = layers_.table().Lookup(
        table::LookupKey::For(key, layers_.HashOf(key)), &slot);
    return f == table::Found::kAbsent ? 0 : slot.value;
  }

  // Relocate() with a copy that appends the entry's record again, as
  // compaction's does; *copies counts its calls.
  Status Relocate(const std::string& key, uint64_t key_hash, uint64_t ref,
                  Relocation* result, uint64_t* moved, int* copies,
                  Status copy_status = Status::OK()) {
    *moved = 0;
    return gc().Relocate(
        {key, key_hash, ref},
        [&](uint64_t* to) -> Status {
          ++*copies;
          if (!copy_status.ok()) return copy_status;
          std::string k;
          std::string v;
          if (!layers_.payload().ReadEntry(ref, &k, &v))
            return Status::NotFound();
          // (Under the key's lock: no compaction from this append.)
          const payload::PayloadLogs::DeferCompaction under_lock;
          payload::PayloadLogs::Ticket ticket;
          Status s = layers_.payload().Append(k, key_hash, v, 0, to, &ticket);
          *moved = *to;
          return s;
        },
        result);
  }

  test::EngineLayers layers_{"sim:payload_gc_test"};
};

TEST_F(PayloadGcTest, CurrentVersionIsReachableOverwrittenIsNot) {
  const std::string key = "a key longer than eight";
  const uint64_t v1 = Put(key, "first value");
  EXPECT_EQ(Classify(key, v1), "reachable");
  const uint64_t v2 = Put(key, "second value");
  EXPECT_EQ(Classify(key, v1), "unreachable") << "overwritten";
  EXPECT_EQ(Classify(key, v2), "reachable");
  // The entry of another key, or a key that was never written.
  const uint64_t other = Put("another long key", "x");
  EXPECT_EQ(Classify(key, other), "unreachable");
  EXPECT_EQ(Classify("never written key", v2), "unreachable");

  // The same on PMem.
  ASSERT_OK(layers_.MigrateAll());
  EXPECT_EQ(Classify(key, v1), "unreachable");
  EXPECT_EQ(Classify(key, v2), "reachable");
  EXPECT_EQ(Classify("another long key", other), "reachable");

  // A deletion: its tombstone's entry is the key's current version, in
  // DRAM above the version on PMem it shadows.
  uint64_t tombstone = 0;
  ASSERT_OK(layers_.Delete(key, true, &tombstone));
  EXPECT_EQ(Classify(key, v2), "unreachable");
  EXPECT_EQ(Classify(key, tombstone), "reachable");
}

// A chunk's entries come in one call (looked up in groups of 64): each
// answer is its own entry's, whatever its place in the call.
TEST_F(PayloadGcTest, EveryEntryOfALargeCallGetsItsOwnAnswer) {
  std::vector<std::string> keys;
  std::vector<uint64_t> old_refs, new_refs;
  for (int i = 0; i < 150; ++i) {
    keys.push_back("key number " + std::to_string(i));
    old_refs.push_back(Put(keys.back(), "old " + std::to_string(i)));
  }
  for (int i = 0; i < 150; ++i) {
    if (i % 3 == 0) {
      ASSERT_OK(layers_.Migrate(layers_.UnitOf(keys[i])));
    }
    new_refs.push_back(Put(keys[i], "new " + std::to_string(i)));
  }
  // Old and new entries interleaved, in an order unlike the writes'.
  std::vector<Candidate> candidates;
  std::vector<Reachability> expected;
  for (int i = 149; i >= 0; --i) {
    const bool old_first = i % 2 == 0;
    for (const bool old : {old_first, !old_first}) {
      candidates.push_back({keys[i], layers_.HashOf(keys[i]),
                            old ? old_refs[i] : new_refs[i]});
      expected.push_back(old ? Reachability::kUnreachable
                             : Reachability::kReachable);
    }
  }
  std::vector<Reachability> got(candidates.size(), Reachability::kBlocked);
  gc().ClassifyReachability(candidates, got.data());
  for (size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ(Name(got[i]), std::string(Name(expected[i])))
        << "entry " << i << " of " << candidates.size() << ": "
        << candidates[i].key;
  }
}

// A version shadowed only by unlogged ones is what a crash would leave:
// compaction must keep it until they are durable.
TEST_F(PayloadGcTest, VersionShadowedOnlyByUnloggedOnesIsBlocked) {
  const std::string key = "a key with unlogged versions";
  const uint64_t logged = Put(key, "logged");
  const uint64_t unlogged = Put(key, "unlogged", /*log=*/false);
  EXPECT_EQ(Classify(key, logged), "blocked");
  EXPECT_EQ(Classify(key, unlogged), "reachable");
  const uint64_t unlogged2 = Put(key, "unlogged again", /*log=*/false);
  EXPECT_EQ(Classify(key, logged), "blocked");
  EXPECT_EQ(Classify(key, unlogged), "unreachable")
      << "no crash brings an unlogged version back";
  // A logged version on top: the first is shadowed for good.
  const uint64_t logged2 = Put(key, "logged again");
  EXPECT_EQ(Classify(key, logged), "unreachable");
  EXPECT_EQ(Classify(key, unlogged2), "unreachable");
  EXPECT_EQ(Classify(key, logged2), "reachable");

  // Migrated, unlogged versions are durable: nothing older is blocked.
  const std::string other = "another key with unlogged versions";
  const uint64_t before = Put(other, "logged");
  Put(other, "unlogged", /*log=*/false);
  EXPECT_EQ(Classify(other, before), "blocked");
  ASSERT_OK(layers_.Migrate(layers_.UnitOf(other)));
  EXPECT_EQ(Classify(other, before), "unreachable");
}

TEST_F(PayloadGcTest, RelocateRepublishesTheCurrentVersion) {
  const std::string key = "a key whose entry moves";
  Put(key, "old");
  const uint64_t current = Put(key, "current value");
  ASSERT_OK(layers_.MigrateAll());  // the version being moved is on PMem
  Relocation result = Relocation::kBlocked;
  uint64_t moved = 0;
  int copies = 0;
  ASSERT_OK(Relocate(key, layers_.HashOf(key), current, &result, &moved,
                     &copies));
  EXPECT_EQ(result, Relocation::kMoved);
  EXPECT_EQ(copies, 1);
  ASSERT_NE(moved, 0u);
  EXPECT_NE(moved, current);
  EXPECT_EQ(CurrentRef(key), moved) << "the copy is the key's newest version";
  EXPECT_EQ(Get(key), "current value");
  EXPECT_EQ(Classify(key, moved), "reachable");
  EXPECT_EQ(Classify(key, current), "unreachable");
  // The relocation is a logged write: a crash keeps the copy, so nothing
  // is blocked behind it.
  EXPECT_FALSE(layers_.table().DramHasUnlogged(layers_.UnitOf(key)));

  // A relocated tombstone stays a tombstone.
  const std::string gone = "a deleted key whose entry moves";
  Put(gone, "value");
  uint64_t tombstone = 0;
  ASSERT_OK(layers_.Delete(gone, true, &tombstone));
  ASSERT_OK(Relocate(gone, layers_.HashOf(gone), tombstone, &result, &moved,
                     &copies));
  EXPECT_EQ(result, Relocation::kMoved);
  EXPECT_EQ(CurrentRef(gone), moved);
  EXPECT_EQ(Get(gone), Status::NotFound().ToString());
}

TEST_F(PayloadGcTest, RelocateLeavesWhatIsNotTheCurrentVersion) {
  const std::string key = "a key written twice";
  const uint64_t old_ref = Put(key, "old");
  const uint64_t current = Put(key, "new");
  Relocation result = Relocation::kMoved;
  uint64_t moved = 0;
  int copies = 0;
  ASSERT_OK(Relocate(key, layers_.HashOf(key), old_ref, &result, &moved,
                     &copies));
  EXPECT_EQ(result, Relocation::kUnreachable);
  EXPECT_EQ(copies, 0) << "an overwritten entry is not copied";
  EXPECT_EQ(CurrentRef(key), current);

  // An entry written with another table hash (for the unit a re-balance
  // moved its key out of) is no key's current version.
  result = Relocation::kMoved;
  ASSERT_OK(Relocate(key, layers_.HashOf(key) ^ 1, current, &result, &moved,
                     &copies));
  EXPECT_EQ(result, Relocation::kUnreachable);
  EXPECT_EQ(copies, 0);

  // The entry could not be read any more (compaction's copy says so).
  result = Relocation::kMoved;
  ASSERT_OK(Relocate(key, layers_.HashOf(key), current, &result, &moved,
                     &copies, Status::NotFound()));
  EXPECT_EQ(result, Relocation::kUnreachable);
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(CurrentRef(key), current);
  EXPECT_EQ(Get(key), "new");

  // Shadowed only by unlogged versions: kept for a crash to find.
  const uint64_t unlogged = Put(key, "unlogged", /*log=*/false);
  copies = 0;
  ASSERT_OK(Relocate(key, layers_.HashOf(key), current, &result, &moved,
                     &copies));
  EXPECT_EQ(result, Relocation::kBlocked);
  EXPECT_EQ(copies, 0);
  EXPECT_EQ(CurrentRef(key), unlogged);
}

TEST_F(PayloadGcTest, RelocateReportsWhatStoppedIt) {
  const std::string key = "a key whose copy fails";
  const uint64_t current = Put(key, "value");
  Relocation result = Relocation::kMoved;
  uint64_t moved = 0;
  int copies = 0;
  Status s = Relocate(key, layers_.HashOf(key), current, &result, &moved,
                      &copies, Status::NoSpace("no chunk for the copy"));
  EXPECT_EQ(s.ToString(), "NoSpace: no chunk for the copy");
  EXPECT_NE(result, Relocation::kMoved);
  EXPECT_EQ(CurrentRef(key), current) << "nothing was published";
  EXPECT_EQ(Get(key), "value");

  layers_.MarkClosed();
  copies = 0;
  s = Relocate(key, layers_.HashOf(key), current, &result, &moved, &copies);
  EXPECT_EQ(s.ToString(), "InvalidArgument: the DB is closed");
  EXPECT_EQ(copies, 0);
  EXPECT_EQ(CurrentRef(key), current);
}

// On a range pool of eight units, keys by their leading three bits.
class PayloadGcRangeTest : public PayloadGcTest {
 protected:
  Options options() const override {
    Options o = Options::SmallProfile();
    o.dram_directory_bits = 3;
    o.partitioning = Partitioning::kRange;
    return o;
  }
};

// A re-balance of other units between placing the key and locking its
// entry: compaction takes long enough for one to come in between, and the
// relocation places the key again rather than give up the chunk.
TEST_F(PayloadGcRangeTest, RelocationPlacesItsKeyAgainWhenTheMapChanged) {
  const std::string key = "\x01 a key of unit 0";
  const uint64_t current = Put(key, "value");
  const uint64_t d = layers_.table().DramIndex(layers_.HashOf(key));
  SpinLockRef entry = layers_.table().DramLock(d);
  entry.lock();
  Relocation result = Relocation::kBlocked;
  uint64_t moved = 0;
  int copies = 0;
  Status s;
  std::thread relocation([&] {
    s = Relocate(key, layers_.HashOf(key), current, &result, &moved,
                 &copies);
  });
  // (If the relocation had not placed the key yet, it places it on the
  // new map and the test passes without testing anything.)
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  RangeMap& map = *layers_.pool().range_map_store()->map();
  const uint64_t version = map.version();
  RangeMap::Change merge;
  merge.kind = RangeMap::Change::Kind::kMerge;
  merge.position = 6;  // units 6 and 7: keys from 0xC0, none written
  merge.unit = 6;
  ASSERT_EQ(map.Check(merge), "");
  map.Apply(merge);
  ASSERT_NE(map.version(), version);
  entry.unlock();
  relocation.join();
  ASSERT_OK(s);
  EXPECT_EQ(result, Relocation::kMoved);
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(CurrentRef(key), moved);
  EXPECT_EQ(Get(key), "value");
}

}  // namespace
}  // namespace plush
