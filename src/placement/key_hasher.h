// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The 64-bit "table hash" of a key under a pool's partitioning: it decides
// the key's directory entry on every level (bits [0, d) the DRAM entry, the
// next bits its children), its recovery log, its filter bits, and it is
// what an indirect slot stores in place of the key (docs/format.md,
// "Partitioning").
//
//   hash partitioning    KeyHash(key)
//   range partitioning   (KeyHash(key) << d | unit(key)) mod 2^40
//                        unit = the unit the pool's range map names for
//                               the key's position (placement/range_map.h)
//
// with d = dram_directory_bits. A range pool's bits 40..63 are zero: an
// indirect slot's key word holds there the key's fingerprint on its unit
// (placement/key_fingerprint.h). Range partitioning thus orders the DRAM
// entries by key (an ordered scan visits them in the order of the map's
// positions); below the DRAM level keys still spread by hash, so that a
// DRAM entry's subtree fills evenly whatever the keys of its unit look
// like.
//
// Part of the on-media format (indirect slots and payload checksums store
// the table hash): DO NOT CHANGE. Only tests replace KeyHash, to force
// collisions (EngineSeams::key_hash).

#ifndef PLUSH_PLACEMENT_KEY_HASHER_H_
#define PLUSH_PLACEMENT_KEY_HASHER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "placement/key_fingerprint.h"
#include "placement/key_hash.h"
#include "placement/range_map.h"

namespace plush {

class KeyHasher {
 public:
  // Hash partitioning: the table hash is the key hash, whatever the number
  // of DRAM entries. `key_hash`, if not null, replaces KeyHash for keys
  // that are not 8 bytes long (8-byte keys keep theirs: inline slots are
  // rehashed from their key word): EngineSeams::key_hash.
  explicit KeyHasher(KeyHashFunction key_hash = nullptr)
      : key_hash_(key_hash) {}
  // Range partitioning (order-preserving DRAM placement) on `map` (not
  // null), over its 2^map->bits() units; indirect slots carry their keys'
  // fingerprints.
  explicit KeyHasher(std::shared_ptr<const RangeMap> map,
                     KeyHashFunction key_hash = nullptr)
      : dram_bits_(map->bits()),
        hash_bits_(~fingerprint::kMask),
        map_(std::move(map)),
        key_hash_(key_hash) {}

  bool range() const { return map_ != nullptr; }
  // The bits of a slot's key word that hold the table hash.
  uint64_t hash_bits() const { return hash_bits_; }
  // Range partitioning: the range map (else null).
  const RangeMap* map() const { return map_.get(); }

  uint64_t Hash(std::string_view key) const {
    const uint64_t h = HashOf(key);
    return map_ ? Place(h, map_->UnitOf(key)) : h;
  }
  // Hash(key), and the key word of an indirect slot of the key: the hash
  // and, in range pools, the key's fingerprint on its unit.
  struct Placed {
    uint64_t hash;
    uint64_t indirect_word;
  };
  Placed PlaceKey(std::string_view key) const {
    if (!map_) {
      const uint64_t h = HashOf(key);
      return {h, h};
    }
    const std::string* upper = nullptr;
    const std::string* lower = nullptr;
    const uint64_t h = Place(HashOf(key), map_->UnitOf(key, &upper, &lower));
    return {h, h | fingerprint::Of(key, lower ? *lower : std::string_view())};
  }

  // Hash() of an 8-byte key stored inline as a little-endian word.
  uint64_t InlineHash(uint64_t key_word) const {
    const uint64_t h = InlineKeyHash(key_word);
    if (!map_) return h;
    return Place(h, map_->UnitOf(std::string_view(
                        reinterpret_cast<const char*>(&key_word), 8)));
  }

  // InlineHash() as written into the subtree of DRAM entry `unit`: there,
  // every record was written on that unit (copies a re-balance left behind
  // of keys it moved out too), and no map is searched.
  uint64_t InlineHashOnUnit(uint64_t key_word, uint64_t unit) const {
    const uint64_t h = InlineKeyHash(key_word);
    return map_ ? Place(h, unit) : h;
  }

  // Hash() as if the map named `unit` for the key: what a re-balance
  // writes the copy of a record with. REQUIRES: range().
  uint64_t HashOnUnit(std::string_view key, uint64_t unit) const {
    return Place(HashOf(key), unit);
  }
  // The key word of an indirect slot of `key` written on `unit`, whose
  // range begins at `lower`. REQUIRES: range().
  uint64_t IndirectWordOnUnit(std::string_view key, uint64_t unit,
                              std::string_view lower) const {
    return HashOnUnit(key, unit) | fingerprint::Of(key, lower);
  }

  // The range map's version (0 in hash pools): the same value before and
  // after some work means the work placed keys on one map throughout.
  uint64_t version() const { return map_ ? map_->version() : 0; }
  // After reads that placed keys at `version`: the map did not change
  // meanwhile (the reads before it are ordered before the check).
  bool Unchanged(uint64_t version) const {
    return map_ == nullptr || map_->Unchanged(version);
  }

 private:
  uint64_t HashOf(std::string_view key) const {
    if (key_hash_ != nullptr && key.size() != 8) [[unlikely]]
      return key_hash_(key);
    return KeyHash(key);
  }
  uint64_t Place(uint64_t hash, uint64_t unit) const {
    if (dram_bits_ == 0) return hash & hash_bits_;
    return (hash << dram_bits_ | unit) & hash_bits_;
  }

  unsigned dram_bits_ = 0;
  uint64_t hash_bits_ = ~uint64_t{0};
  std::shared_ptr<const RangeMap> map_;  // null: hash partitioning
  KeyHashFunction key_hash_ = nullptr;   // null: KeyHash
};

}  // namespace plush

#endif  // PLUSH_PLACEMENT_KEY_HASHER_H_
