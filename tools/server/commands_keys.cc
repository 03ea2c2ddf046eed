// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands on named keys: DEL (UNLINK), EXISTS (TOUCH), TYPE, RENAME,
// RENAMENX.

#include <string>
#include <vector>

#include "command_handlers.h"

namespace plush::server {

// DEL key [key ...], and UNLINK (which differs in Redis only in freeing
// the values' memory on another thread, a step a Plush delete does not
// have): the number of keys that existed. Each key is deleted atomically on its
// own (an Update of the keyspace), so the count is exact under concurrent
// writers; a crash in the middle may leave some deleted (not in EXEC,
// whose writes are one batch).
void RunDel(CommandCall& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.args.size(); ++i) {
    bool existed = false;
    Status s = Keys(call).Update(
        call.args[i], kKeepExpiry,
        [&](const std::string* current, std::string*) {
          existed = current != nullptr;
          return existed ? DB::UpdateAction::kDelete : DB::UpdateAction::kKeep;
        });
    if (!s.ok()) {
      ReplyError(call.reply, s);
      return;
    }
    if (existed) {
      ++deleted;
      KeyWritten(call, call.args[i]);
    }
  }
  call.wrote = deleted > 0;
  call.reply.Integer(deleted);
}

// EXISTS key [key ...], and TOUCH (which in Redis also updates the keys'
// access times, which this server does not keep): how many of the keys
// exist (a key named twice counts twice, as in Redis).
void RunExists(CommandCall& call) {
  const std::vector<std::string_view> keys(call.args.begin() + 1,
                                           call.args.end());
  std::vector<std::string> values;
  int64_t found = 0;
  for (const Status& s :
       Keys(call).MultiGet(keys, &values)) {
    if (s.ok()) {
      ++found;
    } else if (!s.IsNotFound()) {
      ReplyError(call.reply, s);
      return;
    }
  }
  call.reply.Integer(found);
}

// TYPE key: every value is a string.
void RunType(CommandCall& call) {
  std::string value;
  Status s = Keys(call).Get(call.args[1], &value);
  if (s.ok()) {
    call.reply.Status("string");
  } else if (s.IsNotFound()) {
    call.reply.Status("none");
  } else {
    ReplyError(call.reply, s);
  }
}

namespace {

// RENAME and RENAMENX (`only_if_absent`): Execute() runs them with the
// keyspace gate held alone against a transaction's overlay (kOneBatch), so
// that the put of the new key and the deletion of the old one reach the
// pool as one batch. The new key takes the old one's expiry (or none), as
// in Redis. Redis's replies: renaming a key to itself changes nothing and
// touches no watcher (RENAME answers OK, RENAMENX 0), and a missing key is
// an error even then.
void Rename(CommandCall& call, bool only_if_absent) {
  Keyspace& keys = Keys(call);
  const std::string_view from = call.args[1];
  const std::string_view to = call.args[2];
  std::string value;
  uint64_t expires_at_ms = 0;
  // The expiry first: if the key expires in between, the value is missing.
  Status s = keys.GetExpiry(from, &expires_at_ms);
  if (s.ok()) s = keys.Get(from, &value);
  if (s.IsNotFound()) {
    call.reply.Error("ERR no such key");
    return;
  }
  if (s.ok() && only_if_absent && from != to) {
    std::string existing;
    s = keys.Get(to, &existing);
    if (s.ok()) {
      call.reply.Integer(0);
      return;
    }
    if (s.IsNotFound()) s = Status::OK();
  }
  if (s.ok() && from != to) {
    s = keys.UpdateWithExpiry(
        to, [&](const std::string*, uint64_t* expiry, std::string* next) {
          *next = value;
          *expiry = expires_at_ms;
          return DB::UpdateAction::kPut;
        });
  }
  if (s.ok() && from != to) {
    // In the overlay, after the put succeeded, this cannot fail.
    s = keys.Update(from, kKeepExpiry, [](const std::string*, std::string*) {
      return DB::UpdateAction::kDelete;
    });
    KeyWritten(call, from);
    KeyWritten(call, to);
  }
  if (!s.ok()) {
    ReplyError(call.reply, s);
  } else if (only_if_absent) {
    call.reply.Integer(from != to ? 1 : 0);
  } else {
    call.reply.Ok();
  }
}

}  // namespace

// RENAME key newkey
void RunRename(CommandCall& call) { Rename(call, /*only_if_absent=*/false); }

// RENAMENX key newkey
void RunRenameNx(CommandCall& call) { Rename(call, /*only_if_absent=*/true); }

}  // namespace plush::server
