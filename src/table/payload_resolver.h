// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What the leveled hash table needs to know about indirect slots (a key
// hash and a payload reference instead of an inline key and value): the
// narrow interface between the table and the payload logs, which
// implement it. Neither layer includes the other's internals.

#ifndef PLUSH_TABLE_PAYLOAD_RESOLVER_H_
#define PLUSH_TABLE_PAYLOAD_RESOLVER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace plush::table {

// Whether a payload reference holds a given key.
enum class RefMatch {
  kYes,
  kNo,
  // The reference's chunk was compacted: a newer version of the key exists
  // (a reader racing the compaction sees this; it starts over).
  kDangling,
  // The entry holds the key, but its record expired: to readers, the key
  // is absent (as under a tombstone).
  kExpired,
};

// What a payload reference points to now.
enum class RefState {
  kLive,
  kExpired,   // a live entry whose record expired
  kDangling,  // its chunk was recycled
};

// Answers questions about indirect slots (payload references), for
// variable-length records. Without one, the table holds inline slots only.
class PayloadResolver {
 public:
  virtual ~PayloadResolver() = default;
  virtual RefMatch RefHasKey(uint64_t ref, std::string_view key) const = 0;
  // Copies the value of the entry `ref` into *value, and its expiry (0 =
  // none) into *expires_at_ms if not null, if its key is `key` and its
  // record has not expired (kYes); kExpired if it has; kNo if it holds
  // another key; kDangling if its chunk was freed.
  virtual RefMatch ReadValue(uint64_t ref, std::string_view key,
                             std::string* value,
                             uint64_t* expires_at_ms = nullptr) const = 0;
  // Starts loading what ReadValue(ref, ...) will read (a hint).
  virtual void PrefetchEntry(uint64_t ref) const = 0;
  // How many chunk frees have started (a counter bumped before the chunk's
  // epoch changes). A lookup that meets a dangling reference although no
  // free started since it began is looking at a damaged pool: in a healthy
  // one, a reference dangles only after its key's newer version was
  // published, which the lookup would have found first.
  virtual uint64_t chunk_frees_started() const = 0;
  // True iff both references point to live entries with equal keys.
  virtual bool RefsHaveSameKey(uint64_t a, uint64_t b) const = 0;
  // What `ref` points to now; *expires_at_ms (if not null) receives its
  // record's expiry (0 = none) when it is not dangling.
  virtual RefState StateOfRef(uint64_t ref,
                              uint64_t* expires_at_ms = nullptr) const = 0;
  // False iff `ref` is dangling (its chunk was recycled).
  bool IsLive(uint64_t ref) const {
    return StateOfRef(ref) != RefState::kDangling;
  }
  // Copies the key of the live entry `ref` into *key; false if dangling.
  virtual bool ReadKey(uint64_t ref, std::string* key) const = 0;
  // True iff `ref` is a complete entry whose key hashes to `key_hash`
  // (in the bits of `hash_mask`: a re-balanced range pool's verification
  // leaves out the bits that name the unit of the moment).
  virtual bool EntryIsIntact(uint64_t ref, uint64_t key_hash,
                             uint64_t hash_mask = ~uint64_t{0}) const = 0;
};

}  // namespace plush::table

#endif  // PLUSH_TABLE_PAYLOAD_RESOLVER_H_
