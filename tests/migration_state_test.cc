// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The publication protocol of directory entries (table_format.h): a state
// word never returns to an earlier value, so a lock-free reader that sees
// the same state before and after its read saw a stable entry.
//
// The hard case is a crash that interrupts the migration of a PMem entry S
// after its children's states were published (step 5) but before S was
// cleared (step 6). S then migrates again with the same epoch; a child C
// that must migrate first goes (E, k) -> (E, 0) -> (E, n >= k) within that
// one migration, and a reader that saw (E, k) would accept slots that were
// rewritten meanwhile (regression: children took S's epoch unchanged).
//
// The test crashes a workload at every persist point, recovers the durable
// image, and continues writing while it watches every published state word
// at every persist point (and a reader thread checks keys that nobody
// writes any more). It also counts the recovered images that hold an
// interrupted PMem migration, to show that the workload reaches the case.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <thread>

#include "crash_explorer.h"
#include "db/db_impl.h"
#include "testutil.h"

namespace plush::test {
namespace {

// Watches the state words of every PMem entry, one persist point at a time.
class StateWatcher {
 public:
  explicit StateWatcher(const table::LeveledTable& table) : table_(table) {}

  void Observe() {
    for (unsigned l = 1; l < table_.level_count(); ++l) {
      for (uint64_t i = 0; i < table_.entry_count(l); ++i) {
        const table::EntryState now = table_.StateOf(l, i);
        History& h = history_[{l, i}];
        if (now.epoch < h.last.epoch) {
          Violation(l, i, "epoch went back from " +
                              std::to_string(h.last.epoch) + " to " +
                              std::to_string(now.epoch));
        }
        if (now.size < h.last.size) h.cleared_at_epoch = h.last.epoch;
        if (now.size > 0 && h.cleared_at_epoch &&
            now.epoch <= *h.cleared_at_epoch) {
          Violation(l, i,
                    "refilled with epoch " + std::to_string(now.epoch) +
                        " after a clear at epoch " +
                        std::to_string(*h.cleared_at_epoch));
        }
        h.last = now;
      }
    }
  }

  uint64_t violations() const { return violations_; }
  const std::string& first() const { return first_; }

 private:
  struct History {
    table::EntryState last;
    std::optional<uint64_t> cleared_at_epoch;
  };
  void Violation(unsigned l, uint64_t i, const std::string& what) {
    if (violations_++ == 0) {
      first_ = "level " + std::to_string(l) + " entry " + std::to_string(i) +
               ": " + what;
    }
  }

  const table::LeveledTable& table_;
  std::map<std::pair<unsigned, uint64_t>, History> history_;
  uint64_t violations_ = 0;
  std::string first_;
};

// A PMem entry that still holds records although a child already carries
// its epoch: its migration was interrupted between steps 5 and 6.
bool HasInterruptedPmemMigration(const table::LeveledTable& t) {
  for (unsigned l = 1; l + 1 < t.level_count(); ++l) {
    const uint64_t fanout = t.entry_count(l + 1) / t.entry_count(l);
    for (uint64_t i = 0; i < t.entry_count(l); ++i) {
      const table::EntryState s = t.StateOf(l, i);
      if (s.size == 0) continue;
      for (uint64_t j = 0; j < fanout; ++j) {
        const table::EntryState c = t.StateOf(l + 1, i * fanout + j);
        if (c.size > 0 && c.epoch == s.epoch) return true;
      }
    }
  }
  return false;
}

Status Apply(DB* db, const Op& op) {
  return op.kind == Op::Kind::kPut ? db->Put({}, Word(op.key), Word(op.value))
                                   : db->Delete({}, Word(op.key));
}

TEST(MigrationStateTest, StateWordsNeverReturnToAnEarlierValue) {
  const Options options = TinyCrashPool();
  const std::string device = "sim:migration_state";
  // Phase 1 fills several PMem levels; phase 2 writes other keys only, so
  // that phase 1's keys hold still while migrations move them around.
  const std::vector<Op> phase1 = RandomWorkload(700, 300, 7);
  std::vector<Op> phase2 = RandomWorkload(700, 300, 8);
  for (Op& op : phase2) op.key += 1000;

  media::SimMedia::Remove(device);
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenSim(options, device, &db));
  auto sim = media::SimMedia::Find(device);
  const uint64_t start = sim->persist_points();
  for (const Op& op : phase1) ASSERT_OK(Apply(db.get(), op));
  const uint64_t points = sim->persist_points() - start;
  db.reset();

  uint64_t interrupted = 0;
  uint64_t reader_checks = 0;
  const uint64_t stride = Soak() ? 1 : 3;
  for (uint64_t k = 1; k <= points; k += stride) {
    media::SimMedia::Remove(device);
    ASSERT_OK(OpenSim(options, device, &db));
    sim = media::SimMedia::Find(device);
    sim->ArmCrash(k);
    for (const Op& op : phase1) {
      (void)Apply(db.get(), op);
      if (sim->crashed()) break;
    }
    db.reset();
    ASSERT_TRUE(sim->crashed()) << k;
    sim->Restore(sim->DurableImage());
    const Status recovered = OpenSim(options, device, &db);
    ASSERT_TRUE(recovered.ok())
        << "crash at point " << k << ": " << recovered.ToString();
    const auto& table = static_cast<DBImpl*>(db.get())->table();
    interrupted += HasInterruptedPmemMigration(table);

    // What recovery left of phase 1's keys: nobody changes it from here on.
    std::map<uint64_t, std::optional<uint64_t>> stable;
    for (uint64_t key = 0; key < 300; ++key) {
      std::string v;
      const Status s = db->Get({}, Word(key), &v);
      ASSERT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
      stable[key] = s.ok() ? std::optional(FromWord(v)) : std::nullopt;
    }
    StateWatcher watcher(table);
    watcher.Observe();
    sim->SetPersistObserver([&] { watcher.Observe(); });
    std::atomic<bool> done{false};
    std::string reader_error;
    std::thread reader([&] {
      for (uint64_t round = 0; !done.load() && reader_error.empty(); ++round) {
        const uint64_t key = round % 300;
        std::string v;
        const Status s = db->Get({}, Word(key), &v);
        const std::optional<uint64_t> got =
            s.ok() ? std::optional(FromWord(v)) : std::nullopt;
        if (got != stable[key]) {
          reader_error = "key " + std::to_string(key) + " changed: " +
                         (s.ok() ? "now " + std::to_string(FromWord(v))
                                 : s.ToString());
        }
        ++reader_checks;
      }
    });
    for (const Op& op : phase2) ASSERT_OK(Apply(db.get(), op));
    done = true;
    reader.join();
    sim->SetPersistObserver(nullptr);
    ASSERT_EQ(watcher.violations(), 0u)
        << "crash at point " << k << ": " << watcher.first();
    ASSERT_EQ(reader_error, "") << "crash at point " << k;
    db.reset();
  }
  media::SimMedia::Remove(device);
  std::printf(
      "[migration_state] %llu persist points, %llu recovered images with an "
      "interrupted PMem migration, %llu concurrent reads\n",
      static_cast<unsigned long long>(points),
      static_cast<unsigned long long>(interrupted),
      static_cast<unsigned long long>(reader_checks));
  EXPECT_GT(interrupted, 0u) << "the workload never reached the case";
}

}  // namespace
}  // namespace plush::test
