// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// WriteBatch: many writes applied together by DB::Write(), atomically and
// at the cost of one persistence barrier:
//
//   plush::WriteBatch batch;
//   batch.Put("k1", "v1");
//   batch.Delete("k2");
//   batch.Put("k1", "v2");  // the later of two writes to a key wins
//   plush::Status s = db->Write(plush::WriteOptions(), &batch);
//
// What DB::Write promises (see db.h):
//   * atomic across crashes: after a crash at any moment, either every
//     operation of a batch whose Write returned OK is visible, or — for a
//     batch whose Write had not returned — all of them or none;
//   * not isolated: a reader running concurrently with Write may see the
//     batch's operations appear one by one (there are no snapshots);
//   * all or nothing on errors: a batch that is too large or holds an
//     oversized key or value is refused with InvalidArgument, one that
//     does not fit the pool with NoSpace, and nothing of it is applied —
//     except a batch that gives one DRAM directory entry more operations
//     than it holds, which NoSpace can leave durable but applied in part:
//     the DB then refuses writes until the pool is opened again (db.h).
//
// Limits: kMaxBatchRecords operations and kMaxBatchBytes of keys and
// values (plush/limits.h), on every pool, wherever the keys fall.
//
// Thread safety: a WriteBatch is a value; concurrent use needs external
// synchronisation. DB::Write does not change the batch.

#ifndef PLUSH_WRITE_BATCH_H_
#define PLUSH_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plush/export.h"
#include "plush/status.h"

namespace plush {

class PLUSH_EXPORT WriteBatch {
 public:
  WriteBatch() = default;

  // Appends an upsert of `key` to `value`. Sizes are checked by DB::Write.
  void Put(std::string_view key, std::string_view value);
  // Appends an upsert of `key` to `value` that expires at `expires_at_ms`
  // (Unix ms on the DB's Options::clock; 0 = never), whatever
  // WriteOptions::expires_at_ms says (which Put's records take).
  void PutWithExpiry(std::string_view key, std::string_view value,
                     uint64_t expires_at_ms);
  // Appends a deletion of `key` (deleting a missing key is fine).
  void Delete(std::string_view key);
  // Removes every operation.
  void Clear();
  // The number of operations.
  size_t Count() const { return count_; }
  // Bytes the batch occupies in memory: about its keys and values plus a
  // few bytes per operation.
  size_t ApproximateSize() const { return rep_.size(); }

  // Receives the operations in order (Iterate).
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void Put(std::string_view key, std::string_view value) = 0;
    // A PutWithExpiry; by default passed on as a Put (without its expiry),
    // for handlers that do not care.
    virtual void PutWithExpiry(std::string_view key, std::string_view value,
                               uint64_t expires_at_ms) {
      (void)expires_at_ms;
      Put(key, value);
    }
    virtual void Delete(std::string_view key) = 0;
  };
  // Calls the handler once per operation, in the order they were added.
  void Iterate(Handler* handler) const;

 private:
  std::string rep_;  // per operation: tag, key length, key[, value length,
                     // value[, expiry]]; lengths as 32-bit little-endian
                     // integers, the expiry as a 64-bit one
  size_t count_ = 0;
};

}  // namespace plush

#endif  // PLUSH_WRITE_BATCH_H_
