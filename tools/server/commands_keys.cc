// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands on named keys: DEL (UNLINK), EXISTS (TOUCH), TYPE.

#include <string>
#include <vector>

#include "command_handlers.h"

namespace plush::server {

// DEL key [key ...], and UNLINK (which differs in Redis only in freeing
// the values' memory on another thread, a step a Plush delete does not
// have): the number of keys that existed. Each key is deleted atomically on its
// own (DB::Update), so the count is exact under concurrent writers; a crash
// in the middle may leave some deleted.
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

// TYPE key: every value is a string.
void RunType(CommandCall& call) {
  std::string value;
  Status s = call.server.db->Get(ReadOptions(), call.args[1], &value);
  if (s.ok()) {
    call.reply.Status("string");
  } else if (s.IsNotFound()) {
    call.reply.Status("none");
  } else {
    ReplyError(call.reply, s);
  }
}

}  // namespace plush::server
