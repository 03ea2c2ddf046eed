// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands that walk the pool with an Iterator: SCAN, DBSIZE, KEYS,
// RANDOMKEY.

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "command_handlers.h"
#include "glob.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

// SCAN's options.
struct ScanFilter {
  std::string_view pattern = "*";
  uint64_t count = 10;       // keys to visit, at least (Redis's default)
  bool type_matches = true;  // TYPE other than "string" matches nothing
};

// Parses SCAN's options from args[2...]; false after answering the error.
bool ParseScanOptions(CommandCall& call, ScanFilter* filter) {
  for (size_t i = 2; i < call.args.size(); i += 2) {
    if (i + 1 == call.args.size()) {
      call.reply.Error(kSyntaxError);
      return false;
    }
    const std::string_view option = call.args[i];
    const std::string_view value = call.args[i + 1];
    if (IsKeyword(option, "match")) {
      filter->pattern = value;
    } else if (IsKeyword(option, "count")) {
      const std::optional<int64_t> count = ParseInteger(value);
      if (!count) {
        call.reply.Error(kNotAnInteger);
        return false;
      }
      if (*count < 1) {
        call.reply.Error(kSyntaxError);
        return false;
      }
      filter->count = static_cast<uint64_t>(*count);
    } else if (IsKeyword(option, "type")) {
      // Every Plush value is a string.
      filter->type_matches = IsKeyword(value, "string");
    } else {
      call.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

}  // namespace

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. A call returns
// whole partitions, at least COUNT keys visited unless the pool ends, so it
// may return more keys than COUNT (a partition holds about keys /
// 2^dram_directory_bits). A hash pool's cursor is a partition index
// (iterator.h), fixed for the pool's life; a range pool's names the key
// the next call resumes at (scan_cursors.h), as its partitions move. Either
// way a full iteration returns every key that exists throughout it, once.
void RunScan(CommandCall& call) {
  const std::optional<uint64_t> cursor = ParseUnsigned(call.args[1]);
  std::optional<std::string> resume;
  if (cursor && call.server.ordered && *cursor != 0)
    resume = call.server.scan_cursors.Find(*cursor);
  if (!cursor || (call.server.ordered && *cursor != 0 && !resume)) {
    call.reply.Error("ERR invalid cursor");
    return;
  }
  ScanFilter filter;
  if (!ParseScanOptions(call, &filter)) return;

  std::unique_ptr<Iterator> it = call.server.db->NewIterator(ReadOptions());
  if (resume) {
    it->Seek(*resume);
  } else {
    it->SeekToPartition(call.server.ordered ? 0 : *cursor);
  }
  std::vector<std::string> keys;
  uint64_t visited = 0;
  size_t key_bytes = 0;
  while (it->Valid() && visited < filter.count &&
         key_bytes < kMaxReplyBytes / 2) {
    const uint64_t partition = it->partition();
    for (; it->Valid() && it->partition() == partition; it->Next()) {
      ++visited;
      if (filter.type_matches && GlobMatch(filter.pattern, it->key())) {
        keys.emplace_back(it->key());
        key_bytes += it->key().size();
      }
    }
  }
  if (!it->status().ok()) {
    ReplyError(call.reply, it->status());
    return;
  }
  // Where the next call resumes, or 0 when the iteration is complete.
  const uint64_t next = !it->Valid()            ? 0
                        : call.server.ordered ? call.server.scan_cursors.Add(
                                                    it->key())
                                              : it->partition();
  call.reply.ArrayHeader(2);
  call.reply.Bulk(std::to_string(next));
  call.reply.ArrayHeader(keys.size());
  for (const std::string& key : keys) call.reply.Bulk(key);
}

// DBSIZE: exact, by counting every live key (O(keys), unlike Redis's; the
// "keys" of INFO keyspace is the constant-time estimate).
void RunDbSize(CommandCall& call) {
  std::unique_ptr<Iterator> it = call.server.db->NewIterator(ReadOptions());
  int64_t keys = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++keys;
  if (it->status().ok()) {
    call.reply.Integer(keys);
  } else {
    ReplyError(call.reply, it->status());
  }
}

// KEYS pattern: every key that matches, from one walk of the whole pool,
// O(keys) whatever the pattern (as in Redis; SCAN spreads the same walk
// over many calls). A reply that would exceed kMaxReplyBytes answers an
// error instead.
void RunKeys(CommandCall& call) {
  const std::string_view pattern = call.args[1];
  std::unique_ptr<Iterator> it = call.server.db->NewIterator(ReadOptions());
  std::vector<std::string> keys;
  size_t reply_bytes = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!GlobMatch(pattern, it->key())) continue;
    // "$<length>\r\n<key>\r\n", the length at most kMaxKeySize (4 digits).
    reply_bytes += it->key().size() + 9;
    if (reply_bytes > kMaxReplyBytes) {
      call.reply.Error("ERR the reply would exceed " +
                       std::to_string(kMaxReplyBytes) +
                       " bytes: iterate with SCAN instead");
      return;
    }
    keys.emplace_back(it->key());
  }
  if (!it->status().ok()) {
    ReplyError(call.reply, it->status());
    return;
  }
  call.reply.ArrayHeader(keys.size());
  for (const std::string& key : keys) call.reply.Bulk(key);
}

// RANDOMKEY: a random key of the first partition that holds keys from a
// random partition index on, or null for an empty pool. Reads that
// partition (about keys / 2^dram_directory_bits of them), the empty ones
// before it and the one after it (where the walk learns it ended), rather
// than every key; the price is that the choice is not uniform: keys of
// sparsely filled partitions, and of those after empty ones, come up more
// often.
void RunRandomKey(CommandCall& call) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::unique_ptr<Iterator> it = call.server.db->NewIterator(ReadOptions());
  it->SeekToPartition(std::uniform_int_distribution<uint64_t>(
      0, call.server.partitions - 1)(random));
  if (it->status().ok() && !it->Valid()) it->SeekToFirst();
  std::optional<std::string> chosen;
  if (it->Valid()) {
    const uint64_t partition = it->partition();
    uint64_t seen = 0;
    for (; it->Valid() && it->partition() == partition; it->Next()) {
      // Reservoir sampling: the n-th key replaces the choice with
      // probability 1/n, so every key of the partition is equally likely.
      if (std::uniform_int_distribution<uint64_t>(0, seen++)(random) == 0) {
        chosen.emplace(it->key());
      }
    }
  }
  if (!it->status().ok()) {
    ReplyError(call.reply, it->status());
  } else if (chosen) {
    call.reply.Bulk(*chosen);
  } else {
    call.reply.Null();
  }
}

}  // namespace plush::server
