// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "db/db_impl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#include "db/recovery.h"
#include "placement/placed.h"
#include "util/parallel.h"

namespace plush {
namespace {

Status KeyTooLarge(std::string_view key) {
  return Status::InvalidArgument("key of " + std::to_string(key.size()) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(kMaxKeySize) + " bytes");
}

Status ValueTooLarge(std::string_view value) {
  return Status::InvalidArgument("value of " + std::to_string(value.size()) +
                                 " bytes exceeds the limit of " +
                                 std::to_string(kMaxValueSize) + " bytes");
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

// The Status of a lookup's outcome (table::LeveledTable::Get).
Status FoundStatus(table::Found found) {
  switch (found) {
    case table::Found::kValue:
      return Status::OK();
    case table::Found::kDamaged:
      return Status::Corruption(
          "the newest version of the key references a payload entry of "
          "another key");
    default:
      return Status::NotFound();
  }
}

// Renders Stats fields as property text: one field (`only`), or all of
// them as "name: value" lines.
class PropertyText final : public StatsTextVisitor {
 public:
  explicit PropertyText(std::string_view only)
      : StatsTextVisitor("true", "false"), only_(only) {}

  void Field(std::string_view name, const std::string& value) override {
    if (only_.empty()) {
      text_ += std::string(name) + ": " + value + "\n";
    } else if (name == only_) {
      text_ = value;
      found_ = true;
    }
  }

  bool found() const { return found_; }
  const std::string& text() const { return text_; }

 private:
  const std::string_view only_;
  bool found_ = false;
  std::string text_;
};

// The iterator of a pool that cannot be scanned in order.
class UnsupportedIterator final : public Iterator {
 public:
  explicit UnsupportedIterator(Status status) : status_(std::move(status)) {}
  bool Valid() const override { return false; }
  void Seek(std::string_view) override {}
  void SeekToFirst() override {}
  void SeekToPartition(uint64_t) override {}
  uint64_t partition() const override { return 0; }
  void Next() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

}  // namespace

Status DB::Open(const Options& options, const std::string& path,
                std::unique_ptr<DB>* db) {
  return DBImpl::Open(options, EngineSeams(), path, db);
}

DBImpl::~DBImpl() {
  // A DB whose Open() failed has nothing to close, and must not write to a
  // pool it may have judged damaged.
  if (opened_) (void)Close();
}

Status DBImpl::Open(const Options& options, const EngineSeams& seams,
                    const std::string& path, std::unique_ptr<DB>* db) {
  db->reset();
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<DBImpl> impl(new DBImpl(options, seams));
  bool created = false;
  Status s = pool::Pool::Open(options, *seams.media, path, &impl->pool_,
                              &created, log::RecoveryLogs::Format,
                              seams.key_hash);
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
  s = impl->OpenLayers(created);
  if (!s.ok()) {
    return s.WithContext((created ? "pool '" : "recovering pool '") + path +
                         "'");
  }
  if (!created) {
    // Everything Open() did for an existing pool counts: DRAM filters are
    // rebuilt when the table is opened, the logs replayed.
    impl->recovery_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  // Everything above only read the pool; from here on it is in use.
  impl->logs_->ZeroInvalidSlots();
  impl->payload_->FinishOpen();
  impl->background_->Start(
      impl->logs_.get(), impl->payload_.get(),
      impl->auto_rebalance_ ? impl->rebalancer_.get() : nullptr);
  impl->opened_ = true;
  *db = std::move(impl);
  return Status::OK();
}

Status DBImpl::OpenLayers(bool created) {
  Status s = table::LeveledTable::Open(pool_.get(), &table_);
  if (!s.ok()) return s;
  background_ = std::make_unique<BackgroundWork>(
      table_.get(), &pool_->allocator(), options_.background_threads);
  log_recycling_ = std::make_unique<LogRecycling>(
      table_.get(), pool_->params().log_count, background_.get(),
      clock_.get());
  logs_ = std::make_unique<log::RecoveryLogs>(
      pool_.get(), log_recycling_.get(), seams_.incomplete_batches.get());
  entry_rewriter_ = std::make_unique<EntryRewriter>(table_.get(), logs_.get(),
                                                    clock_.get());
  log_recycling_->set_rewriter(entry_rewriter_.get());
  if (pool_->params().partitioning == Partitioning::kRange)
    unit_tails_ = std::make_unique<UnitTails>(table_->dram_entries(), created);
  write_path_ = std::make_unique<WritePath>(table_.get(), logs_.get(),
                                            background_.get(),
                                            unit_tails_.get(), &closed_);
  payload_gc_ = std::make_unique<PayloadGc>(table_.get(), write_path_.get(),
                                            entry_rewriter_.get(),
                                            clock_.get());
  expiry_sweeper_ = std::make_unique<ExpirySweeper>(
      table_.get(), entry_rewriter_.get(), write_path_.get(), clock_.get(),
      options_.background_threads > 0);
  s = payload::PayloadLogs::Open(pool_.get(), payload_gc_.get(), clock_.get(),
                                &payload_);
  if (!s.ok()) return s;
  if (payload_->enabled()) table_->set_resolver(payload_.get());
  unit_reader_ = std::make_unique<UnitReader>(table_.get(), payload_.get(),
                                              write_path_.get());
  rebalancer_ = std::make_unique<RangeRebalancer>(
      pool_->range_map_store(), table_.get(), payload_.get(),
      entry_rewriter_.get(), unit_tails_.get(), &closed_, created);
  auto_rebalance_ = rebalancer_->enabled() && options_.range_rebalance &&
                    options_.background_threads > 0;
  // (The logs pre-fault their chunks as they back them.)
  if (created) return Status::OK();
  return RecoverDramLevel(table_.get(), logs_.get(), *payload_,
                          ThreadsOr(options_.recovery_threads),
                          &recovered_entries_);
}

Status DBImpl::CheckWritable() const {
  if (closed()) return WritePath::ClosedError();
  const media::Media& m = pool_->media();
  return m.failed() ? m.sticky_error() : write_path_->Halted();
}

Status DBImpl::CheckSyncWrite(const WriteOptions& options) const {
  if (!options.log) {
    return Status::InvalidArgument(
        "WriteOptions::sync needs WriteOptions::log: an unlogged write is "
        "durable only from the next Checkpoint()");
  }
  if (pool_->media().InMemory()) {
    return Status::NotSupported(
        "WriteOptions::sync: the pool is on a file system in memory (tmpfs "
        "or ramfs), whose contents do not survive power loss; put the pool "
        "on a disk");
  }
  if (pool_->media().kind() == media::MediaKind::kFile &&
      !pool_->media().ordered_barriers()) {
    return Status::NotSupported(
        "WriteOptions::sync on the file back end needs the pool opened with "
        "Options::power_fail_safe: without it the pages of later migrations "
        "and log recycling reach the disk unordered, and a power failure "
        "while they do can lose the write");
  }
  return CheckWritable();
}

template <typename Apply>
Status DBImpl::Acknowledged(const WriteOptions& options, Apply apply) {
  if (!options.sync) {
    Status s = CheckWritable();
    return s.ok() ? apply() : s;
  }
  Status s = CheckSyncWrite(options);
  if (!s.ok()) return s;
  media::Media& media = pool_->media();
  media.AnnounceSync();
  s = apply();
  if (!s.ok()) {
    media.WithdrawSync();
    return s;
  }
  return media.SyncAnnounced();
}

Placement DBImpl::Place(std::string_view key, uint64_t version) const {
  const KeyHasher::Placed placed = table_->hasher().PlaceKey(key);
  return {placed.hash, version, key, placed.indirect_word};
}

Status DBImpl::WriteInline(const WriteOptions& options, uint64_t key_word,
                           const table::Slot& slot) {
  const std::string_view key(reinterpret_cast<const char*>(&key_word), 8);
  const KeyHasher& hasher = table_->hasher();
  Placement placement;
  unsigned entry_size = 0;
  Status s = Placed(hasher, [&](uint64_t version, bool* moved) {
    placement = {hasher.InlineHash(key_word), version, key};
    return write_path_->WriteSlot(options, placement, slot, moved,
                                  &entry_size);
  });
  if (s.ok()) SplitIfDue(placement.hash, key, 1, entry_size);
  return s;
}

// A writer whose unit is overloaded has outrun the background thread's
// splits of it (all writes go to one unit when keys only grow), and one
// whose unit of growing keys is due a split does it sooner and cheaper
// than the background thread (RangeRebalancer::WriterSplits): it splits
// the unit before it writes more. Its own write is done by then, and
// stands whatever the split meets: a split that fails (NoSpace for its
// copies) leaves the map as it was, and the next one, or DB::Rebalance,
// meets the error again and reports it. A write that brought the unit
// `written` records, leaving its DRAM entry with `entry_size`, looks when
// it took the entry to its high-water mark (each size is reached by one
// write: one writer looks, however many write the unit), or when the
// entry would not take another write of as many (a write batch may bring
// a unit more than the room above the mark: split then, the unit keeps
// its records in DRAM instead of migrating them during the next batch).
void DBImpl::SplitIfDue(uint64_t hash, std::string_view key,
                        uint64_t written, uint64_t entry_size) {
  if (!auto_rebalance_) return;
  const uint64_t unit = table_->DramIndex(hash);
  const bool at_high_water =
      entry_size == background_->high_water() ||
      (entry_size != 0 && entry_size + written > table_->capacity());
  if (!rebalancer_->WriterSplits(unit, at_high_water)) return;
  uint64_t moves = 0;
  (void)rebalancer_->Rebalance(unit, key, &moves);
}

void DBImpl::SplitUnitsIfDue(const std::vector<WritePath::Record>& records) {
  if (!auto_rebalance_) return;
  // Each unit once: with the batch's last record of it, and how many
  // records the batch brought it.
  std::vector<std::pair<uint64_t, uint32_t>> by_unit;  // (unit, record)
  by_unit.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    by_unit.emplace_back(table_->DramIndex(records[i].hash),
                         static_cast<uint32_t>(i));
  }
  std::sort(by_unit.begin(), by_unit.end());
  for (size_t i = 0; i < by_unit.size();) {
    size_t end = i + 1;
    while (end < by_unit.size() && by_unit[end].first == by_unit[i].first)
      ++end;
    const WritePath::Record& last = records[by_unit[end - 1].second];
    SplitIfDue(last.hash, last.key, end - i,
               table_->DramState(by_unit[i].first).size);
    i = end;
  }
}

Status DBImpl::WritePayload(const WriteOptions& options, std::string_view key,
                            std::string_view value, bool tombstone) {
  Placement placement;
  unsigned entry_size = 0;
  // A key that moved to another unit needs an entry checked against its
  // new table hash; the one written for the old is left to compaction.
  Status s = Placed(table_->hasher(), [&](uint64_t version, bool* moved) {
    placement = Place(key, version);
    placement.expires_at_ms = tombstone ? 0 : options.expires_at_ms;
    uint64_t ref = 0;
    payload::PayloadLogs::Ticket ticket;  // until the reference is published
    Status r =
        payload_->Append(key, placement.hash, value,
                         tombstone ? 0 : options.expires_at_ms, &ref, &ticket,
                         options.sync);
    if (!r.ok()) return r;
    // A logged write's fence (its log append) covers the entry. An unlogged
    // one is published without a fence of its own, and a migration by
    // another thread cannot persist this thread's flushes: fence here.
    if (!options.log) pool_->media().Drain();
    return write_path_->WriteSlot(
        options, placement, {placement.indirect_word, ref, tombstone, true},
        moved, &entry_size);
  });
  if (s.ok()) {
    if (!tombstone) NoteExpiry(placement.hash, options.expires_at_ms);
    SplitIfDue(placement.hash, key, 1, entry_size);
  }
  return s;
}

void DBImpl::NoteExpiry(uint64_t hash, uint64_t expires_at_ms) {
  expiry_sweeper_->Note(table_->DramIndex(hash), expires_at_ms);
}

Status DBImpl::Put(const WriteOptions& options, std::string_view key,
                   std::string_view value) {
  return Acknowledged(options, [&] {
    if (key.size() > kMaxKeySize) return KeyTooLarge(key);
    if (value.size() > kMaxValueSize) return ValueTooLarge(value);
    // A record with an expiry keeps it in its payload entry.
    Status s = key.size() == 8 && value.size() == 8 &&
                       options.expires_at_ms == 0
                   ? WriteInline(options, Word(key),
                                 {Word(key), Word(value), false, false})
                   : WritePayload(options, key, value, /*tombstone=*/false);
    if (s.ok()) user_bytes_.Add(key.size() + value.size());
    return s;
  });
}

Status DBImpl::Delete(const WriteOptions& options, std::string_view key) {
  return Acknowledged(options, [&] {
    if (key.size() > kMaxKeySize) return KeyTooLarge(key);
    // An 8-byte key's tombstone is inline; it hides the key's older
    // versions whether they are inline or in the payload logs.
    Status s = key.size() == 8
                   ? WriteInline(options, Word(key), {Word(key), 0, true, false})
                   : WritePayload(options, key, {}, /*tombstone=*/true);
    if (s.ok()) user_bytes_.Add(key.size());
    return s;
  });
}

Status DBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  return Acknowledged(options, [&] { return WriteBatchNow(options, batch); });
}

Status DBImpl::WriteBatchNow(const WriteOptions& options, WriteBatch* batch) {
  Status s;
  if (batch == nullptr) return Status::InvalidArgument("no batch (null)");
  if (batch->Count() > kMaxBatchRecords) {
    return Status::InvalidArgument(
        "batch of " + std::to_string(batch->Count()) +
        " operations exceeds the limit of " +
        std::to_string(kMaxBatchRecords) + " operations");
  }
  if (batch->ApproximateSize() > kMaxBatchBytes) {
    return Status::InvalidArgument(
        "batch of " + std::to_string(batch->ApproximateSize()) +
        " bytes exceeds the limit of " + std::to_string(kMaxBatchBytes) +
        " bytes");
  }
  // Every operation is checked before anything is written.
  struct Op {
    std::string_view key;
    std::string_view value;
    bool tombstone;
    uint64_t expires_at_ms;
  };
  struct Collect final : WriteBatch::Handler {
    explicit Collect(uint64_t expiry) : default_expiry(expiry) {}
    void Put(std::string_view k, std::string_view v) override {
      ops.push_back({k, v, false, default_expiry});
    }
    void PutWithExpiry(std::string_view k, std::string_view v,
                       uint64_t expires_at_ms) override {
      ops.push_back({k, v, false, expires_at_ms});
    }
    void Delete(std::string_view k) override {
      ops.push_back({k, {}, true, 0});
    }
    const uint64_t default_expiry;
    std::vector<Op> ops;
  } collect(options.expires_at_ms);
  batch->Iterate(&collect);
  uint64_t bytes = 0;
  for (size_t i = 0; i < collect.ops.size(); ++i) {
    const Op& op = collect.ops[i];
    s = op.key.size() > kMaxKeySize       ? KeyTooLarge(op.key)
        : op.value.size() > kMaxValueSize ? ValueTooLarge(op.value)
                                          : Status::OK();
    if (!s.ok()) {
      // Named only where there are others to tell it from: to its caller,
      // a batch of one record (a server's SET) is one write.
      return collect.ops.size() > 1
                 ? s.WithContext("batch operation " + std::to_string(i))
                 : s;
    }
    bytes += op.key.size() + op.value.size();
  }
  // Payload entries are written (flushed, not fenced) before the records
  // that reference them; the batch's one log barrier covers both. If a
  // re-balance moves keys meanwhile, the whole batch is placed again.
  const KeyHasher& hasher = table_->hasher();
  std::vector<WritePath::Record> records;
  s = Placed(hasher, [&](uint64_t version, bool* moved) {
    std::deque<payload::PayloadLogs::Ticket> tickets;  // until published
    records.clear();
    records.reserve(collect.ops.size());
    bool payloads = false;
    for (const Op& op : collect.ops) {
      if (op.key.size() == 8 &&
          (op.tombstone || (op.value.size() == 8 && op.expires_at_ms == 0))) {
        records.push_back({hasher.InlineHash(Word(op.key)),
                           {Word(op.key), op.tombstone ? 0 : Word(op.value),
                            op.tombstone, false},
                           op.key});
        continue;
      }
      const KeyHasher::Placed placed = hasher.PlaceKey(op.key);
      uint64_t ref = 0;
      Status r =
          payload_->Append(op.key, placed.hash, op.value, op.expires_at_ms,
                           &ref, &tickets.emplace_back(), options.sync);
      if (!r.ok()) return r;
      records.push_back({placed.hash,
                         {placed.indirect_word, ref, op.tombstone, true},
                         op.key, op.expires_at_ms});
      payloads = true;
    }
    // An unlogged batch has no barrier of its own (WritePayload).
    if (!options.log && payloads) pool_->media().Drain();
    return write_path_->WriteRecords(options, records, version, moved);
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < records.size(); ++i)
    NoteExpiry(records[i].hash, collect.ops[i].expires_at_ms);
  SplitUnitsIfDue(records);
  user_bytes_.Add(bytes);
  return Status::OK();
}

Status DBImpl::ReadCurrent(const table::LookupKey& lookup, std::string* value,
                           uint64_t* expires_at_ms, bool* present) const {
  *expires_at_ms = 0;
  const table::Found found = table_->Get(lookup, value, expires_at_ms);
  if (found == table::Found::kDamaged) {
    return Status::Corruption(
        "the newest version of the key references a payload entry of "
        "another key");
  }
  *present = found == table::Found::kValue;
  return Status::OK();
}

// Under the key's lock nothing else writes the key, so a decision taken
// there on the current value is atomic. A new version that needs a payload
// entry (a key or value other than 8 bytes) is the exception: an append
// may compact, and compaction takes DRAM entry locks, so it cannot happen
// under one. Such a version is appended first and published under the
// lock only if the key still holds the value it was computed from;
// otherwise the decision is taken again.
Status DBImpl::ReadModifyWrite(const WriteOptions& options,
                               std::string_view key, const Decide& decide) {
  if (key.size() > kMaxKeySize) return KeyTooLarge(key);
  Status s;
  const bool inline_key = key.size() == 8;
  // A key that a re-balance moved is placed again, and a key whose value
  // changed before the new version was published is decided again; both
  // on its current value.
  for (;;) {
    std::string next;
    uint64_t expiry = 0;
    UpdateAction action = UpdateAction::kKeep;
    bool changed = false;
    s = Placed(table_->hasher(), [&](uint64_t version, bool* moved) {
      Placement placement = Place(key, version);
      const table::LookupKey lookup =
          table::LookupKey::For(key, placement.hash);
      std::string current;
      uint64_t current_expiry = 0;
      bool present = false;
      bool needs_payload = false;
      action = UpdateAction::kKeep;
      Status w = write_path_->Write(
          options, placement,
          [&](uint64_t, table::Slot* slot, bool* skip) -> Status {
            *skip = true;
            // The write may start over (a rotation, a re-balance): every
            // decision starts from an empty new value.
            next.clear();
            Status r = ReadCurrent(lookup, &current, &current_expiry, &present);
            expiry = options.expires_at_ms != 0 ? options.expires_at_ms
                                                : current_expiry;
            if (r.ok()) {
              r = decide(present ? &current : nullptr, &next, &expiry,
                         &action);
            }
            if (!r.ok() || action == UpdateAction::kKeep) return r;
            const bool tombstone = action == UpdateAction::kDelete;
            if (tombstone) expiry = 0;
            if (!tombstone && next.size() > kMaxValueSize) {
              return Status::InvalidArgument(
                  "new value of " + std::to_string(next.size()) +
                  " bytes exceeds the limit of " +
                  std::to_string(kMaxValueSize) + " bytes");
            }
            if (inline_key &&
                (tombstone || (next.size() == 8 && expiry == 0))) {
              *slot = {Word(key), tombstone ? 0 : Word(next), tombstone,
                       false};
              *skip = false;
            } else {
              needs_payload = true;
            }
            return Status::OK();
          },
          moved);
      if (!w.ok() || *moved || !needs_payload) return w;
      const bool tombstone = action == UpdateAction::kDelete;
      uint64_t ref = 0;
      payload::PayloadLogs::Ticket ticket;  // until the reference is published
      w = payload_->Append(key, placement.hash,
                           tombstone ? std::string_view() : next, expiry, &ref,
                           &ticket, options.sync);
      if (!w.ok()) return w;
      if (!options.log) pool_->media().Drain();  // as in WritePayload
      placement.expires_at_ms = expiry;
      return write_path_->Write(
          options, placement,
          [&](uint64_t, table::Slot* slot, bool* skip) -> Status {
            std::string now;
            uint64_t now_expiry = 0;
            bool now_present = false;
            Status r = ReadCurrent(lookup, &now, &now_expiry, &now_present);
            changed = now_present != present ||
                      (present &&
                       (now != current || now_expiry != current_expiry));
            *skip = changed;
            *slot = {placement.indirect_word, ref, tombstone, true};
            return r;
          },
          moved);
      if (w.ok() && !*moved && !changed) NoteExpiry(placement.hash, expiry);
    });
    if (!s.ok()) return s;
    if (!changed) {
      if (action != UpdateAction::kKeep)
        user_bytes_.Add(key.size() + next.size());
      return s;
    }
  }
}

Status DBImpl::Update(const WriteOptions& options, std::string_view key,
                      const UpdateFunction& fn) {
  return Acknowledged(options, [&] {
    return ReadModifyWrite(options, key,
                           [&](const std::string* current, std::string* next,
                               uint64_t*, UpdateAction* action) {
                             *action = fn(current, next);
                             return Status::OK();
                           });
  });
}

Status DBImpl::UpdateWithExpiry(const WriteOptions& options,
                                std::string_view key,
                                const UpdateWithExpiryFunction& fn) {
  WriteOptions write = options;
  write.expires_at_ms = 0;  // the decision starts from the key's expiry
  return Acknowledged(write, [&] {
    return ReadModifyWrite(write, key,
                           [&](const std::string* current, std::string* next,
                               uint64_t* expiry, UpdateAction* action) {
                             *action = fn(current, expiry, next);
                             return Status::OK();
                           });
  });
}

Status DBImpl::Increment(const WriteOptions& options, std::string_view key,
                         int64_t delta, int64_t* result) {
  int64_t sum = 0;
  const Decide add = [&](const std::string* current, std::string* next,
                         uint64_t*, UpdateAction* action) -> Status {
        int64_t value = 0;
        if (current != nullptr) {
          if (current->size() != sizeof(value)) {
            return Status::InvalidArgument(
                "the value is " + std::to_string(current->size()) +
                " bytes long, not an 8-byte integer");
          }
          std::memcpy(&value, current->data(), sizeof(value));
        }
        if (__builtin_add_overflow(value, delta, &sum)) {
          return Status::InvalidArgument(
              "increment or decrement would overflow");
        }
        next->assign(reinterpret_cast<const char*>(&sum), sizeof(sum));
        *action = UpdateAction::kPut;
        return Status::OK();
  };
  Status s = Acknowledged(
      options, [&] { return ReadModifyWrite(options, key, add); });
  if (s.ok() && result != nullptr) *result = sum;
  return s;
}

Status DBImpl::Expire(const WriteOptions& options, std::string_view key,
                      uint64_t expires_at_ms) {
  WriteOptions write = options;
  write.expires_at_ms = 0;  // the decision below sets it
  return Acknowledged(write, [&] {
    return ReadModifyWrite(
        write, key,
        [&](const std::string* current, std::string* next,
            uint64_t* expiry, UpdateAction* action) -> Status {
          if (current == nullptr) return Status::NotFound();
          *next = *current;
          *expiry = expires_at_ms;
          *action = UpdateAction::kPut;
          return Status::OK();
        });
  });
}

Status DBImpl::GetExpiry(const ReadOptions&, std::string_view key,
                         uint64_t* expires_at_ms) {
  std::string value;
  return Lookup(key, &value, expires_at_ms);
}

Status DBImpl::Get(const ReadOptions&, std::string_view key,
                   std::string* value) {
  return Lookup(key, value, nullptr);
}

// A lookup places its key on the range map, then searches the unit it
// named; if a re-balance changed the map in between, the unit may no
// longer hold the key's newest version, and the lookup is made again.
Status DBImpl::Lookup(std::string_view key, std::string* value,
                      uint64_t* expires_at_ms) {
  if (closed()) return WritePath::ClosedError();
  if (key.size() > kMaxKeySize) return KeyTooLarge(key);
  const KeyHasher& hasher = table_->hasher();
  table::Found found = table::Found::kAbsent;
  (void)Placed(hasher, [&](uint64_t version, bool* moved) {
    found = table_->Get(table::LookupKey::For(key, hasher.Hash(key)), value,
                        expires_at_ms);
    *moved = !hasher.Unchanged(version);
    return Status::OK();
  });
  return FoundStatus(found);
}

std::vector<Status> DBImpl::MultiGet(const ReadOptions&,
                                     const std::vector<std::string_view>& keys,
                                     std::vector<std::string>* values) {
  std::vector<Status> statuses(keys.size());
  values->resize(keys.size());
  if (closed()) {
    std::fill(statuses.begin(), statuses.end(), WritePath::ClosedError());
    return statuses;
  }
  // The keys over the size limit get their error; the others are looked
  // up together (again, all of them, if a re-balance came in between).
  std::vector<size_t> positions;
  positions.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() > kMaxKeySize) {
      statuses[i] = KeyTooLarge(keys[i]);
    } else {
      positions.push_back(i);
    }
  }
  std::vector<table::LookupKey> lookups(positions.size());
  std::vector<std::string> found_values(positions.size());
  std::vector<table::Found> found(positions.size());
  const KeyHasher& hasher = table_->hasher();
  (void)Placed(hasher, [&](uint64_t version, bool* moved) {
    for (size_t j = 0; j < positions.size(); ++j) {
      const std::string_view key = keys[positions[j]];
      lookups[j] = table::LookupKey::For(key, hasher.Hash(key));
    }
    table_->MultiGet(lookups.data(), lookups.size(), found_values.data(),
                     found.data());
    *moved = !hasher.Unchanged(version);
    return Status::OK();
  });
  for (size_t j = 0; j < positions.size(); ++j) {
    statuses[positions[j]] = FoundStatus(found[j]);
    (*values)[positions[j]] = std::move(found_values[j]);
    if (!statuses[positions[j]].ok()) (*values)[positions[j]].clear();
  }
  return statuses;
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  if (closed()) {
    return std::make_unique<UnsupportedIterator>(WritePath::ClosedError());
  }
  const bool ordered = table_->hasher().range();
  if (options.iterate_upper_bound && !ordered) {
    return std::make_unique<UnsupportedIterator>(Status::NotSupported(
        "ReadOptions::iterate_upper_bound needs a range-partitioned pool "
        "(this one is hash-partitioned: its keys have no order)"));
  }
  return std::make_unique<UnitIterator>(unit_reader_.get(), ordered,
                                        options.iterate_upper_bound);
}

Status DBImpl::Rebalance(uint64_t* moves) {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  uint64_t made = 0;
  s = rebalancer_->RebalanceAll(&made);
  if (moves != nullptr) *moves = made;
  return s;
}

Status DBImpl::CheckpointRange(uint64_t first, uint64_t end) {
  for (uint64_t d = first; d < end; ++d) {
    Status s = write_path_->WithEntryLocked(d, [&](uint64_t) {
      return table_->DramState(d).size > 0 ? table_->MigrateDram(d)
                                           : Status::OK();
    });
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DBImpl::Checkpoint(unsigned threads) {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  s = ForEachRange(table_->dram_entries(), ThreadsOr(threads),
                   [&](uint64_t begin, uint64_t end) {
                     return CheckpointRange(begin, end);
                   });
  return s.ok() ? pool_->media().Sync() : s;
}

Status DBImpl::Sync() {
  if (closed()) return WritePath::ClosedError();
  return pool_->media().Sync();
}

// The pool's bytes change under writers, migrations, log rotations and
// payload chunk allocations; `work` runs while all of them wait, so that it
// sees the pool of one moment. Locks are taken in the order their holders
// nest them: log rotation mutexes (a rotation then takes entry locks), the
// DRAM entry locks in index order, the payload logs' mutexes (a relocation
// rotates its payload log under an entry lock). Appends into current
// payload chunks may go on: space that nothing references yet. Readers
// never wait.
Status DBImpl::WithWritersStopped(const std::function<Status()>& work) {
  if (closed()) return WritePath::ClosedError();
  logs_->PauseRotations();
  const uint64_t entries = table_->dram_entries();
  for (uint64_t d = 0; d < entries; ++d) table_->DramLock(d).lock();
  payload_->PauseRotations();
  const Status s = closed() ? WritePath::ClosedError() : work();
  payload_->ResumeRotations();
  for (uint64_t d = 0; d < entries; ++d) table_->DramLock(d).unlock();
  logs_->ResumeRotations();
  return s;
}

// A consistent crash image: the copy is taken with writers stopped.
Status DBImpl::Backup(const std::string& path) {
  const Status s = WithWritersStopped([&] {
    // Unlogged writes exist only in DRAM: migrate them, as Checkpoint would.
    Status m;
    for (uint64_t d = 0; m.ok() && d < table_->dram_entries(); ++d) {
      if (table_->DramHasUnlogged(d)) m = table_->MigrateDram(d);
    }
    return m.ok() ? pool_->media().CopyTo(path) : m;
  });
  return s.ok() ? s : s.WithContext("backup to '" + path + "'");
}

// Online: each structure is checked under the lock its writers hold (a
// unit under its DRAM entry's lock, so that a migration writing an entry
// shows no slot its filter lacks yet; a recovery log under its rotation
// mutex), one at a time, and writers of the others go on.
Status DBImpl::Verify(std::string* report) {
  if (closed()) return WritePath::ClosedError();
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
  if (closed()) return WritePath::ClosedError();
  const media::Media& m = pool_->media();
  *stats = Stats();
  stats->backend = m.KindName();
  stats->power_fail_durable = m.power_fail_durable();
  stats->guarantee = m.Guarantee();
  stats->granularity = m.GranularityName();
  stats->format_version = pool_->format_version();
  stats->partitioning = table_->hasher().range() ? "range" : "hash";
  const pool::PoolParams& p = pool_->params();
  if (table_->hasher().range()) {
    stats->range_units = "adaptive";
    stats->range_rebalances = pool_->range_map_store()->generation();
    stats->range_records_copied = rebalancer_->records_copied();
  }
  stats->dram_directory_bits = p.dram_directory_bits;
  stats->fanout_bits = p.fanout_bits;
  stats->first_level_fanout_bits = p.first_level_fanout_bits;
  stats->preallocated_levels = p.preallocated_levels;
  stats->dram_filter_levels = p.dram_filter_levels;
  stats->log_count = p.log_count;
  stats->log_chunk_size = p.log_chunk_size;
  stats->log_chunks_per_log = p.log_chunks_per_log;
  stats->payload_log_count = p.payload_log_count;
  stats->payload_chunk_size = p.payload_chunk_size;
  stats->dram_bytes = table_->dram_bytes() + sizeof(*this) +
                      (unit_tails_ ? unit_tails_->dram_bytes() : 0);
  stats->pool_bytes = m.size();
  stats->pool_used_bytes = pool_->allocator().used_bytes();
  stats->pool_allocated_bytes = m.BackedBytes();
  stats->levels = table_->level_count();
  table::LeveledTable::Occupancy occupancy = table_->CountRecords();
  stats->records_per_level = std::move(occupancy.per_level);
  std::vector<uint64_t> units;
  if (const RangeMap* map = table_->hasher().map()) {
    for (const uint32_t u : map->Read().units)
      units.push_back(occupancy.per_unit[u]);
  } else {
    units = std::move(occupancy.per_unit);
  }
  const auto median = units.begin() + static_cast<ptrdiff_t>(units.size() / 2);
  std::nth_element(units.begin(), median, units.end());
  stats->unit_records_median = *median;
  stats->unit_records_min = *std::min_element(units.begin(), median + 1);
  stats->unit_records_max = *std::max_element(median, units.end());
  stats->migrations = table_->migrations();
  stats->log_compactions = logs_->compactions();
  stats->log_forced_migrations = logs_->forced_migrations();
  stats->dram_migrations_background = background_->migrations();
  stats->dram_migrations_inline = write_path_->inline_migrations();
  stats->log_recycles_background = background_->recycles();
  stats->payload_chunks = payload_->chunks();
  stats->payload_bytes = payload_->chunks() * payload_->chunk_size();
  stats->payload_gc_runs = payload_->gc_runs();
  stats->payload_gc_moved = payload_->gc_moved();
  stats->payload_gc_skipped = payload_->gc_skipped();
  stats->persist_calls = m.persist_calls();
  stats->flushed_lines = m.flushed_lines();
  stats->user_bytes_written = user_bytes_.Read();
  stats->media_bytes_written = seams_.media->ModeledMediaBytes();
  if (stats->user_bytes_written > 0) {
    stats->media_write_amp = static_cast<double>(stats->media_bytes_written) /
                             static_cast<double>(stats->user_bytes_written);
  }
  stats->recovery_seconds = recovery_seconds_;
  stats->recovered_log_entries = recovered_entries_;
  stats->more_counts = {{"syncs", m.syncs()},
                        {"dram_rewrites", entry_rewriter_->rewrites()},
                        {"expiry_sweeps", expiry_sweeper_->sweeps()},
                        {"expiry_subtree_sweeps",
                         expiry_sweeper_->subtree_sweeps()},
                        {"log_backed_bytes", logs_->backed_bytes()},
                        {"expired_units_cleared",
                         table_->expired_units_cleared()}};
  return Status::OK();
}

Status DBImpl::GetProperty(std::string_view name, std::string* value) {
  constexpr std::string_view kPrefix = "plush.";
  if (name.substr(0, kPrefix.size()) != kPrefix)
    return Status::NotFound("unknown property '" + std::string(name) + "'");
  Stats stats;
  Status s = GetStats(&stats);
  if (!s.ok()) return s;
  const std::string_view field = name.substr(kPrefix.size());
  PropertyText text(field == "stats" ? std::string_view() : field);
  stats.ForEachField(&text);
  if (field != "stats" && !text.found())
    return Status::NotFound("unknown property '" + std::string(name) + "'");
  *value = text.text();
  return Status::OK();
}

// The Close protocol, in one place:
//
//   1. closed_ is set: a write checks it under its DRAM entry's lock
//      (WritePath), a read or scan at its start; every call that starts
//      later fails with InvalidArgument.
//   2. Background work stops: the migration or recycling in progress
//      finishes, queued work is dropped (nothing acknowledged depends on
//      it), and nothing runs on its own any more.
//   3. The recovery logs close: Close() waits for a rotation and for a
//      spilled write batch in progress, and every later Rotate() (and
//      spill) fails — a writer whose log chunk was full when the DB closed
//      cannot activate a chunk of a closed pool.
//   4. Every DRAM entry's lock is taken in turn: a writer that was past
//      its closed check has finished. Entries that hold unlogged records
//      migrate now, so that a clean close keeps every write made before it.
//   5. The payload logs close (appends in progress finish, new ones fail)
//      and record where each log resumes; the allocation mark is trimmed.
//   6. The pool is synced and its lock released: another process may open
//      it. Readers are never blocked: one that started before Close()
//      finishes against memory that stays mapped until the DB is destroyed.
Status DBImpl::Close() {
  if (closed_.exchange(true)) return Status::OK();
  expiry_sweeper_->Stop();
  background_->Stop();
  logs_->Close();
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

}  // namespace plush
