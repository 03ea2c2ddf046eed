// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Plush: an embedded, persistent, write-optimized key-value store built on
// the Plush design (Vogel et al., VLDB 2022): a leveled hash table whose
// first level lives in a bounded amount of DRAM and whose other levels live
// in a pool on persistent memory (or an ordinary file), a partitioned
// write-ahead recovery log, and upsert-only writes.
//
// Including this header is all a user needs:
//
//   std::unique_ptr<plush::DB> db;
//   plush::Status s = plush::DB::Open(plush::Options(), "/mnt/pmem/pool", &db);
//   if (s.ok()) s = db->Put(plush::WriteOptions(), "key", "value");
//   std::string value;
//   if (s.ok()) s = db->Get(plush::ReadOptions(), "key", &value);
//
// Keys and values are arbitrary byte strings. Limits (enforced with
// InvalidArgument): keys up to kMaxKeySize bytes (the empty key is a valid
// key), values up to kMaxValueSize bytes (the empty value is a valid value).
// Records of an 8-byte key and an 8-byte value take the fixed-size fast path
// (stored inline in the hash table); all other sizes are stored in payload
// logs and referenced from the table.
//
// Thread safety: all methods may be called concurrently from any number of
// threads, except Close() and destruction, which must not race with other
// calls on the same DB (calls that start after Close() returned fail with
// InvalidArgument). Reads are lock-free; writes lock one DRAM directory
// entry at a time.
//
// Durability: see WriteOptions::log and docs/reliability.md. In short, a
// logged write is durable when Put/Delete returns, within the guarantee of
// the back end that Stats::backend names.

#ifndef PLUSH_DB_H_
#define PLUSH_DB_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plush/export.h"
#include "plush/iterator.h"
#include "plush/limits.h"
#include "plush/options.h"
#include "plush/stats.h"
#include "plush/status.h"
#include "plush/write_batch.h"

namespace plush {

class PLUSH_EXPORT DB {
 public:
  // Opens the pool at `path`, creating it if allowed by `options`, and
  // recovers it if it was not closed cleanly. On success stores the DB in
  // *db and returns OK; on failure leaves *db empty and returns:
  //   InvalidArgument  bad options, or a missing pool with !create_if_missing,
  //                    or an existing pool with error_if_exists
  //   Busy             the pool is open in this or another process
  //   Corruption       the pool's bytes are inconsistent
  //   NotSupported     another format version, a retired partitioning
  //                    (docs/format.md §2.1), or the media cannot meet
  //                    options.required_granularity / options.backend
  //   IOError, NoSpace from the operating system
  static Status Open(const Options& options, const std::string& path,
                     std::unique_ptr<DB>* db);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;
  // Closes the DB (see Close()); errors are ignored here, call Close() to
  // see them.
  virtual ~DB() = default;

  // Inserts or replaces the value of `key`. Returns OK, InvalidArgument
  // (sizes, closed DB) or NoSpace (the pool cannot grow; nothing changed).
  virtual Status Put(const WriteOptions& options, std::string_view key,
                     std::string_view value) = 0;

  // Stores the newest value of `key` in *value and returns OK, or returns
  // NotFound if the key does not exist (or was deleted, or expired).
  virtual Status Get(const ReadOptions& options, std::string_view key,
                     std::string* value) = 0;

  // Get() of many keys at once, in order: statuses[i] and (*values)[i]
  // answer keys[i] as Get would (*values is resized to keys.size(); the
  // value of a key that was not found is empty). Faster than one Get per
  // key: the lookups run in lockstep, so that their cache misses overlap.
  // Each key is looked up on its own (no snapshot across the keys).
  virtual std::vector<Status> MultiGet(const ReadOptions& options,
                                       const std::vector<std::string_view>& keys,
                                       std::vector<std::string>* values) = 0;

  // Removes `key` (writes a tombstone). Deleting a missing key is OK.
  virtual Status Delete(const WriteOptions& options, std::string_view key) = 0;

  // Applies every operation of *batch (write_batch.h) atomically, with one
  // persistence barrier for all of them (logged writes; see WriteOptions).
  // Returns OK; InvalidArgument (a key or value over its limit, naming the
  // operation; a batch over kMaxBatchRecords / kMaxBatchBytes; a closed
  // DB); NoSpace (nothing applied — unless the batch gave one DRAM
  // directory entry more operations than it holds: then it may be durable
  // and applied in part, and every later write fails with this error until
  // the pool is opened again, which applies it whole). An empty batch is
  // OK. Readers may see a batch's operations appear one by one; a crash
  // never leaves part of a batch.
  virtual Status Write(const WriteOptions& options, WriteBatch* batch) = 0;

  // Read-modify-write of one key, atomic with respect to every other
  // writer of the key: `fn` runs under the key's lock with the key's
  // current value (null if absent) and decides what happens.
  enum class UpdateAction {
    kKeep,    // change nothing
    kPut,     // store *new_value
    kDelete,  // delete the key
  };
  using UpdateFunction = std::function<UpdateAction(const std::string* current,
                                                    std::string* new_value)>;
  // `fn` may run more than once (when the write has to start over, e.g.
  // because the log rotated); each run gets an empty *new_value, only the
  // last run's result is applied, so it must not have side effects that
  // matter. Readers are never blocked: they see
  // the old or the new value. Returns OK, InvalidArgument (sizes, closed
  // DB), NoSpace, or Corruption (the current value cannot be read).
  virtual Status Update(const WriteOptions& options, std::string_view key,
                        const UpdateFunction& fn) = 0;

  // Update that also sees and decides the key's expiry: `fn` finds in
  // *expires_at_ms the expiry of the current value (0: none, or no value),
  // and a kPut stores what it leaves there (0: the new version never
  // expires; options.expires_at_ms is not used). Redis's PERSIST, GETSET
  // and SET ... GET are this: a decision on the value and its expiry
  // together, atomic like Update.
  using UpdateWithExpiryFunction = std::function<UpdateAction(
      const std::string* current, uint64_t* expires_at_ms,
      std::string* new_value)>;
  virtual Status UpdateWithExpiry(const WriteOptions& options,
                                  std::string_view key,
                                  const UpdateWithExpiryFunction& fn) = 0;

  // Adds `delta` to the 8-byte little-endian signed integer stored under
  // `key` (a missing key counts as 0), stores the sum, and returns it in
  // *result: Redis's INCRBY. InvalidArgument if the value is not 8 bytes
  // long or the sum overflows (nothing changes then).
  virtual Status Increment(const WriteOptions& options, std::string_view key,
                           int64_t delta, int64_t* result) = 0;

  // Sets the expiry of `key` to `expires_at_ms` (Unix milliseconds on
  // Options::clock; 0 = never expires), keeping its value: a new version
  // of the key, written as Update writes (options.expires_at_ms is not
  // used). Returns OK; NotFound if the key is absent or expired (nothing
  // written); InvalidArgument, NoSpace as Put.
  virtual Status Expire(const WriteOptions& options, std::string_view key,
                        uint64_t expires_at_ms) = 0;
  Status Expire(std::string_view key, uint64_t expires_at_ms) {
    return Expire(WriteOptions(), key, expires_at_ms);
  }

  // Stores the expiry of `key` in *expires_at_ms (0: it never expires) and
  // returns OK, or returns NotFound if the key is absent or expired.
  virtual Status GetExpiry(const ReadOptions& options, std::string_view key,
                           uint64_t* expires_at_ms) = 0;
  Status GetExpiry(std::string_view key, uint64_t* expires_at_ms) {
    return GetExpiry(ReadOptions(), key, expires_at_ms);
  }

  // Stores `value` under `key` unless the key exists; *inserted (if not
  // null) says which happened. Atomic like Update.
  Status PutIfAbsent(const WriteOptions& options, std::string_view key,
                     std::string_view value, bool* inserted = nullptr) {
    bool stored = false;
    Status s = Update(options, key,
                      [&](const std::string* current, std::string* next) {
                        stored = current == nullptr;
                        if (!stored) return UpdateAction::kKeep;
                        next->assign(value);
                        return UpdateAction::kPut;
                      });
    if (inserted != nullptr) *inserted = s.ok() && stored;
    return s;
  }

  // An ordered iterator (range-partitioned pools only; see iterator.h).
  // The caller owns it and must destroy it before the DB.
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) = 0;

  // Range pools: splits every unit due a split now (heavy, or its keys keep
  // growing past the mean), as the background thread and writers do as
  // units become due (Options::range_rebalance), until none is or no move
  // helps; *moves (if not null) receives the key-range moves made
  // (Stats::range_rebalances counts them all). Safe to call while other
  // threads read and write: writers of the two units a move involves wait
  // for it (milliseconds), readers do not. NotSupported on hash pools.
  // docs/operations.md, "Range partitioning".
  virtual Status Rebalance(uint64_t* moves) = 0;
  Status Rebalance() { return Rebalance(nullptr); }

  // Moves the whole DRAM level to persistent memory, so that every write
  // issued before the call (logged or not) is durable when it returns
  // (within the back end's guarantee; on the file back end it also syncs).
  // Safe to call while other threads read and write. `threads` > 1 splits
  // the work; 0 means one per hardware thread.
  virtual Status Checkpoint(unsigned threads) = 0;
  Status Checkpoint() { return Checkpoint(1); }

  // File back end: msync the pool, making everything written so far survive
  // a power failure. Other back ends: nothing to do, returns OK.
  // A failed sync is sticky: from then on Sync, Checkpoint, Close, Put and
  // Delete return its error until the pool is opened again (a writeback
  // error is reported only once, and the data it concerned may be lost).
  virtual Status Sync() = 0;

  // Walks the superblock, the allocator, every level and every log, and
  // checks their invariants. Returns OK, or Corruption describing the first
  // problem; if `report` is not null, appends one line per problem found
  // (with its location). Never crashes on a damaged pool. Online: on a DB
  // used by other threads, it checks one structure at a time under the
  // lock its writers take (a unit of the table, a log), so that a writer
  // waits at most for the check of its own unit, and readers never.
  virtual Status Verify(std::string* report) = 0;
  Status Verify() { return Verify(nullptr); }

  // Writes a consistent copy of the pool to the new file `path`, while
  // other threads keep using the DB: writers (and migrations, log
  // rotations) pause while the pool is copied — a reflink (no copy at all)
  // on file systems that share blocks, else about a second per GiB (see
  // docs/operations.md) — readers do not. The copy holds every write that
  // returned before Backup was called, unlogged ones too (they are made
  // durable first, as by Checkpoint), opens like a pool after a crash
  // (with DB::Open, anywhere) and passes Verify. Returns OK;
  // InvalidArgument if `path` exists (it is never overwritten) or the DB is
  // closed; NoSpace / IOError from the file system, leaving no file at
  // `path`.
  virtual Status Backup(const std::string& path) = 0;

  // Fills *stats (see stats.h).
  virtual Status GetStats(Stats* stats) = 0;

  // Stores the text of the property `name` in *value: "plush.<field>" for
  // each field of Stats ("plush.migrations" -> "1234"; lists
  // comma-separated, flags "true"/"false"), or "plush.stats" for all of
  // them, one "name: value" line each. NotFound for an unknown name,
  // InvalidArgument after Close().
  virtual Status GetProperty(std::string_view name, std::string* value) = 0;

  // Makes every write made before it durable (unlogged writes included: it
  // migrates the DRAM entries that hold them, like a Checkpoint()),
  // releases the pool (syncing it on the file back end) and its lock.
  // Returns NoSpace if unlogged writes could not be made durable (they are
  // lost; the message says how many DRAM entries held them), IOError if the
  // sync failed. Afterwards every call fails with InvalidArgument.
  // Idempotent.
  virtual Status Close() = 0;
};

}  // namespace plush

#endif  // PLUSH_DB_H_
