// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// kill -9 on the file back end (docs/reliability.md §2.2): an acknowledged
// write survives the death of its process at once.
//
// Each round forks a child that opens (and so recovers) the pool and runs a
// multi-threaded mix of puts, overwrites and deletes of 8-byte keys until
// the parent SIGKILLs it at a random moment — sometimes while it is still
// recovering. The child reports through a pipe, in the manner of RocksDB's
// expected state: "pending" just before each call, "acked" after it
// returned OK. Every thread owns its keys, so a key has at most one
// operation in flight. The parent then recovers the pool itself and checks:
//
//   * a key holds its last acknowledged state, or the state its pending
//     operation would give it (the kill may have come either side of it);
//   * hence acknowledged deletes stay deleted and no value appears that
//     was never written (every value written is unique);
//   * Verify() is clean.
//
// What it read becomes the expected state of the next round, on the same
// pool. Two deliberately wrong set-ups prove that the checker can fail: a
// writer that skips the log while claiming durability, and an oracle that
// counts in-flight operations as acknowledged.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "testutil.h"

namespace plush::test {
namespace {

using Clock = std::chrono::steady_clock;

// One message from the child; written with one write() of fewer than
// PIPE_BUF bytes, so a kill never leaves half of one in the pipe.
struct Msg {
  enum Type : uint32_t { kReady, kPending, kAcked, kStats, kError };
  Type type;
  uint32_t is_delete;  // kPending
  uint64_t key;        // kPending, kAcked; kError: what failed
  uint64_t value;      // kPending put; kStats: migrations; kError: status code
  uint64_t extra;      // kStats: log compactions
};
static_assert(sizeof(Msg) == 32 && sizeof(Msg) < PIPE_BUF);

struct KeyState {
  bool present = false;
  uint64_t value = 0;
  bool operator==(const KeyState&) const = default;
  std::string ToString() const {
    return present ? std::to_string(value) : "absent";
  }
};

struct Expected {
  KeyState acked;
  std::optional<KeyState> pending;  // the operation in flight, if any
};

struct KillConfig {
  const char* name;
  Options options;
  unsigned threads;
  uint64_t keys_per_thread;
  int rounds;
  int soak_rounds;
  // Deliberately wrong set-ups (see the header comment).
  bool unlogged_writer = false;
  bool claim_pending_acked = false;
};

// Tiny table, two recovery logs of three 4 KiB chunks: a few hundred writes
// migrate to several levels and recycle log chunks.
KillConfig SmallConfig() {
  return {"small", Options::SmallProfile(), 4, 150, 24, 1500};
}

// 64 DRAM entries, fanout 4, a preallocated first level and four logs of
// four 16 KiB chunks: more levels, larger migrations, 10000 keys.
KillConfig LargerConfig() {
  Options o = Options::SmallProfile();
  o.dram_directory_bits = 6;
  o.fanout_bits = 2;
  o.first_level_fanout_bits = 2;
  o.preallocated_levels = 1;
  o.log_count = 4;
  o.log_chunk_size = 16 << 10;
  o.log_chunks_per_log = 4;
  return {"larger", o, 4, 2500, 16, 1000};
}

void Send(int fd, const Msg& m) {
  // Only EINTR can interrupt a blocking pipe write of < PIPE_BUF bytes.
  while (write(fd, &m, sizeof(m)) < 0 && errno == EINTR) {
  }
}

[[noreturn]] void Fail(int fd, uint64_t what, const Status& s) {
  Send(fd, {Msg::kError, 0, what, static_cast<uint64_t>(s.code()), 0});
  _exit(3);
}

// The child: recover, then write until killed. `expected` is the state the
// parent established (inherited through fork); each thread checks its own
// keys' reads against it, since nobody else writes them.
[[noreturn]] void ChildMain(const KillConfig& cfg, const std::string& path,
                            int round, std::vector<Expected> expected, int fd) {
  std::unique_ptr<DB> db;
  if (Status s = DB::Open(cfg.options, path, &db); !s.ok()) Fail(fd, 0, s);
  Send(fd, {Msg::kReady, 0, 0, 0, 0});
  WriteOptions wo;
  wo.log = !cfg.unlogged_writer;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < cfg.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(round * 1000 + t);
      for (uint64_t seq = 1;; ++seq) {
        const uint64_t key = t + cfg.threads * (rng() % cfg.keys_per_thread);
        const unsigned dice = rng() % 100;
        KeyState& mine = expected[key].acked;
        if (dice < 20) {
          std::string v;
          const Status s = db->Get({}, Word(key), &v);
          if (!(s.ok() || s.IsNotFound())) Fail(fd, 1, s);
          if (KeyState{s.ok(), s.ok() ? FromWord(v) : 0} != mine) {
            Fail(fd, 2, Status::Corruption("read of an own key differs"));
          }
          continue;
        }
        const bool del = dice < 45;
        // Unique: round, thread and sequence number.
        const uint64_t value =
            uint64_t(round + 1) << 48 | uint64_t{t} << 40 | seq;
        Send(fd, {Msg::kPending, del, key, value, 0});
        const Status s = del ? db->Delete(wo, Word(key))
                             : db->Put(wo, Word(key), Word(value));
        if (!s.ok()) Fail(fd, 3, s);
        Send(fd, {Msg::kAcked, 0, key, 0, 0});
        mine = {!del, del ? 0 : value};
      }
    });
  }
  // Checkpoints move the DRAM level to PMem while the writers run; stats
  // tell the parent that migrations and log recycling really happen.
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    if (Status s = db->Checkpoint(); !s.ok()) Fail(fd, 4, s);
    Stats st;
    if (db->GetStats(&st).ok())
      Send(fd, {Msg::kStats, 0, 0, st.migrations, st.log_compactions});
  }
}

struct Totals {
  int kills = 0;
  int kills_in_recovery = 0;
  uint64_t acked = 0;
  uint64_t in_flight = 0;  // pending at a kill
  uint64_t migrations = 0;
  uint64_t log_compactions = 0;
  double max_recovery_ms = 0;
};

class KillRunner {
 public:
  explicit KillRunner(const KillConfig& cfg)
      : cfg_(cfg), expected_(cfg.threads * cfg.keys_per_thread), rng_(17) {}

  // Runs one kill round; returns "" or the first failure.
  std::string Round(int round) {
    int fds[2];
    if (pipe(fds) != 0) return "pipe failed";
    const Clock::time_point start = Clock::now();
    const pid_t pid = ForkTestChild();
    if (pid == 0) {
      close(fds[0]);
      ChildMain(cfg_, pool_.path(), round, expected_, fds[1]);
    }
    close(fds[1]);
    // Every fourth round aims at recovery itself; the others at the workload.
    const double recovery_ms = ready_ms_ > 0 ? ready_ms_ : 5;
    const double delay_ms =
        round % 4 == 3
            ? std::uniform_real_distribution<>(0, recovery_ms)(rng_)
            : recovery_ms + std::uniform_real_distribution<>(5, 120)(rng_);
    bool ready = false;
    uint64_t migrations = 0;
    uint64_t compactions = 0;
    std::string error;
    std::string buffer;
    auto consume = [&](bool block_until_eof) {
      char chunk[4096];
      for (;;) {
        const Clock::time_point deadline =
            start +
            std::chrono::microseconds(static_cast<int64_t>(delay_ms * 1000));
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - Clock::now())
                              .count();
        pollfd p{fds[0], POLLIN, 0};
        if (!block_until_eof &&
            (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0))
          return;
        const ssize_t n = read(fds[0], chunk, sizeof(chunk));
        if (n <= 0) return;  // EOF: the child is gone
        buffer.append(chunk, static_cast<size_t>(n));
        size_t used = 0;
        for (; used + sizeof(Msg) <= buffer.size(); used += sizeof(Msg)) {
          Msg m;
          std::memcpy(&m, buffer.data() + used, sizeof(m));
          switch (m.type) {
            case Msg::kReady:
              ready = true;
              ready_ms_ = std::chrono::duration<double, std::milli>(
                              Clock::now() - start)
                              .count();
              break;
            case Msg::kPending:
              expected_[m.key].pending =
                  KeyState{!m.is_delete, m.is_delete ? 0 : m.value};
              break;
            case Msg::kAcked:
              if (!expected_[m.key].pending) {
                error = "an ack without a pending operation";
                break;
              }
              expected_[m.key].acked = *expected_[m.key].pending;
              expected_[m.key].pending.reset();
              ++totals_.acked;
              break;
            case Msg::kStats:
              migrations = m.value;
              compactions = m.extra;
              break;
            case Msg::kError:
              error = "child failed (step " + std::to_string(m.key) +
                      ", status code " + std::to_string(m.value) + ")";
              break;
          }
        }
        buffer.erase(0, used);
      }
    };
    consume(false);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    consume(true);  // what the child wrote before it died
    close(fds[0]);
    if (!error.empty()) return error;
    if (!buffer.empty()) return "a message was torn";
    if (!WIFSIGNALED(status)) return "the child exited by itself";
    ++totals_.kills;
    totals_.kills_in_recovery += !ready;
    totals_.migrations += migrations;
    totals_.log_compactions += compactions;
    return RecoverAndCheck();
  }

  const Totals& totals() const { return totals_; }

 private:
  // Recovers the pool and compares it with the expected state, which then
  // becomes what was read (the in-flight operations are resolved).
  std::string RecoverAndCheck() {
    std::unique_ptr<DB> db;
    const Status open = DB::Open(cfg_.options, pool_.path(), &db);
    if (!open.ok()) return "recovery failed: " + open.ToString();
    Stats st;
    if (db->GetStats(&st).ok()) {
      totals_.max_recovery_ms =
          std::max(totals_.max_recovery_ms, st.recovery_seconds * 1000);
    }
    std::string failure;
    for (uint64_t key = 0; key < expected_.size(); ++key) {
      Expected& e = expected_[key];
      if (cfg_.claim_pending_acked && e.pending) e = {*e.pending, std::nullopt};
      std::string v;
      const Status s = db->Get({}, Word(key), &v);
      if (!s.ok() && !s.IsNotFound()) return "Get: " + s.ToString();
      const KeyState got{s.ok(), s.ok() ? FromWord(v) : 0};
      totals_.in_flight += e.pending.has_value();
      if (got != e.acked && (!e.pending || got != *e.pending) &&
          failure.empty()) {
        failure = "key " + std::to_string(key) + ": got " + got.ToString() +
                  ", acknowledged " + e.acked.ToString() +
                  (e.pending ? ", in flight " + e.pending->ToString()
                             : std::string());
      }
      e = {got, std::nullopt};
    }
    if (!failure.empty()) return failure;
    std::string report;
    if (Status v = db->Verify(&report); !v.ok())
      return "Verify: " + v.ToString() + "\n" + report;
    return "";
  }

  const KillConfig cfg_;
  ScratchPool pool_{"kill"};
  std::vector<Expected> expected_;
  std::mt19937_64 rng_;
  double ready_ms_ = 0;
  Totals totals_;
};

void Report(const char* name, const Totals& t) {
  std::printf(
      "[kill] %s: %d kills survived (%d during recovery), %llu acknowledged "
      "ops, "
      "%llu in flight at a kill, >= %llu migrations, >= %llu log compactions, "
      "recovery <= %.1f ms, 0 failures\n",
      name, t.kills, t.kills_in_recovery,
      static_cast<unsigned long long>(t.acked),
      static_cast<unsigned long long>(t.in_flight),
      static_cast<unsigned long long>(t.migrations),
      static_cast<unsigned long long>(t.log_compactions), t.max_recovery_ms);
}

class KillTest : public ::testing::TestWithParam<KillConfig> {};

TEST_P(KillTest, AcknowledgedWritesSurviveKillNine) {
  const KillConfig& cfg = GetParam();
  KillRunner runner(cfg);
  const int rounds = Soak() ? cfg.soak_rounds : cfg.rounds;
  for (int round = 0; round < rounds; ++round) {
    const std::string failure = runner.Round(round);
    ASSERT_EQ(failure, "") << cfg.name << " round " << round;
  }
  Report(cfg.name, runner.totals());
  EXPECT_EQ(runner.totals().kills, rounds);
  EXPECT_GT(runner.totals().acked, 1000u * rounds / 2)
      << "the workload barely ran";
  EXPECT_GT(runner.totals().migrations, 0u);
  EXPECT_GT(runner.totals().log_compactions, 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, KillTest,
                         ::testing::Values(SmallConfig(), LargerConfig()),
                         [](const auto& p) {
                           return std::string(p.param.name);
                         });

// A writer that skips the recovery log (WriteOptions::log = false) but
// reports its writes as acknowledged loses them in a crash, which the
// checker must notice.
TEST(KillCheckerTest, DetectsAWriterThatSkipsTheLog) {
  KillConfig cfg = LargerConfig();
  cfg.unlogged_writer = true;
  KillRunner runner(cfg);
  std::string failure;
  for (int round = 0; round < 5 && failure.empty(); ++round)
    failure = runner.Round(round);
  EXPECT_NE(failure, "") << "lost unlogged writes went unnoticed";
  std::printf("[kill] unlogged writer caught: %s\n",
              failure.substr(0, 120).c_str());
}

// An oracle that counts in-flight operations as acknowledged must report
// the kills that came before an operation took effect.
TEST(KillCheckerTest, DetectsAnOracleThatCountsInFlightOpsAsAcked) {
  KillConfig cfg = SmallConfig();
  cfg.claim_pending_acked = true;
  KillRunner runner(cfg);
  std::string failure;
  for (int round = 0; round < 40 && failure.empty(); ++round)
    failure = runner.Round(round);
  EXPECT_NE(failure, "") << "an in-flight operation was never lost in 40 kills";
  std::printf("[kill] wrong oracle caught: %s\n",
              failure.substr(0, 120).c_str());
}

}  // namespace
}  // namespace plush::test
