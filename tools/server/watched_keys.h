// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// WatchedKeys: the keys that clients WATCH, and which clients a write to
// one of them has touched since, so that their EXEC fails (Redis's
// optimistic locking). Every write of a key tells Touch(), whether or not
// it changed the value (Redis counts a SET of the same value, an INCRBY 0
// and an APPEND of nothing as writes; a SETNX that stored nothing and a
// DEL of a missing key as none).
//
// Watch() must be called with the keyspace gate held alone, Touch() with
// it held (keyspace_gate.h): a write is then either over before WATCH
// looks, and what the watcher reads next includes it, or it sees the key
// watched. That is also what lets Touch() skip the mutex while no key is
// watched.

#ifndef PLUSH_TOOLS_SERVER_WATCHED_KEYS_H_
#define PLUSH_TOOLS_SERVER_WATCHED_KEYS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "util/mutex.h"

namespace plush::server {

class WatchedKeys {
 public:
  // Client `client` watches `key`. False (and nothing changes) if it
  // watches it already.
  bool Watch(uint64_t client, std::string_view key) EXCLUDES(mu_);
  // The client watches none of `keys` (the keys it watched) any more, and
  // is no longer touched.
  void Unwatch(uint64_t client, const std::vector<std::string>& keys)
      EXCLUDES(mu_);
  // `key` was written: every client that watches it is touched.
  void Touch(std::string_view key) EXCLUDES(mu_);
  // Whether a key the client watches was written since it watched it.
  bool Touched(uint64_t client) EXCLUDES(mu_);
  // Every key some client watches (FLUSHDB touches those it deletes).
  std::vector<std::string> Keys() EXCLUDES(mu_);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>()(key);
    }
  };

  Mutex mu_;
  std::unordered_map<std::string, std::vector<uint64_t>, Hash,
                     std::equal_to<>>
      watchers_ GUARDED_BY(mu_);
  std::unordered_set<uint64_t> touched_ GUARDED_BY(mu_);
  // watchers_.size(), read without the mutex by Touch().
  std::atomic<size_t> watched_keys_{0};
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_WATCHED_KEYS_H_
