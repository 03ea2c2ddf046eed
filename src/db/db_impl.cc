// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/db_impl.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "db/open_db.h"
#include "util/key_hasher.h"

namespace plush {
namespace {

Status ClosedError() { return Status::InvalidArgument("the DB is closed"); }

Status KeyTooLarge(std::string_view key) {
  return Status::InvalidArgument("key of " + std::to_string(key.size()) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(kMaxKeySize));
}

uint64_t Word(std::string_view bytes) {
  uint64_t w;
  std::memcpy(&w, bytes.data(), sizeof(w));
  return w;
}

unsigned ThreadsOr(unsigned requested) {
  return requested != 0 ? requested
                        : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

Status DB::Open(const Options& options, const std::string& path,
                std::unique_ptr<DB>* db) {
  return DBImpl::Open(options, InternalOptions(), path, db);
}

Status OpenDB(const Options& options, const InternalOptions& internal,
              const std::string& path, std::unique_ptr<DB>* db) {
  return DBImpl::Open(options, internal, path, db);
}

DBImpl::DBImpl(const Options& options) : options_(options) {}

DBImpl::~DBImpl() {
  // A DB whose Open() failed has nothing to close, and must not write to a
  // pool it may have judged damaged.
  if (opened_) (void)Close();
}

Status DBImpl::Open(const Options& options, const InternalOptions& internal,
                    const std::string& path, std::unique_ptr<DB>* db) {
  db->reset();
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<DBImpl> impl(new DBImpl(options));
  bool created = false;
  Status s = pool::Pool::Open(options, internal, path, &impl->pool_, &created,
                              log::RecoveryLogs::Format);
  if (!s.ok()) return s;
  // Asking for ordered scans of a pool that cannot give them is a mistake
  // to report, not to pass over. (Other creation parameters only tune
  // speed and space: the pool's own apply, and Options documents that.)
  if (!created && options.partitioning == Partitioning::kRange &&
      impl->pool_->params().partitioning != Partitioning::kRange) {
    return Status::InvalidArgument(
        "pool '" + path +
        "' is hash-partitioned; Options::partitioning = kRange applies only "
        "when a pool is created (convert with plush dump | plush load)");
  }
  s = table::LeveledTable::Open(impl->pool_.get(), &impl->table_);
  if (!s.ok()) return s.WithContext("pool '" + path + "'");
  s = payload::PayloadLogs::Open(impl->pool_.get(),
                                 static_cast<payload::PayloadHost*>(impl.get()),
                                 &impl->payload_);
  if (!s.ok()) return s.WithContext("pool '" + path + "'");
  if (impl->payload_->enabled())
    impl->table_->set_resolver(impl->payload_.get());
  // A new pool's first log appends then take no page faults. (Reopening
  // does not pre-fault: ~70 ms for the default 256 MiB of logs would add
  // to every recovery; the pages fault in as the logs are written.)
  if (created) {
    impl->pool_->media().Prefault(pool::kLogRegionOffset,
                                  impl->pool_->params().log_region_size());
  }
  impl->logs_ = std::make_unique<log::RecoveryLogs>(
      impl->pool_.get(), static_cast<log::LogHost*>(impl.get()));
  if (!created) {
    s = impl->Recover();
    if (!s.ok()) return s.WithContext("recovering pool '" + path + "'");
    // Everything Open() did for an existing pool counts: DRAM filters are
    // rebuilt when the table is opened, the logs replayed here.
    impl->recovery_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  // Everything above only read the pool; from here on it is in use.
  impl->logs_->ZeroInvalidSlots();
  impl->payload_->FinishOpen();
  impl->opened_ = true;
  *db = std::move(impl);
  return Status::OK();
}

// Replays the recovery logs into the DRAM level (paper §5.4). A log record
// whose epoch is not above the epoch of its level-1 entry is already on
// PMem. Replay makes no migrations and writes no log entries, so a crash
// during recovery leaves the pool as it was: recovery is idempotent.
Status DBImpl::Recover() {
  const uint64_t entries = table_->dram_entries();
  // The epochs of each DRAM entry's children, read once and in order: most
  // log records are decided by them alone. Only a record between the two
  // (a crash interrupted that entry's migration) needs its own child's
  // epoch, a random read. This keeps recovery independent of level 1's
  // size.
  std::vector<std::pair<uint64_t, uint64_t>> child_epochs(entries);
  for (uint64_t d = 0; d < entries; ++d)
    child_epochs[d] = table_->ChildEpochRange(d);
  std::vector<uint64_t> max_replayed(entries, 0);
  auto replay = [&](unsigned, const log::LogRecord& r) -> Status {
    const uint64_t hash = RecordHash(r);
    const uint64_t d = table_->DramIndex(hash);
    const auto [min_child, max_child] = child_epochs[d];
    if (r.epoch <= min_child ||
        (r.epoch <= max_child && r.epoch <= table_->FirstLevelEpoch(hash))) {
      return Status::OK();  // already on PMem
    }
    // A record whose payload entry is torn was in flight at the crash (its
    // log append and its payload entry share one fence), or its chunk was
    // compacted after a newer version was written: either way not the
    // key's current version.
    if (r.indirect && !payload_->EntryIsIntact(r.value, r.key))
      return Status::OK();
    // Logs partition the DRAM entries, so each entry is touched by one
    // recovery thread only.
    max_replayed[d] = std::max(max_replayed[d], r.epoch);
    return table_->RecoverIntoDram(d, hash,
                                   {r.key, r.value, r.tombstone, r.indirect});
  };
  Status s = logs_->Recover(ThreadsOr(options_.recovery_threads), replay,
                            &recovered_entries_);
  if (!s.ok()) return s;
  // A DRAM entry resumes above every epoch its children or its replayed
  // records carry: later log entries must not look migrated, and the next
  // migration must cover the replayed records.
  for (uint64_t d = 0; d < entries; ++d) {
    table_->SetDramEpoch(d,
                         std::max(child_epochs[d].second + 1, max_replayed[d]));
  }
  return Status::OK();
}

template <typename Prepare>
Status DBImpl::Write(const WriteOptions& options, uint64_t hash,
                     Prepare prepare) {
  const uint64_t d = table_->DramIndex(hash);
  const unsigned log = static_cast<unsigned>(d % logs_->log_count());
  table_->PrefetchDram(d);
  for (;;) {
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    // Checked under the lock: Close() takes every lock after setting the
    // flag, so no write starts after Close() has passed its entry.
    if (closed()) {
      lock.unlock();
      return ClosedError();
    }
    table::Slot slot;
    bool skip = false;
    Status s = prepare(d, &slot, &skip);
    if (s.ok() && !skip && table_->DramFull(d)) s = table_->MigrateDram(d);
    if (!s.ok() || skip) {
      lock.unlock();
      return s;
    }
    // The slot's lines load while the log append waits for its fence.
    table_->PrefetchDramSlot(d, hash);
    if (options.log) {
      const log::LogRecord record{slot.key, slot.value,
                                  table_->DramState(d).epoch, slot.tombstone,
                                  slot.indirect};
      uint32_t chunk_seen = 0;
      if (!logs_->TryAppend(log, record, &chunk_seen)) {
        // Rotating may migrate DRAM entries: never while holding a lock.
        lock.unlock();
        s = logs_->Rotate(log, chunk_seen);
        if (!s.ok()) return s;
        continue;
      }
    }
    table_->InsertDram(d, hash, slot, options.log);
    lock.unlock();
    return Status::OK();
  }
}

Status DBImpl::WriteSlot(const WriteOptions& options, uint64_t hash,
                         const table::Slot& slot) {
  return Write(options, hash, [&](uint64_t, table::Slot* out, bool*) {
    *out = slot;
    return Status::OK();
  });
}

Status DBImpl::WritePayload(const WriteOptions& options, std::string_view key,
                            std::string_view value, bool tombstone) {
  const uint64_t hash = table_->hasher().Hash(key);
  uint64_t ref = 0;
  payload::PayloadLogs::Ticket ticket;  // until the reference is published
  Status s = payload_->Append(key, hash, value, &ref, &ticket);
  if (!s.ok()) return s;
  // A logged write's fence (its log append) covers the entry. An unlogged
  // one is published without a fence of its own, and a migration by
  // another thread cannot persist this thread's flushes: fence here.
  if (!options.log) pool_->media().Drain();
  return WriteSlot(options, hash, {hash, ref, tombstone, true});
}

Status DBImpl::CheckWritable() const {
  if (closed()) return ClosedError();
  const media::Media& m = pool_->media();
  return m.failed() ? m.sticky_error() : Status::OK();
}

Status DBImpl::Put(const WriteOptions& options, std::string_view key,
                   std::string_view value) {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  if (key.size() > kMaxKeySize) return KeyTooLarge(key);
  if (value.size() > kMaxValueSize) {
    return Status::InvalidArgument(
        "value of " + std::to_string(value.size()) +
        " bytes exceeds the limit of " + std::to_string(kMaxValueSize));
  }
  s = key.size() == 8 && value.size() == 8
          ? WriteSlot(options, table_->hasher().InlineHash(Word(key)),
                      {Word(key), Word(value), false, false})
          : WritePayload(options, key, value, /*tombstone=*/false);
  if (s.ok()) user_bytes_.Add(key.size() + value.size());
  return s;
}

Status DBImpl::Delete(const WriteOptions& options, std::string_view key) {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  if (key.size() > kMaxKeySize) return KeyTooLarge(key);
  // An 8-byte key's tombstone is inline; it hides the key's older
  // versions whether they are inline or in the payload logs.
  s = key.size() == 8
          ? WriteSlot(options, table_->hasher().InlineHash(Word(key)),
                      {Word(key), 0, true, false})
          : WritePayload(options, key, {}, /*tombstone=*/true);
  if (s.ok()) user_bytes_.Add(key.size());
  return s;
}

Status DBImpl::Get(const ReadOptions&, std::string_view key,
                   std::string* value) {
  if (closed()) return ClosedError();
  if (key.size() > kMaxKeySize) return KeyTooLarge(key);
  const table::LookupKey lookup =
      table::LookupKey::For(key, table_->hasher().Hash(key));
  switch (table_->Get(lookup, value)) {
    case table::Found::kValue:
      return Status::OK();
    case table::Found::kDamaged:
      return Status::Corruption(
          "the newest version of the key references a payload entry of "
          "another key");
    default:
      return Status::NotFound("key not found");
  }
}

uint64_t DBImpl::UnitOf(std::string_view key) const {
  return table_->DramIndex(table_->hasher().Hash(key));
}

// Under the DRAM entry's lock nothing moves in its subtree, and a payload
// entry that one of its slots references stays readable unless a newer
// version of the same key (then also in the subtree) superseded it and its
// chunk was compacted: such a dangling slot is simply left out. The lock
// is held while payloads are copied, so that no newest version can become
// dangling meanwhile (compaction relocates a key's newest version under
// the same lock).
Status DBImpl::ReadUnit(uint64_t unit, std::string_view lower_bound,
                        ScanBatch* batch) {
  thread_local std::vector<table::Slot> slots;
  thread_local std::string key;
  thread_local std::string value;
  slots.clear();
  // Most keys are told from the bound by their first 8 bytes alone.
  const uint64_t bound_prefix = KeyPrefix(lower_bound);
  auto at_or_above_bound = [&](std::string_view k) {
    const uint64_t prefix = KeyPrefix(k);
    return prefix != bound_prefix ? prefix > bound_prefix : k >= lower_bound;
  };
  SpinLockRef lock = table_->DramLock(unit);
  lock.lock();
  Status s = closed() ? ClosedError() : table_->CollectSubtree(unit, &slots);
  for (size_t i = 0; s.ok() && i < slots.size(); ++i) {
    const table::Slot& slot = slots[i];
    if (!slot.indirect) {
      const std::string_view inline_key(
          reinterpret_cast<const char*>(&slot.key), 8);
      if (at_or_above_bound(inline_key)) {
        batch->Add(inline_key,
                   std::string_view(reinterpret_cast<const char*>(&slot.value),
                                    slot.tombstone ? 0 : 8),
                   slot.tombstone);
      }
    } else if (payload_->ReadEntry(slot.value, &key, &value) &&
               at_or_above_bound(key)) {
      batch->Add(key, value, slot.tombstone);
    }
  }
  lock.unlock();
  return s;
}

namespace {

// The iterator of a pool that cannot be scanned in order.
class UnsupportedIterator final : public Iterator {
 public:
  explicit UnsupportedIterator(Status status) : status_(std::move(status)) {}
  bool Valid() const override { return false; }
  void Seek(std::string_view) override {}
  void SeekToFirst() override {}
  void Next() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

}  // namespace

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions&) {
  if (closed()) return std::make_unique<UnsupportedIterator>(ClosedError());
  if (!table_->hasher().range()) {
    return std::make_unique<UnsupportedIterator>(Status::NotSupported(
        "ordered iteration needs a range-partitioned pool (this one is "
        "hash-partitioned)"));
  }
  return std::make_unique<RangeIterator>(static_cast<ScanSource*>(this));
}

Status DBImpl::CheckpointRange(uint64_t first, uint64_t end) {
  for (uint64_t d = first; d < end; ++d) {
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    Status s = closed()                        ? ClosedError()
               : table_->DramState(d).size > 0 ? table_->MigrateDram(d)
                                               : Status::OK();
    lock.unlock();
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DBImpl::Checkpoint(unsigned threads) {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  const uint64_t entries = table_->dram_entries();
  const uint64_t n = std::min<uint64_t>(ThreadsOr(threads), entries);
  std::vector<Status> results(n);
  std::vector<std::thread> workers;
  for (uint64_t t = 1; t < n; ++t) {
    workers.emplace_back([&, t] {
      results[t] = CheckpointRange(entries * t / n, entries * (t + 1) / n);
    });
  }
  results[0] = CheckpointRange(0, entries / n);
  for (std::thread& w : workers) w.join();
  for (Status& r : results) {
    if (!r.ok()) return r;
  }
  return pool_->media().Sync();
}

Status DBImpl::Sync() {
  if (closed()) return ClosedError();
  return pool_->media().Sync();
}

Status DBImpl::Verify(std::string* report) {
  if (closed()) return ClosedError();
  std::string problems;
  uint64_t n = pool_->Verify(&problems);
  n += table_->Verify(&problems);
  n += logs_->Verify(&problems);
  n += payload_->Verify(&problems);
  if (report != nullptr) *report += problems;
  if (n == 0) return Status::OK();
  return Status::Corruption(std::to_string(n) + " problem(s), first: " +
                            problems.substr(0, problems.find('\n')));
}

Status DBImpl::GetStats(Stats* stats) {
  if (closed()) return ClosedError();
  const media::Media& m = pool_->media();
  *stats = Stats();
  stats->backend = m.KindName();
  stats->power_fail_durable = m.power_fail_durable();
  stats->guarantee = m.Guarantee();
  stats->granularity = m.GranularityName();
  stats->format_version = kFormatVersion;
  stats->partitioning = table_->hasher().range() ? "range" : "hash";
  stats->dram_bytes = table_->dram_bytes() + sizeof(*this);
  stats->pool_bytes = m.size();
  stats->pool_used_bytes = pool_->allocator().used_bytes();
  stats->levels = table_->level_count();
  stats->records_per_level = table_->RecordsPerLevel();
  stats->migrations = table_->migrations();
  stats->log_compactions = logs_->compactions();
  stats->log_forced_migrations = logs_->forced_migrations();
  stats->payload_chunks = payload_->chunks();
  stats->payload_bytes = payload_->chunks() * payload_->chunk_size();
  stats->payload_gc_runs = payload_->gc_runs();
  stats->payload_gc_moved = payload_->gc_moved();
  stats->payload_gc_skipped = payload_->gc_skipped();
  stats->persist_calls = m.persist_calls();
  stats->flushed_lines = m.flushed_lines();
  stats->user_bytes_written = user_bytes_.Read();
  if (const media::WriteAmpProbe* probe = pool_->write_amp_probe()) {
    stats->media_bytes_written = probe->MediaBytes();
    if (stats->user_bytes_written > 0) {
      stats->media_write_amp = static_cast<double>(stats->media_bytes_written) /
                               static_cast<double>(stats->user_bytes_written);
    }
  }
  stats->recovery_seconds = recovery_seconds_;
  stats->recovered_log_entries = recovered_entries_;
  return Status::OK();
}

// Close() stops every writer (they check the flag under their DRAM entry
// lock, and Close() passes through every lock and every log's rotation
// mutex after setting it), makes the unlogged writes durable by migrating
// the DRAM entries that hold them, syncs, and releases the pool lock.
// Readers are never blocked: one that started before Close() finishes
// against memory that stays mapped until the DB is destroyed.
Status DBImpl::Close() {
  if (closed_.exchange(true)) return Status::OK();
  logs_->Quiesce();
  Status s;
  uint64_t lost_entries = 0;
  for (uint64_t d = 0; d < table_->dram_entries(); ++d) {
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    // Logged records are in the recovery log already; unlogged ones exist
    // in DRAM only until their entry migrates (WriteOptions::log).
    if (table_->DramHasUnlogged(d)) {
      Status m = table_->MigrateDram(d);
      if (!m.ok()) {
        ++lost_entries;
        if (s.ok()) s = m;
      }
    }
    lock.unlock();
  }
  if (!s.ok()) {
    s = s.WithContext("closing: the unlogged writes of " +
                      std::to_string(lost_entries) +
                      " DRAM directory entries could not be made durable "
                      "and are lost");
  }
  payload_->Close();
  pool_->allocator().TrimMark();
  Status synced = pool_->media().Sync();
  if (s.ok()) s = synced;
  pool_->media().ReleaseLock();
  return s;
}

uint64_t DBImpl::DramEpochOf(const log::LogRecord& record) {
  return table_->DramState(table_->DramIndex(RecordHash(record))).epoch;
}

void DBImpl::WaitForAppends(unsigned log) {
  for (uint64_t d = log; d < table_->dram_entries(); d += logs_->log_count()) {
    SpinLockRef lock = table_->DramLock(d);
    lock.lock();
    lock.unlock();
  }
}

uint64_t DBImpl::MinDramEpoch(unsigned log) {
  uint64_t min = ~uint64_t{0};
  for (uint64_t d = log; d < table_->dram_entries(); d += logs_->log_count()) {
    min = std::min(min, table_->DramState(d).epoch);
  }
  return min;
}

Status DBImpl::MigrateIfUnmigrated(const log::LogRecord& record) {
  const uint64_t d = table_->DramIndex(RecordHash(record));
  SpinLockRef lock = table_->DramLock(d);
  lock.lock();
  // Even an empty entry is migrated: that advances its epoch past the
  // record's, which is what frees the chunk.
  Status s = record.epoch >= table_->DramState(d).epoch ? table_->MigrateDram(d)
                                                        : Status::OK();
  lock.unlock();
  return s;
}

payload::PayloadHost::Reachability DBImpl::IsReachable(std::string_view key,
                                                       uint64_t key_hash,
                                                       uint64_t ref) {
  const table::LookupKey lookup = table::LookupKey::For(key, key_hash);
  table::Slot slot;
  const table::Found f = table_->Lookup(lookup, &slot);
  if (f != table::Found::kAbsent && slot.indirect && slot.value == ref)
    return Reachability::kReachable;
  return IsNewestDurable(lookup, ref) ? Reachability::kBlocked
                                      : Reachability::kUnreachable;
}

// A version shadowed only by unlogged ones is what a crash would bring
// back: it must stay until a checkpoint makes those durable. (The DRAM
// entry's unlogged flags are set before its slots are published and
// cleared only with the whole entry, so the lookup sees them consistently.)
bool DBImpl::IsNewestDurable(const table::LookupKey& lookup, uint64_t ref) {
  if (!table_->DramHasUnlogged(table_->DramIndex(lookup.hash))) return false;
  table::Slot slot;
  const table::Found f = table_->Lookup(lookup, &slot, /*durable_only=*/true);
  return f != table::Found::kAbsent && slot.indirect && slot.value == ref;
}

// Relocation is a write of the record's current version, under its DRAM
// entry's lock: nothing can overtake it, and like any logged write it
// survives a crash before the compacted chunk is freed.
Status DBImpl::Relocate(std::string_view key, uint64_t key_hash, uint64_t ref,
                        Relocation* result) {
  *result = Relocation::kUnreachable;
  payload::PayloadLogs::Ticket ticket;
  WriteOptions logged;
  logged.log = true;
  return Write(
      logged, key_hash, [&](uint64_t, table::Slot* slot, bool* skip) -> Status {
        *skip = true;
        const table::LookupKey lookup = table::LookupKey::For(key, key_hash);
        table::Slot current;
        std::string value;
        if (table_->Lookup(lookup, &current) == table::Found::kAbsent ||
            !current.indirect || current.value != ref ||
            payload_->ReadValue(ref, key, &value) != table::RefMatch::kYes) {
          *result = IsNewestDurable(lookup, ref) ? Relocation::kBlocked
                                                 : Relocation::kUnreachable;
          return Status::OK();
        }
        uint64_t moved = 0;
        Status s = payload_->Append(key, key_hash, value, &moved, &ticket);
        if (!s.ok()) return s;
        *slot = {key_hash, moved, current.tombstone, true};
        *skip = false;
        *result = Relocation::kMoved;
        return Status::OK();
      });
}

}  // namespace plush
