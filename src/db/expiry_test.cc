// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Records with an expiry (WriteOptions::expires_at_ms, DB::Expire,
// DB::GetExpiry), on a clock the tests move (Options::clock): what every
// read sees before and after the moment, what writes keep, reopens, and
// that expired records give their space back.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "db/expiry_sweeper.h"
#include "plush/db.h"
#include "testing/open_db.h"
#include "testutil.h"

namespace plush {
namespace {

using test::FromWord;
using test::ManualClock;
using test::ScratchPool;
using test::Word;

constexpr uint64_t kStart = 1'700'000'000'000;  // Unix ms

class ExpiryTest : public ::testing::TestWithParam<Partitioning> {
 protected:
  void SetUp() override { Open(); }

  Options PoolOptions() const {
    Options o = Options::SmallProfile();
    o.partitioning = GetParam();
    o.clock = clock_;
    o.background_threads = background_threads_;
    if (roomy_dram_) {  // no record leaves the DRAM level by migrating
      o.fanout_bits = 4;
      o.first_level_fanout_bits = 4;
      o.range_rebalance = false;
    }
    return o;
  }
  void Open() { ASSERT_OK(DB::Open(PoolOptions(), file_.path(), &db_)); }
  uint64_t MoreCount(const std::string& name) {
    Stats stats;
    EXPECT_OK(db_->GetStats(&stats));
    for (const auto& [n, value] : stats.more_counts) {
      if (n == name) return value;
    }
    ADD_FAILURE() << "no count " << name;
    return 0;
  }
  uint64_t DramRecords() {
    Stats stats;
    EXPECT_OK(db_->GetStats(&stats));
    return stats.records_per_level.empty() ? 0 : stats.records_per_level[0];
  }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }
  static WriteOptions Until(uint64_t expires_at_ms) {
    WriteOptions w;
    w.expires_at_ms = expires_at_ms;
    return w;
  }
  Status Get(std::string_view key, std::string* value = nullptr) {
    std::string ignored;
    return db_->Get({}, key, value != nullptr ? value : &ignored);
  }
  // The keys an iterator yields from the first, sorted, with the expiry
  // it gives each.
  std::map<std::string, uint64_t> Scan() {
    std::map<std::string, uint64_t> keys;
    std::unique_ptr<Iterator> it = db_->NewIterator({});
    for (it->SeekToFirst(); it->Valid(); it->Next())
      keys.emplace(it->key(), it->expires_at_ms());
    EXPECT_OK(it->status());
    return keys;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kStart);
  unsigned background_threads_ = 1;
  bool roomy_dram_ = false;
  ScratchPool file_{"expiry"};
  std::unique_ptr<DB> db_;
};

// Up to and including its expiry the record is there; one millisecond
// later it is gone for Get, MultiGet, GetExpiry — and its older version
// does not come back.
TEST_P(ExpiryTest, ARecordIsGoneTheMillisecondAfterItsExpiry) {
  for (const std::string& key : {std::string("session:1"), Word(7)}) {
    SCOPED_TRACE(key.size());
    ASSERT_OK(db_->Put({}, key, "old value"));
    ASSERT_OK(db_->Put(Until(clock_->NowMs() + 1000), key, Word(42)));
    std::string value;
    uint64_t expiry = 0;
    ASSERT_OK(Get(key, &value));
    EXPECT_EQ(FromWord(value), 42u);
    ASSERT_OK(db_->GetExpiry(key, &expiry));
    EXPECT_EQ(expiry, clock_->NowMs() + 1000);
    clock_->Advance(1000);
    EXPECT_OK(Get(key)) << "at its expiry, the record is still there";
    clock_->Advance(1);
    EXPECT_TRUE(Get(key, &value).IsNotFound()) << value;
    EXPECT_TRUE(db_->GetExpiry(key, &expiry).IsNotFound());
    std::vector<std::string> values;
    const std::vector<Status> s = db_->MultiGet({}, {key}, &values);
    EXPECT_TRUE(s[0].IsNotFound());
    EXPECT_EQ(values[0], "");
  }
}

TEST_P(ExpiryTest, APutWithoutExpiryRemovesItAndAPastOneHidesTheKey) {
  ASSERT_OK(db_->Put(Until(kStart + 10), "k", "v1"));
  ASSERT_OK(db_->Put({}, "k", "v2"));
  uint64_t expiry = 1;
  ASSERT_OK(db_->GetExpiry("k", &expiry));
  EXPECT_EQ(expiry, 0u);
  clock_->Advance(100);
  EXPECT_OK(Get("k"));
  ASSERT_OK(db_->Put(Until(kStart), "k", "v3"));
  EXPECT_TRUE(Get("k").IsNotFound());
}

TEST_P(ExpiryTest, ExpireSetsAndRemovesTheExpiryOfAPresentKeyOnly) {
  EXPECT_TRUE(db_->Expire("missing", kStart + 5).IsNotFound());
  EXPECT_TRUE(Get("missing").IsNotFound()) << "Expire wrote a record";
  ASSERT_OK(db_->Put({}, Word(3), Word(33)));  // inline, then with expiry
  ASSERT_OK(db_->Expire(Word(3), kStart + 5));
  uint64_t expiry = 0;
  ASSERT_OK(db_->GetExpiry(Word(3), &expiry));
  EXPECT_EQ(expiry, kStart + 5);
  ASSERT_OK(db_->Expire(Word(3), 0));
  clock_->Advance(10);
  std::string value;
  ASSERT_OK(Get(Word(3), &value));
  EXPECT_EQ(FromWord(value), 33u);
  ASSERT_OK(db_->Expire(Word(3), kStart + 20));
  clock_->Advance(11);
  EXPECT_TRUE(db_->Expire(Word(3), 0).IsNotFound())
      << "an expired key cannot be brought back";
  EXPECT_TRUE(Get(Word(3)).IsNotFound());
}

// Redis's INCR keeps a key's time to live; an Update may set a new one.
TEST_P(ExpiryTest, UpdatesKeepTheExpiryUnlessTheyGiveOne) {
  ASSERT_OK(db_->Put(Until(kStart + 100), "counter", Word(1)));
  int64_t sum = 0;
  ASSERT_OK(db_->Increment({}, "counter", 2, &sum));
  EXPECT_EQ(sum, 3);
  uint64_t expiry = 0;
  ASSERT_OK(db_->GetExpiry("counter", &expiry));
  EXPECT_EQ(expiry, kStart + 100);
  bool inserted = true;
  ASSERT_OK(db_->PutIfAbsent(Until(kStart + 7), "counter", "x", &inserted));
  EXPECT_FALSE(inserted);
  ASSERT_OK(db_->GetExpiry("counter", &expiry));
  EXPECT_EQ(expiry, kStart + 100) << "a kept key keeps its expiry";
  ASSERT_OK(db_->Update(Until(kStart + 200), "counter",
                        [](const std::string* current, std::string* next) {
                          *next = *current;
                          return DB::UpdateAction::kPut;
                        }));
  ASSERT_OK(db_->GetExpiry("counter", &expiry));
  EXPECT_EQ(expiry, kStart + 200);
  clock_->Advance(201);
  // An expired key counts as absent: the increment starts from 0.
  ASSERT_OK(db_->Increment({}, "counter", 5, &sum));
  EXPECT_EQ(sum, 5);
  ASSERT_OK(db_->GetExpiry("counter", &expiry));
  EXPECT_EQ(expiry, 0u);
  // A lock's SET NX PX: taken only once the holder's expired.
  ASSERT_OK(db_->PutIfAbsent(Until(kStart + 300), "lock", "a", &inserted));
  EXPECT_TRUE(inserted);
  ASSERT_OK(db_->PutIfAbsent(Until(kStart + 400), "lock", "b", &inserted));
  EXPECT_FALSE(inserted);
  clock_->Advance(100);
  ASSERT_OK(db_->PutIfAbsent(Until(kStart + 400), "lock", "b", &inserted));
  EXPECT_TRUE(inserted);
}

TEST_P(ExpiryTest, ABatchGivesItsPutsTheirExpiryAndItsDeletesNone) {
  ASSERT_OK(db_->Put({}, Word(9), Word(9)));
  WriteBatch batch;
  batch.Put(Word(1), Word(10));
  batch.Put("long key", "long value");
  batch.Delete(Word(9));
  batch.PutWithExpiry("own", "x", kStart + 5);
  batch.PutWithExpiry(Word(2), Word(2), 0);  // never, whatever options say
  ASSERT_OK(db_->Write(Until(kStart + 50), &batch));
  uint64_t expiry = 0;
  ASSERT_OK(db_->GetExpiry("own", &expiry));
  EXPECT_EQ(expiry, kStart + 5);
  ASSERT_OK(db_->GetExpiry(Word(2), &expiry));
  EXPECT_EQ(expiry, 0u);
  ASSERT_OK(db_->GetExpiry(Word(1), &expiry));
  EXPECT_EQ(expiry, kStart + 50);
  ASSERT_OK(db_->GetExpiry("long key", &expiry));
  EXPECT_EQ(expiry, kStart + 50);
  EXPECT_TRUE(Get(Word(9)).IsNotFound());
  clock_->Advance(51);
  EXPECT_TRUE(Get(Word(1)).IsNotFound());
  EXPECT_TRUE(Get("long key").IsNotFound());
  EXPECT_TRUE(Get("own").IsNotFound());
  EXPECT_OK(Get(Word(2)));
}

TEST_P(ExpiryTest, ExpirySurvivesAReopenAndMigrations) {
  for (int i = 0; i < 400; ++i) {
    ASSERT_OK(db_->Put(Until(kStart + 1000 + i), "key" + std::to_string(i),
                       std::to_string(i)));
  }
  ASSERT_OK(db_->Checkpoint());  // every record on PMem levels
  Reopen();
  clock_->Set(kStart + 1000 + 199);
  for (int i = 0; i < 400; ++i) {
    const std::string key = "key" + std::to_string(i);
    std::string value;
    const Status s = Get(key, &value);
    if (i < 199) {
      EXPECT_TRUE(s.IsNotFound()) << key;
    } else {
      ASSERT_OK(s) << key;
      EXPECT_EQ(value, std::to_string(i));
      uint64_t expiry = 0;
      ASSERT_OK(db_->GetExpiry(key, &expiry));
      EXPECT_EQ(expiry, kStart + 1000 + i);
    }
  }
}

TEST_P(ExpiryTest, IteratorsGiveExpiriesAndLeaveExpiredKeysOut) {
  using Keys = std::map<std::string, uint64_t>;
  ASSERT_OK(db_->Put({}, "a", "1"));
  ASSERT_OK(db_->Put({}, "b", "old"));
  ASSERT_OK(db_->Put(Until(kStart + 5), "b", "2"));
  ASSERT_OK(db_->Put(Until(kStart + 10), Word(3), Word(3)));
  EXPECT_EQ(Scan(),
            (Keys{{"a", 0}, {"b", kStart + 5}, {Word(3), kStart + 10}}));
  clock_->Advance(6);
  EXPECT_EQ(Scan(), (Keys{{"a", 0}, {Word(3), kStart + 10}}));
  ASSERT_OK(db_->Checkpoint());
  if (GetParam() == Partitioning::kRange) {
    ASSERT_OK(db_->Rebalance());
  }
  EXPECT_EQ(Scan(), (Keys{{"a", 0}, {Word(3), kStart + 10}}));
  clock_->Advance(5);
  EXPECT_EQ(Scan(), (Keys{{"a", 0}}));
}

// A model test: random puts with and without expiry, deletes, Expire,
// and clock steps, against a map of (value, expiry), with reopens and
// checkpoints in between.
// Redis's PERSIST and GETSET: a decision on the value and its expiry
// together. The function sees the current expiry (0 for none, for an
// absent key, and for an expired one) and leaves the new version's.
TEST_P(ExpiryTest, UpdateWithExpirySeesAndDecidesTheExpiry) {
  using Action = DB::UpdateAction;
  ASSERT_OK(db_->Put(Until(kStart + 100), "k", "v1"));
  uint64_t seen = 7;
  bool absent = false;
  ASSERT_OK(db_->UpdateWithExpiry(
      {}, "k", [&](const std::string* current, uint64_t* expiry,
                   std::string* next) {
        seen = *expiry;
        *next = *current;
        *expiry = 0;
        return Action::kPut;
      }));
  EXPECT_EQ(seen, kStart + 100);
  uint64_t expiry = 1;
  ASSERT_OK(db_->GetExpiry("k", &expiry));
  EXPECT_EQ(expiry, 0u) << "persisted";
  clock_->Advance(200);
  std::string value;
  ASSERT_OK(Get("k", &value));
  EXPECT_EQ(value, "v1");

  // WriteOptions::expires_at_ms is not what decides.
  ASSERT_OK(db_->UpdateWithExpiry(
      Until(kStart + 5), "k",
      [&](const std::string*, uint64_t* expiry_in, std::string* next) {
        seen = *expiry_in;
        *next = "v2";
        *expiry_in = kStart + 1000;
        return Action::kPut;
      }));
  EXPECT_EQ(seen, 0u);
  ASSERT_OK(db_->GetExpiry("k", &expiry));
  EXPECT_EQ(expiry, kStart + 1000);
  ASSERT_OK(db_->UpdateWithExpiry(
      {}, "k", [](const std::string*, uint64_t* expiry_in, std::string*) {
        *expiry_in = 1;
        return Action::kKeep;
      }));
  ASSERT_OK(db_->GetExpiry("k", &expiry));
  EXPECT_EQ(expiry, kStart + 1000) << "kKeep changed the expiry";

  // An expired key is absent, without an expiry.
  ASSERT_OK(db_->Put(Until(kStart + 250), "gone", "x"));
  clock_->Advance(100);
  ASSERT_OK(db_->UpdateWithExpiry(
      {}, "gone",
      [&](const std::string* current, uint64_t* expiry_in, std::string* next) {
        absent = current == nullptr;
        seen = *expiry_in;
        *next = "new";
        return Action::kPut;
      }));
  EXPECT_TRUE(absent);
  EXPECT_EQ(seen, 0u) << "an expired key's past expiry came through";
  ASSERT_OK(Get("gone", &value));
  EXPECT_EQ(value, "new");

  // An 8-byte record with an expiry: a payload record, kept by a reopen.
  ASSERT_OK(db_->UpdateWithExpiry(
      {}, Word(5), [](const std::string*, uint64_t* expiry_in,
                      std::string* next) {
        *next = Word(6);
        *expiry_in = kStart + 10000;
        return Action::kPut;
      }));
  Reopen();
  ASSERT_OK(db_->GetExpiry(Word(5), &expiry));
  EXPECT_EQ(expiry, kStart + 10000);
  ASSERT_OK(Get(Word(5), &value));
  EXPECT_EQ(value, Word(6));
}

TEST_P(ExpiryTest, MatchesAModelUnderRandomOperations) {
  struct Record {
    std::string value;
    uint64_t expires_at_ms;
  };
  std::map<std::string, Record> model;
  std::mt19937_64 rng(GetParam() == Partitioning::kHash ? 1 : 2);
  auto live = [&](const std::string& key) {
    auto it = model.find(key);
    return it != model.end() &&
           (it->second.expires_at_ms == 0 ||
            clock_->NowMs() <= it->second.expires_at_ms);
  };
  for (int step = 0; step < 6000; ++step) {
    const uint64_t k = rng() % 300;
    const std::string key = k % 2 == 0 ? Word(k) : "key" + std::to_string(k);
    const uint64_t expiry =
        rng() % 3 == 0 ? 0 : clock_->NowMs() + rng() % 50;
    switch (rng() % 7) {
      case 0:
      case 1: {
        std::string value = Word(step);
        if (rng() % 2 == 0) value.assign(rng() % 40, 'v');
        ASSERT_OK(db_->Put(Until(expiry), key, value));
        model[key] = {value, expiry};
        break;
      }
      case 2:
        ASSERT_OK(db_->Delete({}, key));
        model.erase(key);
        break;
      case 3: {
        const Status s = db_->Expire(key, expiry);
        if (live(key)) {
          ASSERT_OK(s);
          model[key].expires_at_ms = expiry;
        } else {
          ASSERT_TRUE(s.IsNotFound())
              << "step " << step << " key " << k << ": " << s.ToString()
              << (model.count(key) ? " expired" : " absent");
        }
        break;
      }
      case 4:
        clock_->Advance(rng() % 10);
        break;
      case 5: {  // an append that also sets the expiry, or a fresh value
        const bool was_live = live(key);
        uint64_t seen = 0;
        ASSERT_OK(db_->UpdateWithExpiry(
            {}, key,
            [&](const std::string* current, uint64_t* expiry_in,
                std::string* next) {
              seen = *expiry_in;
              *next = current != nullptr ? *current + "+" : "fresh";
              *expiry_in = expiry;
              return DB::UpdateAction::kPut;
            }));
        EXPECT_EQ(seen, was_live ? model[key].expires_at_ms : 0)
            << "step " << step;
        model[key] = {was_live ? model[key].value + "+" : "fresh", expiry};
        break;
      }
      default:
        if (rng() % 200 == 0) {
          Reopen();
        } else if (rng() % 100 == 0) {
          ASSERT_OK(db_->Checkpoint());
        }
        break;
    }
    if (step % 500 == 499 || step == 5999) {
      for (uint64_t j = 0; j < 300; ++j) {
        const std::string probe =
            j % 2 == 0 ? Word(j) : "key" + std::to_string(j);
        std::string value;
        uint64_t expiry_read = 0;
        const Status s = Get(probe, &value);
        if (live(probe)) {
          ASSERT_OK(s) << "step " << step << " key " << j;
          EXPECT_EQ(value, model[probe].value);
          ASSERT_OK(db_->GetExpiry(probe, &expiry_read));
          EXPECT_EQ(expiry_read, model[probe].expires_at_ms);
        } else {
          ASSERT_TRUE(s.IsNotFound())
              << "step " << step << " key " << j << ": " << s.ToString();
        }
      }
    }
  }
}

// A cache whose keys all expire does not grow: rounds of new keys with a
// short expiry, each written after the previous round's expired, leave
// the pool's payload space where the first rounds put it.
TEST_P(ExpiryTest, ExpiredRecordsGiveTheirSpaceBack) {
  background_threads_ = 0;  // the same work at the same moments every run
  Reopen();
  const std::string value(200, 'x');
  uint64_t after_warmup = 0;
  for (int round = 0; round < 12; ++round) {
    for (int i = 0; i < 3000; ++i) {
      const std::string key = std::to_string(round) + ":" + std::to_string(i);
      ASSERT_OK(db_->Put(Until(clock_->NowMs() + 1000), key, value));
    }
    clock_->Advance(1001);
    Stats stats;
    ASSERT_OK(db_->GetStats(&stats));
    if (round == 2) after_warmup = stats.payload_bytes;
    if (round > 2) {
      EXPECT_LE(stats.payload_bytes, after_warmup * 13 / 10)
          << "round " << round;
    }
  }
  EXPECT_TRUE(Get("11:5").IsNotFound());
}

// Range pools only: their units take new key ranges.
class RangeExpiryTest : public ExpiryTest {};
INSTANTIATE_TEST_SUITE_P(Range, RangeExpiryTest,
                         ::testing::Values(Partitioning::kRange));

// Keys that move on and expire, as a cache's timestamps do: once a
// round's keys have all expired, the units of a range pool that held them
// are cleared whole and take the next rounds' ranges, with their
// directory blocks, instead of units that never held records — the pool
// stops growing after the first rounds.
TEST_P(RangeExpiryTest, UnitsOfExpiredKeysTakeTheKeysThatFollow) {
  Options o = PoolOptions();
  o.dram_directory_bits = 6;  // 64 units: all named after the first round
  db_.reset();
  std::remove(file_.path().c_str());
  ASSERT_OK(DB::Open(o, file_.path(), &db_));
  uint64_t used_after_warmup = 0;
  for (int round = 0; round < 12; ++round) {
    const uint64_t expiry = clock_->NowMs() + 1000;
    char key[32];
    for (int i = 0; i < 3000; ++i) {
      std::snprintf(key, sizeof key, "t%04d:%06d", round, i);
      ASSERT_OK(db_->Put(Until(expiry), key, "v"));
    }
    EXPECT_OK(Get(key));
    clock_->Advance(1001);
    EXPECT_TRUE(Get(key).IsNotFound());
    Stats stats;
    ASSERT_OK(db_->GetStats(&stats));
    // (Units that never held records are taken first, until round 5 or
    // so; without their reuse the pool then grows by a round's blocks a
    // round: 1.5x from round 5 to 11.)
    if (round == 5) used_after_warmup = stats.pool_used_bytes;
    if (round > 5) {
      EXPECT_LE(stats.pool_used_bytes, used_after_warmup * 5 / 4)
          << "round " << round;
    }
  }
  EXPECT_GT(MoreCount("expired_units_cleared"), 0u);
  EXPECT_TRUE(Scan().empty());
}

// A unit is cleared whole only when nothing it holds is live: rounds of
// keys that expire, and among them, every fifth round, keys that do not —
// written without an expiry (alone or in a batch), given a later expiry,
// made permanent, updated — against a model, across reopens (after which
// nothing is known of what the units hold until they are emptied). No
// background thread: no sweep empties the units first, and the splits of
// the units the rounds' keys grow in (DB::Rebalance every 30 writes) find
// them full of expired records.
TEST_P(RangeExpiryTest, OnlyUnitsWhoseRecordsAllExpiredAreCleared) {
  background_threads_ = 0;
  Options o = PoolOptions();
  o.dram_directory_bits = 5;
  db_.reset();
  std::remove(file_.path().c_str());
  ASSERT_OK(DB::Open(o, file_.path(), &db_));
  struct Record {
    std::string value;
    uint64_t expires_at_ms;
  };
  std::map<std::string, Record> model;
  auto live = [&](const Record& r) {
    return r.expires_at_ms == 0 || clock_->NowMs() <= r.expires_at_ms;
  };
  auto check = [&](int round) {
    for (const auto& [key, record] : model) {
      std::string value;
      const Status s = Get(key, &value);
      if (live(record)) {
        ASSERT_OK(s) << "round " << round << " key " << key;
        EXPECT_EQ(value, record.value) << key;
      } else {
        ASSERT_TRUE(s.IsNotFound()) << "round " << round << " key " << key;
      }
    }
  };
  auto key_of = [](int round, int i) {
    char key[32];
    std::snprintf(key, sizeof key, "r%04d:%05d", round, i);
    return std::string(key);
  };
  uint64_t cleared = 0;
  for (int round = 0; round < 30; ++round) {
    const uint64_t soon = clock_->NowMs() + 50;
    for (int i = 0; i < 300; ++i) {
      const std::string value = std::to_string(round * 1000 + i);
      ASSERT_OK(db_->Put(Until(soon), key_of(round, i), value));
      model[key_of(round, i)] = {value, soon};
      if (i % 30 == 29) {
        ASSERT_OK(db_->Rebalance());
      }
    }
    if (round % 5 == 0) {
      ASSERT_OK(db_->Put({}, key_of(round, 50), "no expiry"));
      model[key_of(round, 50)] = {"no expiry", 0};
      WriteBatch batch;
      batch.Put(key_of(round, 100), "batch");
      ASSERT_OK(db_->Write({}, &batch));
      model[key_of(round, 100)] = {"batch", 0};
      ASSERT_OK(db_->Expire(key_of(round, 150), soon + 100000));
      model[key_of(round, 150)].expires_at_ms = soon + 100000;
      ASSERT_OK(db_->Expire(key_of(round, 200), 0));
      model[key_of(round, 200)].expires_at_ms = 0;
      ASSERT_OK(db_->Update({}, key_of(round, 250),
                            [](const std::string* current, std::string* next) {
                              *next = *current + "+";
                              return DB::UpdateAction::kPut;
                            }));
      model[key_of(round, 250)].value += "+";  // keeps its expiry
    }
    ASSERT_NO_FATAL_FAILURE(check(round));
    clock_->Advance(51);
    ASSERT_NO_FATAL_FAILURE(check(round));
    if (round == 12 || round == 24) {
      cleared += MoreCount("expired_units_cleared");  // counts since Open
      Reopen();
      ASSERT_NO_FATAL_FAILURE(check(round));
    }
  }
  cleared += MoreCount("expired_units_cleared");
  EXPECT_GT(cleared, 10u) << "too few units cleared to prove anything";
}

// Compaction that meets an expired record of a unit whose records all
// expired empties the unit whole, rather than copy the record's key to
// keep hiding the key's older versions (which expired too).
TEST_P(RangeExpiryTest, CompactionEmptiesAUnitWhoseRecordsAllExpired) {
  background_threads_ = 0;  // no sweep, no re-balancing: compaction alone
  db_.reset();
  std::remove(file_.path().c_str());
  Open();
  const std::string value(200, 'v');
  // Unit 0 of 4 (first bytes below 0x40), in chunks of their own.
  for (int i = 0; i < 1200; ++i) {
    ASSERT_OK(db_->Put(Until(kStart + 10), "\x10" + std::to_string(i),
                       value));
  }
  ASSERT_OK(db_->Checkpoint(0));
  clock_->Advance(11);
  for (int i = 0; i < 3000; ++i)  // unit 3: rotations, and compactions
    ASSERT_OK(db_->Put({}, "\xC0" + std::to_string(i), value));
  Stats stats;
  ASSERT_OK(db_->GetStats(&stats));
  EXPECT_GT(stats.payload_gc_runs, 0u);
  EXPECT_EQ(stats.payload_gc_moved, 0u) << "expired keys copied";
  for (int i = 0; i < 1200; ++i)
    EXPECT_TRUE(Get("\x10" + std::to_string(i)).IsNotFound()) << i;
  for (int i = 0; i < 3000; i += 100)
    EXPECT_OK(Get("\xC0" + std::to_string(i)));
  Reopen();  // the unit stays empty
  EXPECT_TRUE(Get("\x10" + std::to_string(7)).IsNotFound());
  EXPECT_OK(Get("\xC0" + std::to_string(7)));
}

// A pool made for 8-byte records only has no payload logs, where expiry
// lives: writes with one are refused, and nothing is written.
TEST(ExpiryWithoutPayloadLogsTest, WritesWithAnExpiryAreRefused) {
  ScratchPool file("expiry_no_payload");
  Options o = Options::SmallProfile();
  o.payload_log_count = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  ASSERT_OK(db->Put({}, Word(1), Word(1)));
  WriteOptions until;
  until.expires_at_ms = kStart;
  for (const Status& s :
       {db->Put(until, Word(1), Word(2)), db->Expire(Word(1), kStart)}) {
    ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_EQ(s.message(),
              "this pool was created without payload logs "
              "(payload_log_count = 0): it stores 8-byte keys with 8-byte "
              "values only");
  }
  std::string value;
  ASSERT_OK(db->Get({}, Word(1), &value));
  EXPECT_EQ(FromWord(value), 1u);
  uint64_t expiry = 1;
  ASSERT_OK(db->GetExpiry(Word(1), &expiry));
  EXPECT_EQ(expiry, 0u);
}

// Expired records are as dead to the recovery logs as superseded ones: a
// log whose oldest chunk holds mostly expired records has their entries
// rewritten without them, rather than take storage for another chunk
// (docs/benchmarks.md, "Expiry": the logs of a cache stop growing).
// (No background thread: no sweep, only the logs' own recycling.)
TEST_P(ExpiryTest, ExpiredRecordsLetTheLogsRecycleByRewrites) {
  Options o = PoolOptions();
  o.background_threads = 0;
  o.dram_directory_bits = 4;  // 16 entries of 256 slots: room for all
  o.fanout_bits = 4;
  o.first_level_fanout_bits = 4;
  o.log_chunk_size = 8192;  // 2 logs of up to 16 chunks of ~340 records
  o.log_chunks_per_log = 16;
  o.range_rebalance = false;
  ScratchPool file("expiry_logs");
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, file.path(), &db));
  for (int round = 0; round < 15; ++round) {
    const uint64_t expiry = clock_->NowMs() + 10;
    for (int i = 0; i < 200; ++i) {
      // The first byte spreads the keys of a range pool over its units.
      std::string key(1, static_cast<char>(i % 16 << 4));
      key += std::to_string(round * 1000 + i);
      ASSERT_OK(db->Put(Until(expiry), key, "v"));
    }
    clock_->Advance(11);
  }
  Stats stats;
  ASSERT_OK(db->GetStats(&stats));
  EXPECT_EQ(stats.migrations, 0u);
  uint64_t rewrites = 0;
  for (const auto& [name, value] : stats.more_counts) {
    if (name == "dram_rewrites") rewrites = value;
  }
  EXPECT_GT(rewrites, 0u);
}

// The sweep takes expired records out of the DRAM level once they
// expire, without waiting for their entries to fill; what has not expired
// stays, with its expiry.
TEST_P(ExpiryTest, TheSweepTakesExpiredRecordsOutOfTheDramLevel) {
  roomy_dram_ = true;
  db_.reset();
  std::remove(file_.path().c_str());
  Open();
  for (int i = 0; i < 60; ++i) {
    const uint64_t expiry = i < 40 ? kStart + 10 : kStart + 1000;
    ASSERT_OK(db_->Put(Until(expiry), "key" + std::to_string(i), "v"));
  }
  ASSERT_OK(db_->Put({}, Word(1), Word(1)));
  ASSERT_EQ(DramRecords(), 61u);
  EXPECT_EQ(MoreCount("expiry_sweeps"), 0u);
  clock_->Advance(11);
  ASSERT_TRUE(test::Eventually([&] { return DramRecords() == 21; }))
      << DramRecords() << " records in the DRAM level";
  EXPECT_GT(MoreCount("expiry_sweeps"), 0u);
  uint64_t expiry = 0;
  for (int i = 0; i < 60; ++i) {
    const Status s = db_->GetExpiry("key" + std::to_string(i), &expiry);
    if (i < 40) {
      EXPECT_TRUE(s.IsNotFound()) << i;
    } else {
      ASSERT_OK(s) << i;
      EXPECT_EQ(expiry, kStart + 1000);
    }
  }
  Reopen();  // the records the sweep dropped stay dropped
  EXPECT_TRUE(Get("key0").IsNotFound());
  EXPECT_OK(Get("key59"));
  EXPECT_OK(Get(Word(1)));
}

uint64_t RecordsOnLevel(DB& db, size_t level) {
  Stats stats;
  EXPECT_OK(db.GetStats(&stats));
  return level < stats.records_per_level.size()
             ? stats.records_per_level[level]
             : 0;
}

// Records that expire after they migrated leave the PMem levels too, once
// they expire: the sweep empties the directory entries they filled, which
// their next migrations then refill. What expires later stays until then;
// after a reopen, the first sweep reads the levels to learn when that is.
TEST_P(ExpiryTest, TheSweepEmptiesPmemEntriesWhoseRecordsAllExpired) {
  for (int i = 0; i < 30; ++i)
    ASSERT_OK(db_->Put(Until(kStart + 10), "key" + std::to_string(i), "v"));
  ASSERT_OK(db_->Checkpoint(0));  // every record to PMem level 1
  ASSERT_EQ(RecordsOnLevel(*db_, 1), 30u);
  ASSERT_OK(db_->Put(Until(kStart + 1000), "kept", "v"));
  clock_->Advance(11);
  ASSERT_TRUE(test::Eventually([&] { return RecordsOnLevel(*db_, 1) == 0; }))
      << RecordsOnLevel(*db_, 1) << " records on level 1";
  EXPECT_GT(MoreCount("expiry_subtree_sweeps"), 0u);
  for (int i = 0; i < 30; ++i)
    EXPECT_TRUE(Get("key" + std::to_string(i)).IsNotFound()) << i;
  EXPECT_OK(Get("kept"));

  for (int i = 30; i < 40; ++i)
    ASSERT_OK(db_->Put(Until(kStart + 1000), "key" + std::to_string(i), "v"));
  ASSERT_OK(db_->Checkpoint(0));
  ASSERT_EQ(RecordsOnLevel(*db_, 1), 11u);
  Reopen();
  ASSERT_OK(db_->Put(Until(kStart + 1000), "late", "v"));  // starts the sweep
  std::this_thread::sleep_for(3 * ExpirySweeper::kInterval);
  EXPECT_EQ(RecordsOnLevel(*db_, 1), 11u);  // none expired yet
  for (int i = 30; i < 40; ++i) EXPECT_OK(Get("key" + std::to_string(i))) << i;
  clock_->Advance(1000);
  ASSERT_TRUE(test::Eventually([&] { return RecordsOnLevel(*db_, 1) == 0; }))
      << RecordsOnLevel(*db_, 1) << " records on level 1";
  EXPECT_TRUE(Get("key39").IsNotFound());
  EXPECT_TRUE(Get("kept").IsNotFound());
  Reopen();  // the entries emptied stay empty
  EXPECT_EQ(RecordsOnLevel(*db_, 1), 0u);
  EXPECT_TRUE(Get("key30").IsNotFound());
}

// Every key that is not 8 bytes long has the same hash: all of them share
// one directory entry on every level.
uint64_t OneHash(std::string_view) { return 0x5bd1e9955bd1e995ull; }

// An expired record still hides its key's older versions further down:
// the sweep leaves its entry as it is, else the older version would come
// back.
TEST_P(ExpiryTest, TheSweepKeepsAnExpiredRecordThatHidesAnOlderOne) {
  db_.reset();
  std::remove(file_.path().c_str());
  const InternalOptions colliding{.key_hash = OneHash};
  ASSERT_OK(OpenDB(PoolOptions(), colliding, file_.path(), &db_));
  ASSERT_OK(db_->Put({}, "key", "old"));
  ASSERT_OK(db_->Checkpoint(0));
  // Records of a later expiry, one migration each, until the level-1
  // entry overflowed and took "key" down to level 2.
  for (int i = 0; RecordsOnLevel(*db_, 2) == 0; ++i) {
    ASSERT_LT(i, 1000);
    ASSERT_OK(db_->Put(Until(kStart + 20), "f" + std::to_string(i), "v"));
    ASSERT_OK(db_->Checkpoint(0));
  }
  ASSERT_OK(db_->Put(Until(kStart + 10), "key", "new"));
  ASSERT_OK(db_->Checkpoint(0));
  const uint64_t on_level_1 = RecordsOnLevel(*db_, 1);
  ASSERT_GE(on_level_1, 1u);
  clock_->Advance(21);  // every record of level 1 expired
  std::this_thread::sleep_for(3 * ExpirySweeper::kInterval);
  EXPECT_TRUE(Get("key").IsNotFound());
  EXPECT_EQ(RecordsOnLevel(*db_, 1), on_level_1);
  db_.reset();
  ASSERT_OK(OpenDB(PoolOptions(), colliding, file_.path(), &db_));
  EXPECT_TRUE(Get("key").IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Partitionings, ExpiryTest,
                         ::testing::Values(Partitioning::kHash,
                                           Partitioning::kRange),
                         test::PartitioningName);

}  // namespace
}  // namespace plush
