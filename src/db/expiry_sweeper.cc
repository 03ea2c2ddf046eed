// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/expiry_sweeper.h"

#include <limits>

namespace plush {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// A rewrite that found no room in its log is tried again this much later.
constexpr uint64_t kRetryMs = 100;

}  // namespace

ExpirySweeper::ExpirySweeper(table::LeveledTable* table,
                             EntryRewriter* rewriter, WritePath* write_path,
                             const Clock* clock, bool enabled)
    : table_(*table),
      rewriter_(*rewriter),
      write_path_(*write_path),
      clock_(*clock),
      enabled_(enabled),
      due_(enabled ? new std::atomic<uint64_t>[table->dram_entries()]
                   : nullptr) {
  for (uint64_t d = 0; enabled && d < table->dram_entries(); ++d)
    due_[d].store(kNever, std::memory_order_relaxed);
}

void ExpirySweeper::Note(uint64_t d, uint64_t expires_at_ms) {
  if (!enabled_ || expires_at_ms == 0) return;
  // The entry pays a rewrite no sooner than this record expires; an
  // earlier due time stands (the rewrite then learns of this record).
  uint64_t due = due_[d].load(std::memory_order_relaxed);
  while (expires_at_ms < due &&
         !due_[d].compare_exchange_weak(due, expires_at_ms,
                                        std::memory_order_relaxed)) {
  }
  std::call_once(started_, [this] {
    MutexLock lock(&mu_);
    if (!stopping_) thread_ = std::thread([this] { Run(); });
  });
}

void ExpirySweeper::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  stop_requested_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void ExpirySweeper::Run() {
  mu_.Lock();  // (released around each sweep)
  while (!stop_requested_.WaitFor(&mu_, kInterval,
                                  [&]() REQUIRES(mu_) { return stopping_; })) {
    mu_.Unlock();
    SweepDue(clock_.NowMs());
    mu_.Lock();
  }
  mu_.Unlock();
}

void ExpirySweeper::SweepDue(uint64_t now_ms) {
  for (uint64_t d = 0; d < table_.dram_entries(); ++d) {
    // (Strictly after: a record is there up to its expiry.)
    if (table_.SubtreeDueMs(d) < now_ms && !SweepSubtree(d)) return;
    if (due_[d].load(std::memory_order_relaxed) < now_ms &&
        !SweepDram(d, now_ms)) {
      return;
    }
  }
}

bool ExpirySweeper::SweepSubtree(uint64_t d) {
  table::LeveledTable::SubtreeSweep sweep;
  while (!sweep.done) {
    const Status s = write_path_.WithEntryLocked(d, [&](uint64_t) {
      // A halted pool holds a batch applied in part: it changes no more.
      Status halted = write_path_.Halted();
      if (!halted.ok()) return halted;
      table_.SweepSubtree(d, &sweep);
      return Status::OK();
    });
    if (!s.ok()) return false;
  }
  subtree_sweeps_.Add(sweep.emptied);
  return true;
}

bool ExpirySweeper::SweepDram(uint64_t d, uint64_t now_ms) {
  // Cleared before the rewrite looks: a note that comes meanwhile is of a
  // record the rewrite may not see, and stands.
  due_[d].store(kNever, std::memory_order_relaxed);
  uint64_t next = kNever;
  // A log chunk too full for the entry's survivors is rotated, without
  // the lock, and the rewrite tried once more; then it waits a sweep.
  for (int attempt = 0; attempt < 2; ++attempt) {
    EntryRewriter::Outcome o{};
    const Status s = write_path_.WithEntryLocked(d, [&](uint64_t) {
      // A halted pool holds a batch applied in part: nothing may log it.
      Status halted = write_path_.Halted();
      if (!halted.ok()) return halted;
      o = rewriter_.Rewrite(d, /*sample=*/false);
      return Status::OK();
    });
    if (!s.ok()) return false;  // closed or halted: no more rewrites
    if (o.result == EntryRewriter::Result::kRewritten) sweeps_.Add(1);
    next = o.result == EntryRewriter::Result::kNoRoom ? now_ms + kRetryMs
                                                      : o.due_ms;
    if (o.result != EntryRewriter::Result::kNoRoom ||
        !rewriter_.MakeRoom(d, o.chunk_seen).ok()) {
      break;
    }
  }
  uint64_t due = due_[d].load(std::memory_order_relaxed);
  while (next < due && !due_[d].compare_exchange_weak(
                           due, next, std::memory_order_relaxed)) {
  }
  return true;
}

}  // namespace plush
