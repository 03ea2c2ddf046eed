// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The engine's layers opened by hand on a new simulated pool, wired as
// DBImpl::OpenLayers wires them (db/db_impl.cc), for the unit tests of the
// units of src/db/ that need the others around them (payload_gc,
// unit_reader, range_rebalancer): each test builds its own unit on them.
// No background threads: nothing migrates, compacts or re-balances unless
// the test does it (or a write finds its DRAM entry full). Writes go
// through the write path as DB::Put and DB::Delete send them.

#ifndef PLUSH_TESTS_ENGINE_LAYERS_H_
#define PLUSH_TESTS_ENGINE_LAYERS_H_

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "db/background_work.h"
#include "db/log_recycling.h"
#include "db/payload_gc.h"
#include "db/unit_iterator.h"
#include "db/unit_reader.h"
#include "db/unit_tails.h"
#include "db/write_path.h"
#include "log/recovery_log.h"
#include "payload/payload_logs.h"
#include "pool/pool.h"
#include "sim_pool.h"
#include "table/leveled_table.h"
#include "testing/sim_media.h"
#include "util/wall_clock.h"

namespace plush::test {

class EngineLayers {
 public:
  // `device`: the simulated device's name, removed by the destructor
  // unless `keep_device` (a test that opens it again, after a crash).
  explicit EngineLayers(std::string device, bool keep_device = false)
      : device_(std::move(device)), keep_device_(keep_device) {}
  ~EngineLayers() {
    closed_.store(true);
    if (background_) background_->Stop();
    if (logs_) logs_->Close();
    if (payload_) payload_->Close();
    unit_reader_.reset();
    payload_.reset();
    payload_gc_.reset();
    write_path_.reset();
    tails_.reset();
    rewriter_.reset();
    logs_.reset();
    log_recycling_.reset();
    background_.reset();
    table_.reset();
    pool_.reset();
    if (!keep_device_) media::SimMedia::Remove(device_);
  }

  // Creates the pool (it must not exist) and opens the layers on it.
  Status Open(const Options& options) {
    Status s = OpenLayers(options, /*create=*/true);
    if (s.ok()) FinishOpen();
    return s;
  }
  // Opens the layers on the existing pool without recovering it (the DRAM
  // level is empty): the test recovers it, then calls FinishOpen().
  Status OpenWithoutRecovery(const Options& options) {
    return OpenLayers(options, /*create=*/false);
  }
  // What DB::Open does once the pool is recovered.
  void FinishOpen() {
    logs_->ZeroInvalidSlots();
    payload_->FinishOpen();
  }

  // ---- Writes and reads, as the DB's ----------------------------------------

  // An 8-byte key with an 8-byte value is stored inline, every other
  // record in the payload logs. *ref: the payload entry's reference (0
  // for an inline record).
  Status Put(std::string_view key, std::string_view value, bool log = true,
             uint64_t* ref = nullptr) {
    return Write(key, value, /*tombstone=*/false, log, ref);
  }
  Status Delete(std::string_view key, bool log = true,
                uint64_t* ref = nullptr) {
    return Write(key, {}, /*tombstone=*/true, log, ref);
  }
  // OK with the value, NotFound, or Corruption for a damaged record.
  Status Get(std::string_view key, std::string* value) const {
    const KeyHasher& hasher = table_->hasher();
    for (;;) {
      const uint64_t version = hasher.version();
      const uint64_t hash = hasher.PlaceKey(key).hash;
      const table::Found found =
          table_->Get(table::LookupKey::For(key, hash), value);
      if (!hasher.Unchanged(version)) continue;
      switch (found) {
        case table::Found::kValue:
          return Status::OK();
        case table::Found::kDamaged:
          return Status::Corruption("damaged");
        default:
          return Status::NotFound();
      }
    }
  }
  // Every live record (from `from` on, in range pools), as the DB's
  // iterator yields it (over UnitReader).
  Status Scan(std::map<std::string, std::string>* records,
              std::string_view from = {}) {
    records->clear();
    UnitIterator it(unit_reader_.get(), table_->hasher().range());
    if (from.empty()) {
      it.SeekToFirst();
    } else {
      it.Seek(from);
    }
    for (; it.Valid(); it.Next())
      records->emplace(std::string(it.key()), std::string(it.value()));
    return it.status();
  }

  // The table hash of `key` as a write places it now.
  uint64_t HashOf(std::string_view key) const {
    return table_->hasher().PlaceKey(key).hash;
  }
  // The unit (DRAM entry) of `key` now.
  uint64_t UnitOf(std::string_view key) const {
    return table_->DramIndex(HashOf(key));
  }

  // Migrates DRAM entry `d` (if it holds records) under its lock.
  Status Migrate(uint64_t d) {
    return write_path_->WithEntryLocked(d, [&](uint64_t) {
      return table_->DramState(d).size > 0 ? table_->MigrateDram(d)
                                           : Status::OK();
    });
  }
  Status MigrateAll() {
    for (uint64_t d = 0; d < table_->dram_entries(); ++d) {
      Status s = Migrate(d);
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

  // As DB::Close would refuse writes: the write path answers "the DB is
  // closed" from then on.
  void MarkClosed() { closed_.store(true); }

  pool::Pool& pool() { return *pool_; }
  table::LeveledTable& table() { return *table_; }
  log::RecoveryLogs& logs() { return *logs_; }
  payload::PayloadLogs& payload() { return *payload_; }
  WritePath& write_path() { return *write_path_; }
  PayloadGc& payload_gc() { return *payload_gc_; }
  EntryRewriter& rewriter() { return *rewriter_; }
  UnitReader& unit_reader() { return *unit_reader_; }
  UnitTails* tails() { return tails_.get(); }
  const std::atomic<bool>* closed() const { return &closed_; }

 private:
  // The layers wired as DBImpl::OpenLayers wires them, on a pool created
  // now (`create`) or existing.
  Status OpenLayers(const Options& options, bool create) {
    bool created = false;
    Status s = pool::Pool::Open(options, SimDevices(), device_, &pool_,
                                &created, log::RecoveryLogs::Format);
    if (!s.ok()) return s;
    if (created != create) {
      return Status::InvalidArgument(create ? "the device existed"
                                            : "no such device");
    }
    s = table::LeveledTable::Open(pool_.get(), &table_);
    if (!s.ok()) return s;
    background_ = std::make_unique<BackgroundWork>(
        table_.get(), &pool_->allocator(), /*threads=*/0);
    log_recycling_ = std::make_unique<LogRecycling>(
        table_.get(), pool_->params().log_count, background_.get(), &clock_);
    logs_ = std::make_unique<log::RecoveryLogs>(pool_.get(),
                                                log_recycling_.get());
    rewriter_ = std::make_unique<EntryRewriter>(table_.get(), logs_.get(),
                                                &clock_);
    log_recycling_->set_rewriter(rewriter_.get());
    if (pool_->params().partitioning == Partitioning::kRange)
      tails_ = std::make_unique<UnitTails>(table_->dram_entries(), created);
    write_path_ = std::make_unique<WritePath>(
        table_.get(), logs_.get(), background_.get(), tails_.get(), &closed_);
    payload_gc_ = std::make_unique<PayloadGc>(table_.get(), write_path_.get(),
                                              rewriter_.get(), &clock_);
    s = payload::PayloadLogs::Open(pool_.get(), payload_gc_.get(), &clock_,
                                   &payload_);
    if (!s.ok()) return s;
    if (payload_->enabled()) table_->set_resolver(payload_.get());
    unit_reader_ = std::make_unique<UnitReader>(table_.get(), payload_.get(),
                                                write_path_.get());
    return Status::OK();
  }

  static uint64_t Word(std::string_view s) {
    uint64_t w = 0;
    std::memcpy(&w, s.data(), std::min<size_t>(8, s.size()));
    return w;
  }

  Status Write(std::string_view key, std::string_view value, bool tombstone,
               bool log, uint64_t* ref_out) {
    WriteOptions options;
    options.log = log;
    if (ref_out != nullptr) *ref_out = 0;
    const KeyHasher& hasher = table_->hasher();
    for (;;) {
      const uint64_t version = hasher.version();
      bool moved = false;
      Status s;
      if (key.size() == 8 && (tombstone || value.size() == 8)) {
        const uint64_t word = Word(key);
        s = write_path_->WriteSlot(
            options, {hasher.InlineHash(word), version, key},
            {word, tombstone ? 0 : Word(value), tombstone, false}, &moved);
      } else {
        const KeyHasher::Placed placed = hasher.PlaceKey(key);
        uint64_t ref = 0;
        payload::PayloadLogs::Ticket ticket;
        s = payload_->Append(key, placed.hash, value, 0, &ref, &ticket);
        if (!s.ok()) return s;
        if (!log) pool_->media().Drain();
        s = write_path_->WriteSlot(
            options, {placed.hash, version, key, placed.indirect_word},
            {placed.indirect_word, ref, tombstone, true}, &moved);
        if (ref_out != nullptr) *ref_out = ref;
      }
      if (!s.ok() || !moved) return s;
    }
  }

  const std::string device_;
  const bool keep_device_;
  std::atomic<bool> closed_{false};
  WallClock clock_;
  std::unique_ptr<pool::Pool> pool_;
  std::unique_ptr<table::LeveledTable> table_;
  std::unique_ptr<BackgroundWork> background_;
  std::unique_ptr<LogRecycling> log_recycling_;
  std::unique_ptr<log::RecoveryLogs> logs_;
  std::unique_ptr<EntryRewriter> rewriter_;
  std::unique_ptr<UnitTails> tails_;
  std::unique_ptr<WritePath> write_path_;
  std::unique_ptr<PayloadGc> payload_gc_;
  std::unique_ptr<payload::PayloadLogs> payload_;
  std::unique_ptr<UnitReader> unit_reader_;
};

}  // namespace plush::test

#endif  // PLUSH_TESTS_ENGINE_LAYERS_H_
