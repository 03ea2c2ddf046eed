// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "crash_explorer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>

#include "testing/sim_media.h"
#include "testutil.h"

namespace plush::test {
namespace {

std::atomic<int> device_counter{0};

// splitmix64: the generator behind KeyBytes() and ValueBytes().
uint64_t Mix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Bytes(uint64_t word, uint32_t size, uint64_t domain) {
  if (size == 8) return Word(word);
  std::string out(size, '\0');
  uint64_t state = word ^ (uint64_t{size} << 40) ^ domain;
  size_t i = 0;
  if (size > 8) {  // lead with the word itself: easier to read in a dump
    std::memcpy(out.data(), &word, 8);
    i = 8;
  }
  for (; i < size; i += 8) {
    const uint64_t r = Mix(&state);
    std::memcpy(out.data() + i, &r, std::min<size_t>(8, size - i));
  }
  return out;
}

Status ApplyWrite(DB* db, const Op& op);

Status Apply(DB* db, const Op& op) {
  const Status s = ApplyWrite(db, op);
  return s.ok() && op.then_sync ? db->Sync() : s;
}

Status ApplyWrite(DB* db, const Op& op) {
  WriteOptions write;
  write.sync = op.sync;
  write.caller_syncs = op.caller_syncs;
  write.expires_at_ms = op.expires_at_ms;
  switch (op.kind) {
    case Op::Kind::kPut:
      return db->Put(write, KeyBytes(op), ValueBytes(op.value, op.value_size));
    case Op::Kind::kDelete:
      return db->Delete(write, KeyBytes(op));
    case Op::Kind::kUpdate:
      return db->UpdateWithExpiry(
          write, KeyBytes(op),
          [&op](const std::string* current, uint64_t* expires_at_ms,
                std::string* new_value) {
            UpdateDecision d = DecideUpdate(op, current, *expires_at_ms);
            *new_value = std::move(d.value);
            *expires_at_ms = d.expires_at_ms;
            return d.action;
          });
    case Op::Kind::kCheckpoint:
      return db->Checkpoint(1);
    case Op::Kind::kRebalance:
      return db->Rebalance();
  }
  return Status::InvalidArgument("bad op");
}

}  // namespace

std::string KeyBytes(uint64_t key, uint32_t size) {
  return Bytes(key, size, 0x6b6579);  // "key"
}

std::string ValueBytes(uint64_t value, uint32_t size) {
  return Bytes(value, size, 0x76616c7565);  // "value"
}

std::string KeyBytes(const Op& op) { return KeyBytes(op.key, op.key_size); }

std::vector<Op> WithEveryOtherWriteSynced(std::vector<Op> ops) {
  bool sync = false;
  for (Op& op : ops) {
    if (!WritesKey(op)) continue;
    op.sync = sync;
    sync = !sync;
  }
  return ops;
}

std::vector<Op> WithExpiries(std::vector<Op> ops) {
  unsigned put = 0;
  for (Op& op : ops) {
    if (op.kind != Op::Kind::kPut) continue;
    switch (put++ % 3) {
      case 0:
        op.expires_at_ms = kExplorerNowMs + 1000 + op.value % 1000;
        break;
      case 1:
        op.expires_at_ms = kExplorerNowMs - 1 - op.value % 1000;
        break;
      default:
        break;
    }
  }
  return ops;
}

std::vector<Op> WithUpdates(std::vector<Op> ops) {
  unsigned put = 0;
  for (Op& op : ops) {
    if (op.kind == Op::Kind::kPut && put++ % 3 == 0)
      op.kind = Op::Kind::kUpdate;
  }
  return ops;
}

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

std::vector<Op> RandomVarlenWorkload(uint64_t n, uint64_t key_space,
                                     uint64_t seed, uint32_t max_value,
                                     bool checkpoints) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> key_size(key_space);
  for (uint64_t id = 0; id < key_space; ++id) {
    const unsigned dice = rng() % 100;
    key_size[id] = id == 0     ? 0
                   : dice < 33 ? 8
                   : dice < 38 ? static_cast<uint32_t>(kMaxKeySize)
                               : 1 + static_cast<uint32_t>(rng() % 64);
  }
  std::vector<Op> ops;
  for (uint64_t i = 0; i < n; ++i) {
    // Half the operations go to the first quarter of the keys: the other
    // keys' records stay live in old chunks, which GC must then move.
    const uint64_t key = rng() % 2 == 0
                             ? rng() % std::max<uint64_t>(1, key_space / 4)
                             : rng() % key_space;
    const unsigned dice = rng() % 100;
    if (checkpoints && dice == 0) {
      ops.push_back({Op::Kind::kCheckpoint, 0, 0, 8, 8});
    } else if (dice < 23) {
      ops.push_back({Op::Kind::kDelete, key, 0, key_size[key], 0});
    } else {
      const unsigned size_dice = rng() % 100;
      const uint32_t value_size =
          size_dice < 8    ? 0
          : size_dice < 40 ? 8
          : size_dice < 80 ? 1 + static_cast<uint32_t>(rng() % 600)
                           : static_cast<uint32_t>(rng() % (max_value + 1));
      ops.push_back({Op::Kind::kPut, key, rng(), key_size[key], value_size});
    }
  }
  return ops;
}

uint32_t SmallestPayloadChunkSize(Options options) {
  const std::string device = "chunk_probe_" + std::to_string(device_counter++);
  for (uint32_t size = 4096; size <= (4u << 20); size *= 2) {
    options.payload_chunk_size = size;
    media::SimMedia::Remove(device);
    std::unique_ptr<DB> db;
    const bool ok = OpenSim(options, device, &db).ok();
    db.reset();
    media::SimMedia::Remove(device);
    if (ok) return size;
  }
  return 0;
}

CrashExplorer::CrashExplorer(Options options, std::vector<Op> workload)
    : options_([&] {
        if (options.clock == nullptr)
          options.clock = std::make_shared<ManualClock>(kExplorerNowMs);
        return options;
      }()),
      workload_(std::move(workload)),
      device_("crash_explorer_" + std::to_string(device_counter++)) {
  uint64_t word_keys = 0;  // 8-byte key ids 0..word_keys-1 are checked
  std::set<std::string> keys;
  for (const Op& op : workload_) {
    if (!WritesKey(op)) continue;
    keys.insert(KeyBytes(op));
    if (op.key_size == 8) word_keys = std::max(word_keys, op.key + 1);
  }
  for (uint64_t key = 0; key < word_keys; ++key) keys.insert(Word(key));
  keys_to_check_.assign(keys.begin(), keys.end());
}

uint64_t CrashExplorer::CountPersistPoints(Stats* stats,
                                          std::vector<uint64_t>* per_op) {
  media::SimMedia::Remove(device_);
  std::unique_ptr<DB> db;
  if (!OpenDB(options_, internal_, device_, &db).ok()) return 0;
  auto device = media::SimMedia::Find(device_);
  const uint64_t start = device->persist_points();
  if (per_op != nullptr) per_op->clear();
  for (const Op& op : workload_) {
    const uint64_t before = device->persist_points();
    if (!Apply(db.get(), op).ok()) return 0;
    if (per_op != nullptr) per_op->push_back(device->persist_points() - before);
    std::this_thread::sleep_for(pause_);
  }
  const uint64_t points = device->persist_points() - start;
  if (stats != nullptr && !db->GetStats(stats).ok()) return 0;
  db.reset();
  media::SimMedia::Remove(device_);
  return points;
}

Options SmallCrashPool() {
  Options o = Options::SmallProfile();
  o.background_threads = 0;
  return o;
}

Options TinyCrashPool() {
  Options o = SmallCrashPool();
  o.log_count = 1;
  o.log_chunks_per_log = 2;
  return o;
}

Options TinyVarlenCrashPool() {
  Options o = TinyCrashPool();
  o.payload_log_count = 1;
  o.payload_chunk_size = SmallestPayloadChunkSize(o);
  return o;
}

uint32_t MaxVarlenValue(const Options& o) {
  const uint32_t room = o.payload_chunk_size - 64 - 8 - kMaxKeySize;
  return std::min<uint32_t>({16u << 10, room / 2, kMaxValueSize});
}

std::string KeyState::ToString() const {
  if (!present) return "absent";
  if (value.size() == 8) return std::to_string(FromWord(value));
  std::string s = std::to_string(value.size()) + " bytes";
  if (value.size() > 8)
    s += " starting with " + std::to_string(FromWord(value));
  if (expires_at_ms != 0) s += ", expiring at " + std::to_string(expires_at_ms);
  return s;
}

UpdateDecision DecideUpdate(const Op& op, const std::string* current,
                            uint64_t current_expires_at_ms) {
  using Action = DB::UpdateAction;
  uint64_t choice = op.value;
  const uint64_t pick = Mix(&choice);
  if (current == nullptr) {
    if (pick % 3 == 0) return {Action::kKeep, {}, 0};
    return {Action::kPut, ValueBytes(op.value, op.value_size),
            op.expires_at_ms};
  }
  uint64_t digest = op.value;
  for (const char c : *current) {
    digest ^= static_cast<unsigned char>(c);
    Mix(&digest);
  }
  switch (pick % 4) {
    case 0:
      return {Action::kDelete, {}, 0};
    case 1:
      return {Action::kKeep, {}, 0};
    case 2:
      return {Action::kPut, ValueBytes(Mix(&digest), op.value_size),
              current_expires_at_ms};
    default:
      return {Action::kPut, ValueBytes(Mix(&digest), op.value_size),
              op.expires_at_ms};
  }
}

KeyState After(const Op& op, const KeyState& before) {
  std::string value;
  uint64_t expires_at_ms = op.expires_at_ms;
  switch (op.kind) {
    case Op::Kind::kPut:
      value = ValueBytes(op.value, op.value_size);
      break;
    case Op::Kind::kUpdate: {
      UpdateDecision d = DecideUpdate(
          op, before.present ? &before.value : nullptr, before.expires_at_ms);
      if (d.action == DB::UpdateAction::kKeep) return before;
      if (d.action == DB::UpdateAction::kDelete) return {};
      value = std::move(d.value);
      expires_at_ms = d.expires_at_ms;
      break;
    }
    default:
      return {};
  }
  if (expires_at_ms != 0 && expires_at_ms < kExplorerNowMs) return {};
  return {true, std::move(value), expires_at_ms};
}

std::string KeyName(const std::string& key) {
  if (key.size() == 8) return std::to_string(FromWord(key));
  std::string name = "(";  // appended: GCC 12 warns on "(" + string&&
  name += std::to_string(key.size());
  name += " bytes, first word ";
  name += std::to_string(FromWord(key));
  name += ")";
  return name;
}

std::string CrashExplorer::Check(DB* db, size_t acked,
                                 const Op* in_flight) const {
  if (claim_in_flight_acked_ && in_flight != nullptr) {
    ++acked;  // the deliberately wrong oracle (see header)
    in_flight = nullptr;
  }
  std::unordered_map<std::string, KeyState> expected;
  for (size_t i = 0; i < acked; ++i) {
    const Op& op = workload_[i];
    if (!WritesKey(op)) continue;
    KeyState& state = expected[KeyBytes(op)];
    state = After(op, state);
  }
  const bool in_flight_writes = in_flight != nullptr && WritesKey(*in_flight);
  const std::string in_flight_key =
      in_flight_writes ? KeyBytes(*in_flight) : std::string();
  // What Get found, for the scan below: checked against the oracle here.
  std::map<std::string, std::string> found;
  for (const std::string& key : keys_to_check_) {
    std::string value;
    const Status s = db->Get({}, key, &value);
    if (!s.ok() && !s.IsNotFound())
      return "Get(" + KeyName(key) + "): " + s.ToString();
    uint64_t expiry = 0;
    if (s.ok()) {
      const Status e = db->GetExpiry(key, &expiry);
      if (!e.ok()) return "GetExpiry(" + KeyName(key) + "): " + e.ToString();
    }
    const KeyState got{s.ok(), s.ok() ? value : std::string(), expiry};
    if (got.present) found.emplace(key, got.value);
    auto it = expected.find(key);
    const KeyState want = it == expected.end() ? KeyState{} : it->second;
    if (got == want) continue;
    if (in_flight_writes && in_flight_key == key &&
        got == After(*in_flight, want)) {
      continue;
    }
    return "key " + KeyName(key) + ": got " + got.ToString() + ", expected " +
           want.ToString() + " after " + std::to_string(acked) +
           " acknowledged ops";
  }
  if (options_.partitioning == Partitioning::kRange) {
    if (std::string e = CheckScan(db, found); !e.empty()) return e;
  }
  std::string report;
  const Status v = db->Verify(&report);
  if (!v.ok()) return "Verify: " + v.ToString() + "\n" + report;
  return "";
}

std::string CrashExplorer::CheckScan(
    DB* db, const std::map<std::string, std::string>& found) {
  std::unique_ptr<Iterator> it = db->NewIterator({});
  auto want = found.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) {
    const std::string key(it->key());
    if (want == found.end() || key < want->first) {
      return "scan: " + KeyName(key) + " that Get does not find";
    }
    if (key > want->first) {
      return "scan: " + KeyName(want->first) + " missing, " + KeyName(key) +
             " instead";
    }
    if (it->value() != want->second) {
      return "scan: " + KeyName(key) + " has a value of " +
             std::to_string(it->value().size()) + " bytes, Get another";
    }
  }
  if (!it->status().ok()) return "scan: " + it->status().ToString();
  if (want != found.end()) return "scan: ends before " + KeyName(want->first);
  return "";
}

bool CrashExplorer::CrashAt(uint64_t k, uint64_t seed, ExplorerStats* stats) {
  media::SimMedia::Remove(device_);
  std::unique_ptr<DB> db;
  if (!OpenDB(options_, internal_, device_, &db).ok()) {
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
    std::this_thread::sleep_for(pause_);
  }
  db.reset();
  if (!device->crashed()) return false;  // the workload has fewer points

  auto fail = [&](const std::string& what) {
    if (stats->failures++ == 0) {
      stats->first_failure = "crash at persist point " + std::to_string(k) +
                             " (seed " + std::to_string(seed) + "): " + what;
    }
  };
  device->CrashImage(seed, &image_);
  device->Restore(image_);
  ++stats->crash_states;
  Status s = OpenDB(options_, internal_, device_, &db);
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
  s = OpenDB(options_, internal_, device_, &db);
  if (!s.ok() || !Check(db.get(), acked, in_flight).empty()) {
    fail("second recovery differs: " + s.ToString());
    return true;
  }
  db.reset();

  // Crash again in the middle of recovering from the same image.
  if (recovery_points > 0) {
    s = CrashDuringRecovery(options_, device_, image_, recovery_points, seed,
                            &db, internal_);
    if (!s.ok()) {
      fail("recovery after a crash during recovery failed: " + s.ToString());
      return true;
    }
    if (db != nullptr) {
      ++stats->recovery_crash_states;
      if (std::string e = Check(db.get(), acked, in_flight); !e.empty()) {
        fail("after a crash during recovery: " + e);
        return true;
      }
      db.reset();
    }
  }
  return true;
}

Status CrashDuringRecovery(const Options& options, const std::string& device,
                           const std::vector<uint64_t>& image,
                           uint64_t recovery_points, uint64_t seed,
                           std::unique_ptr<DB>* db,
                           const InternalOptions& internal) {
  auto sim = media::SimMedia::Find(device);
  sim->Restore(image);
  sim->ArmCrash(1 + seed % recovery_points);
  (void)OpenDB(options, internal, device, db);  // crashes (or finishes)
  db->reset();
  if (!sim->crashed()) return Status::OK();
  sim->RestoreCrashImage(seed + 1);
  return OpenDB(options, internal, device, db);
}

ExplorerStats CrashExplorer::Exhaustive() {
  ExplorerStats stats;
  stats.persist_points = CountPersistPoints();
  for (uint64_t k = 1; k <= stats.persist_points; ++k) CrashAt(k, k, &stats);
  media::SimMedia::Remove(device_);
  return stats;
}

ExplorerStats CrashExplorer::ExhaustiveWithin(Op::Kind kind) {
  ExplorerStats stats;
  std::vector<uint64_t> per_op;
  stats.persist_points = CountPersistPoints(nullptr, &per_op);
  // Op i passes through the persist points after those of ops 0..i-1.
  uint64_t first = 1;
  for (size_t i = 0; i < per_op.size(); first += per_op[i++]) {
    if (workload_[i].kind != kind) continue;
    for (uint64_t k = first; k < first + per_op[i]; ++k) CrashAt(k, k, &stats);
  }
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
