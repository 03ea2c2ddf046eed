// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/background_work.h"

#include <chrono>

namespace plush {
namespace {

// An idle thread polls its queues this often for this long before it
// blocks: a writer that schedules work then needs no system call to wake
// it (a futex wake would cost the writer a microsecond or two — the very
// tail this work exists to remove). Only the first work after a long lull
// pays for a wake-up.
constexpr auto kPollInterval = std::chrono::microseconds(100);
constexpr unsigned kPollsBeforeBlocking = 100;

}  // namespace

BackgroundWork::BackgroundWork(table::LeveledTable* table,
                               pool::Allocator* allocator, unsigned threads)
    : table_(*table),
      allocator_(*allocator),
      thread_count_(threads),
      high_water_(table->high_water()) {}

void BackgroundWork::Start(log::RecoveryLogs* logs,
                           payload::PayloadLogs* payload,
                           RangeRebalancer* rebalancer) {
  if (thread_count_ == 0) return;
  logs_ = logs;
  payload_ = payload;
  rebalancer_ = rebalancer != nullptr && rebalancer->enabled() ? rebalancer
                                                               : nullptr;
  {
    MutexLock lock(&mu_);
    running_ = true;
  }
  for (unsigned i = 0; i < thread_count_; ++i) {
    threads_.emplace_back([this, i] {
      // Counting takes a walk of the levels: in the background, not in
      // Open (recovery time stays flat); until it ends, no unit is heavy.
      if (i == 0 && rebalancer_ != nullptr) rebalancer_->CountUnits();
      Run();
    });
  }
}

void BackgroundWork::Stop() {
  {
    MutexLock lock(&mu_);
    running_ = false;
    migrations_queued_.clear();
    recycles_queued_.clear();
  }
  work_ready_.NotifyAll();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void BackgroundWork::ScheduleMigration(uint64_t dram_index) {
  MutexLock lock(&mu_);
  if (!running_) return;
  migrations_queued_.push_back(dram_index);
  if (sleeping_ > 0) work_ready_.NotifyAll();
}

void BackgroundWork::ScheduleRecycling(unsigned log) {
  MutexLock lock(&mu_);
  if (!running_) return;
  recycles_queued_.push_back(log);
  if (sleeping_ > 0) work_ready_.NotifyAll();
}

void BackgroundWork::Run() {
  unsigned idle_polls = 0;
  mu_.Lock();  // (released around each piece of work)
  while (running_) {
    if (!recycles_queued_.empty()) {
      // First: a log that runs out of chunks stalls all its writers.
      const unsigned log = recycles_queued_.front();
      recycles_queued_.pop_front();
      mu_.Unlock();
      if (logs_->RecycleAhead(log).ok()) recycles_.Add(1);
      mu_.Lock();
      idle_polls = 0;
    } else if (!migrations_queued_.empty()) {
      const uint64_t d = migrations_queued_.front();
      migrations_queued_.pop_front();
      mu_.Unlock();
      MigrateIfAboveHighWater(d);
      mu_.Lock();
      idle_polls = 0;
    } else if (idle_polls < kPollsBeforeBlocking) {
      ++idle_polls;
      mu_.Unlock();
      std::this_thread::sleep_for(kPollInterval);
      mu_.Lock();
    } else {
      ++sleeping_;
      work_ready_.Wait(&mu_, [&]() REQUIRES(mu_) {
        return !running_ || !recycles_queued_.empty() ||
               !migrations_queued_.empty();
      });
      --sleeping_;
      idle_polls = 0;
    }
  }
  mu_.Unlock();
}

bool BackgroundWork::SplitDue(uint64_t dram_index, uint64_t incoming) const {
  return rebalancer_ != nullptr &&
         rebalancer_->SplitDue(dram_index, incoming);
}

// An error is met again by the inline path, as for migrations.
void BackgroundWork::SplitIfDue(uint64_t dram_index, uint64_t incoming) {
  if (!SplitDue(dram_index, incoming)) return;
  uint64_t moves = 0;
  if (rebalancer_->Rebalance(dram_index, {}, &moves, incoming).ok())
    (void)rebalancer_->RebalanceOverloaded(&moves);
}

void BackgroundWork::MigrateIfAboveHighWater(uint64_t dram_index) {
  // A unit of a range pool due a split (heavy, or its keys keep growing)
  // is split first (which migrates it).
  SplitIfDue(dram_index, /*incoming=*/0);
  SpinLockRef lock = table_.DramLock(dram_index);
  lock.lock();
  // A writer may have migrated the entry meanwhile (it filled before this
  // thread got to it): then there is nothing to do until it refills. A
  // unit a split retired is written no more (RangeRebalancer::Retired).
  if (table_.DramState(dram_index).size >= high_water_ &&
      !(rebalancer_ != nullptr && rebalancer_->Retired(dram_index)) &&
      table_.MigrateDram(dram_index).ok()) {
    migrations_.Add(1);
  }
  lock.unlock();
  // Migrations allocate most of the pool's space: make room for the next
  // ones before an allocation has to wait for the file to grow; and keep a
  // payload chunk ready for the next payload log that fills one.
  allocator_.GrowAhead();
  payload_->PrepareFreeChunk();
}

}  // namespace plush
