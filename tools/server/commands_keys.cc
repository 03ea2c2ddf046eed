// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The keyspace commands: DEL, EXISTS, SCAN, DBSIZE.

#include <memory>
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

// DEL key [key ...]: the number of keys that existed. Each key is deleted
// atomically on its own (DB::Update), so the count is exact under
// concurrent writers; a crash in the middle may leave some deleted.
void RunDel(CommandCall& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.args.size(); ++i) {
    bool existed = false;
    Status s = call.server.db->Update(
        WriteOptions(), call.args[i],
        [&](const std::string* current, std::string*) {
          existed = current != nullptr;
          return existed ? DB::UpdateAction::kDelete : DB::UpdateAction::kKeep;
        });
    if (!s.ok()) {
      ReplyError(call.reply, s);
      return;
    }
    deleted += existed ? 1 : 0;
  }
  call.wrote = deleted > 0;
  call.reply.Integer(deleted);
}

// EXISTS key [key ...]: how many of the keys exist (a key named twice
// counts twice, as in Redis).
void RunExists(CommandCall& call) {
  const std::vector<std::string_view> keys(call.args.begin() + 1,
                                           call.args.end());
  std::vector<std::string> values;
  int64_t found = 0;
  for (const Status& s :
       call.server.db->MultiGet(ReadOptions(), keys, &values)) {
    if (s.ok()) {
      ++found;
    } else if (!s.IsNotFound()) {
      ReplyError(call.reply, s);
      return;
    }
  }
  call.reply.Integer(found);
}

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

}  // namespace plush::server
