// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, as in Redis.
// Between MULTI and EXEC, Execute() queues the session's commands
// (QueueCommand); EXEC runs them one after the other with the keyspace
// gate held alone, so that no other client's command runs between them or
// sees part of them (keyspace_gate.h). A queued command that fails at run
// time does not stop the others, and nothing is rolled back, as in Redis.
//
// What EXEC does not give: the transaction's writes are made one by one,
// each durable on its own, so a crash during an EXEC may leave some of
// them made (Redis, with an append-only file, drops a transaction that a
// crash cut short when it loads the file).

#include <string>
#include <vector>

#include "command_handlers.h"
#include "plush/db.h"

namespace plush::server {
namespace {

// Forgets the keys the session watches (WATCH).
void UnwatchAll(CommandCall& call) {
  call.server.watched_keys.Unwatch(call.session.id, call.session.watched);
  call.session.watched.clear();
  call.session.watched_bytes = 0;
}

// Runs one queued command: the gate is already held, alone. A plain put
// (SET key value, MSET) is written here, as one WriteBatch, rather than
// through the group commit, whose writes pass the gate.
void RunQueued(CommandCall& call, const std::vector<std::string>& command) {
  const std::vector<std::string_view> args(command.begin(), command.end());
  std::vector<KeyValue> puts;
  CommandCall queued{call.server, call.session, args, call.reply, puts};
  FindCommand(args[0])->run(queued);
  call.wrote |= queued.wrote;
  if (puts.empty()) return;
  WriteBatch batch;
  for (const KeyValue& kv : puts) batch.Put(kv.key, kv.value);
  const Status s = call.server.db->Write(WriteOptions(), &batch);
  if (s.ok()) {
    for (const KeyValue& kv : puts) KeyWritten(call, kv.key);
    call.wrote = true;
  }
  ReplyToPuts(call.reply, s);
}

}  // namespace

void QueueCommand(CommandCall& call) {
  Transaction& transaction = *call.session.transaction;
  const size_t bytes = TransactionBytes(call.args);
  if (transaction.bytes + bytes > kMaxTransactionBytes) {
    transaction.refused_command = true;
    call.reply.Error("ERR the transaction would hold more than " +
                     std::to_string(kMaxTransactionBytes) +
                     " bytes of queued commands");
    return;
  }
  transaction.bytes += bytes;
  transaction.commands.emplace_back(call.args.begin(), call.args.end());
  call.reply.Status("QUEUED");
}

void DiscardTransaction(CommandCall& call) {
  call.session.transaction.reset();
  UnwatchAll(call);
}

void RunMulti(CommandCall& call) {
  if (call.session.transaction) {
    call.reply.Error("ERR MULTI calls can not be nested");
    return;
  }
  call.session.transaction.emplace();
  call.reply.Ok();
}

// EXEC: the replies of the queued commands, in an array; or EXECABORT if
// a command was refused while queueing, or the null array if a watched
// key was written since WATCH. Either way the keys are no longer watched.
void RunExec(CommandCall& call) {
  if (!call.session.transaction) {
    call.reply.Error("ERR EXEC without MULTI");
    return;
  }
  const Transaction transaction =
      std::move(*call.session.transaction);
  const bool touched = call.server.watched_keys.Touched(call.session.id);
  DiscardTransaction(call);
  if (transaction.refused_command) {
    call.reply.Error(
        "EXECABORT Transaction discarded because of previous errors.");
  } else if (touched) {
    call.reply.NullArray();
  } else {
    call.reply.ArrayHeader(transaction.commands.size());
    for (const std::vector<std::string>& command : transaction.commands) {
      RunQueued(call, command);
    }
  }
}

void RunDiscard(CommandCall& call) {
  if (!call.session.transaction) {
    call.reply.Error("ERR DISCARD without MULTI");
    return;
  }
  DiscardTransaction(call);
  call.reply.Ok();
}

// WATCH key [key ...]: EXEC fails if one of them is written before it.
void RunWatch(CommandCall& call) {
  if (call.session.transaction) {
    call.reply.Error("ERR WATCH inside MULTI is not allowed");
    return;
  }
  // As Redis: once touched, the next EXEC fails whatever is watched.
  if (call.server.watched_keys.Touched(call.session.id)) {
    call.reply.Ok();
    return;
  }
  const size_t bytes = TransactionBytes(call.args.subspan(1));
  if (call.session.watched_bytes + bytes > kMaxTransactionBytes) {
    call.reply.Error("ERR the watched keys would take more than " +
                     std::to_string(kMaxTransactionBytes) +
                     " bytes: UNWATCH first");
    return;
  }
  for (std::string_view key : call.args.subspan(1)) {
    if (call.server.watched_keys.Watch(call.session.id, key)) {
      call.session.watched.emplace_back(key);
    }
  }
  call.session.watched_bytes += bytes;
  call.reply.Ok();
}

void RunUnwatch(CommandCall& call) {
  UnwatchAll(call);
  call.reply.Ok();
}

}  // namespace plush::server
