// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "crash_explorer.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <unordered_map>

#include "media/sim_media.h"
#include "testutil.h"

namespace plush::test {
namespace {

std::atomic<int> device_counter{0};

Status Apply(DB* db, const Op& op) {
  return op.kind == Op::Kind::kPut ? db->Put({}, Word(op.key), Word(op.value))
                                   : db->Delete({}, Word(op.key));
}

}  // namespace

std::vector<Op> RandomWorkload(uint64_t n, uint64_t key_space, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t key = rng() % key_space;
    if (rng() % 4 == 0) {
      ops.push_back({Op::Kind::kDelete, key, 0});
    } else {
      ops.push_back({Op::Kind::kPut, key, rng()});
    }
  }
  return ops;
}

CrashExplorer::CrashExplorer(Options options, std::vector<Op> workload)
    : options_([&] {
        options.backend = Backend::kSim;
        return options;
      }()),
      workload_(std::move(workload)),
      device_("crash_explorer_" + std::to_string(device_counter++)) {
  for (const Op& op : workload_) key_space_ = std::max(key_space_, op.key + 1);
}

uint64_t CrashExplorer::CountPersistPoints() {
  media::SimMedia::Remove(device_);
  std::unique_ptr<DB> db;
  if (!DB::Open(options_, device_, &db).ok()) return 0;
  auto device = media::SimMedia::Find(device_);
  const uint64_t start = device->persist_points();
  for (const Op& op : workload_) {
    if (!Apply(db.get(), op).ok()) return 0;
  }
  const uint64_t points = device->persist_points() - start;
  db.reset();
  media::SimMedia::Remove(device_);
  return points;
}

namespace {

// The state of one key: absent, or holding a value.
struct KeyState {
  bool present = false;
  uint64_t value = 0;
  bool operator==(const KeyState&) const = default;
  std::string ToString() const {
    return present ? std::to_string(value) : "absent";
  }
};

KeyState After(const Op& op) { return {op.kind == Op::Kind::kPut, op.value}; }

}  // namespace

std::string CrashExplorer::Check(DB* db, size_t acked,
                                 const Op* in_flight) const {
  if (claim_in_flight_acked_ && in_flight != nullptr) {
    ++acked;  // the deliberately wrong oracle (see header)
    in_flight = nullptr;
  }
  std::unordered_map<uint64_t, KeyState> expected;
  for (size_t i = 0; i < acked; ++i)
    expected[workload_[i].key] = After(workload_[i]);
  for (uint64_t key = 0; key < key_space_; ++key) {
    std::string value;
    const Status s = db->Get({}, Word(key), &value);
    if (!s.ok() && !s.IsNotFound())
      return "Get(" + std::to_string(key) + "): " + s.ToString();
    const KeyState got{s.ok(), s.ok() ? FromWord(value) : 0};
    auto it = expected.find(key);
    const KeyState want = it == expected.end() ? KeyState{} : it->second;
    if (got == want) continue;
    if (in_flight != nullptr && in_flight->key == key &&
        got == After(*in_flight))
      continue;
    return "key " + std::to_string(key) + ": got " + got.ToString() +
           ", expected " + want.ToString() + " after " + std::to_string(acked) +
           " acknowledged ops";
  }
  std::string report;
  const Status v = db->Verify(&report);
  if (!v.ok()) return "Verify: " + v.ToString() + "\n" + report;
  return "";
}

bool CrashExplorer::CrashAt(uint64_t k, uint64_t seed, ExplorerStats* stats) {
  media::SimMedia::Remove(device_);
  std::unique_ptr<DB> db;
  if (!DB::Open(options_, device_, &db).ok()) {
    ++stats->failures;
    stats->first_failure = "cannot create the pool";
    return false;
  }
  auto device = media::SimMedia::Find(device_);
  device->ArmCrash(k);
  size_t acked = 0;
  const Op* in_flight = nullptr;
  for (const Op& op : workload_) {
    const Status s = Apply(db.get(), op);
    if (device->crashed()) {
      in_flight = &op;
      break;
    }
    if (!s.ok()) {
      ++stats->failures;
      stats->first_failure = "workload op failed: " + s.ToString();
      return false;
    }
    ++acked;
  }
  db.reset();
  if (!device->crashed()) return false;  // the workload has fewer points

  auto fail = [&](const std::string& what) {
    if (stats->failures++ == 0) {
      stats->first_failure = "crash at persist point " + std::to_string(k) +
                             " (seed " + std::to_string(seed) + "): " + what;
    }
  };
  const std::vector<uint64_t> image = device->CrashImage(seed);
  device->Restore(image);
  ++stats->crash_states;
  Status s = DB::Open(options_, device_, &db);
  if (!s.ok()) {
    fail("recovery failed: " + s.ToString());
    return true;
  }
  const uint64_t recovery_points = device->persist_points();
  if (std::string e = Check(db.get(), acked, in_flight); !e.empty()) {
    fail(e);
    return true;
  }
  // Recovery is idempotent: a second recovery from the same image, after
  // a clean close, sees the same contents.
  db.reset();
  s = DB::Open(options_, device_, &db);
  if (!s.ok() || !Check(db.get(), acked, in_flight).empty()) {
    fail("second recovery differs: " + s.ToString());
    return true;
  }
  db.reset();

  // Crash again in the middle of recovering from the same image.
  if (recovery_points > 0) {
    device->Restore(image);
    device->ArmCrash(1 + seed % recovery_points);
    s = DB::Open(options_, device_, &db);
    db.reset();
    if (device->crashed()) {
      device->Restore(device->CrashImage(seed + 1));
      ++stats->recovery_crash_states;
      s = DB::Open(options_, device_, &db);
      if (!s.ok()) {
        fail("recovery after a crash during recovery failed: " + s.ToString());
        return true;
      }
      if (std::string e = Check(db.get(), acked, in_flight); !e.empty()) {
        fail("after a crash during recovery: " + e);
        return true;
      }
      db.reset();
    }
  }
  return true;
}

ExplorerStats CrashExplorer::Exhaustive() {
  ExplorerStats stats;
  stats.persist_points = CountPersistPoints();
  for (uint64_t k = 1; k <= stats.persist_points; ++k) CrashAt(k, k, &stats);
  media::SimMedia::Remove(device_);
  return stats;
}

ExplorerStats CrashExplorer::Sampled(uint64_t samples, uint64_t seed) {
  ExplorerStats stats;
  stats.persist_points = CountPersistPoints();
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < samples && stats.persist_points > 0; ++i) {
    CrashAt(1 + rng() % stats.persist_points, rng(), &stats);
  }
  media::SimMedia::Remove(device_);
  return stats;
}

}  // namespace plush::test
