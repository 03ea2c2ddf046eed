// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// SCAN cursors of a range pool. A hash pool's cursor is a partition index,
// which stays valid for the pool's life. A range pool's partitions are
// positions in key order that re-balancing inserts and removes (docs/
// architecture.md, "Re-balancing a range pool"): an index could skip keys
// after a merge. Its cursor names instead the key where the next call
// resumes (Iterator::Seek), kept here: every key that exists throughout a
// full iteration is returned once. The table keeps the newest kCapacity
// cursors; an older one answers "invalid cursor" (as does any cursor the
// server did not hand out), never a partial iteration.
//
// Thread safety: thread-safe (one mutex).

#ifndef PLUSH_TOOLS_SERVER_SCAN_CURSORS_H_
#define PLUSH_TOOLS_SERVER_SCAN_CURSORS_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace plush::server {

class ScanCursors {
 public:
  static constexpr size_t kCapacity = 1 << 16;

  // A new cursor (never 0: 0 starts and ends an iteration) for `resume`.
  uint64_t Add(std::string_view resume);
  // The key cursor `cursor` resumes at; nullopt if unknown or expired.
  std::optional<std::string> Find(uint64_t cursor) const;

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;
  std::unordered_map<uint64_t, std::string> keys_;
  std::deque<uint64_t> order_;  // oldest first
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_SCAN_CURSORS_H_
