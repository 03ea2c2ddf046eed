// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, as in Redis.
// Between MULTI and EXEC, Execute() queues the session's commands
// (QueueCommand); EXEC runs them one after the other with the keyspace
// gate held alone, so that no other client's command runs between them or
// sees part of them (keyspace_gate.h). A queued command that fails at run
// time does not stop the others, as in Redis.
//
// The commands run against a TransactionKeyspace (an overlay of the pool:
// each sees the writes of those before it), and their writes then reach
// the pool as one WriteBatch: a crash leaves all of the transaction or
// none of it, as Redis with an append-only file, which drops a transaction
// that a crash cut short. The replies are computed before that write; if
// it fails, every reply from the first command that wrote on is replaced
// by its error, since those replies may show writes that were not made.

#include <span>
#include <string>
#include <vector>

#include "command_handlers.h"
#include "plush/db.h"
#include "transaction_keyspace.h"

namespace plush::server {
namespace {

// Forgets the keys the session watches (WATCH).
void UnwatchAll(CommandCall& call) {
  call.server.watched_keys.Unwatch(call.session.id, call.session.watched);
  call.session.watched.clear();
  call.session.watched_bytes = 0;
  call.session.watched_expiry = 0;
}

// Whether a key the session watches expired since it watched it (Redis
// 6.0.9 and later fail EXEC then, as if the key had been written).
bool WatchedKeyExpired(const CommandCall& call) {
  const uint64_t expiry = call.session.watched_expiry;
  return expiry != 0 && call.server.clock->NowMs() > expiry;
}

// Runs one command against `keyspace`.
void RunAgainst(CommandCall& call, TransactionKeyspace& keyspace,
                std::span<const std::string_view> args) {
  CommandCall command{call.server, call.session, args, call.reply};
  command.keyspace = &keyspace;
  FindCommand(args[0])->run(command);
}

}  // namespace

void RunInOneBatch(CommandCall& call,
                   std::span<const std::span<const std::string_view>> commands) {
  TransactionKeyspace keyspace(call.server.db, call.server.flushable,
                               &call.server.watched_keys, *call.server.clock);
  // Where the reply of the first command that wrote begins, and its index.
  size_t first_write_reply = 0;
  size_t first_write = commands.size();
  for (size_t i = 0; i < commands.size(); ++i) {
    const size_t reply_start = call.reply.size();
    const size_t writes_before = keyspace.writes();
    RunAgainst(call, keyspace, commands[i]);
    if (first_write == commands.size() && keyspace.writes() > writes_before) {
      first_write = i;
      first_write_reply = reply_start;
    }
  }
  // With --sync-writes this write is synced itself: the reply need not
  // wait for the event loop's next sync (call.wrote stays false).
  const Status s = keyspace.Commit(call.server.config.sync_writes);
  if (s.ok() || first_write == commands.size()) return;
  call.reply.Truncate(first_write_reply);
  for (size_t i = first_write; i < commands.size(); ++i) {
    ReplyError(call.reply, s);
  }
}

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
// key was written or expired since WATCH. Either way the keys are no
// longer watched.
void RunExec(CommandCall& call) {
  if (!call.session.transaction) {
    call.reply.Error("ERR EXEC without MULTI");
    return;
  }
  const Transaction transaction =
      std::move(*call.session.transaction);
  const bool touched = call.server.watched_keys.Touched(call.session.id) ||
                       WatchedKeyExpired(call);
  DiscardTransaction(call);
  if (transaction.refused_command) {
    call.reply.Error(
        "EXECABORT Transaction discarded because of previous errors.");
  } else if (touched) {
    call.reply.NullArray();
  } else {
    std::vector<std::vector<std::string_view>> args;
    std::vector<std::span<const std::string_view>> commands;
    args.reserve(transaction.commands.size());
    for (const std::vector<std::string>& command : transaction.commands) {
      commands.emplace_back(args.emplace_back(command.begin(), command.end()));
    }
    call.reply.ArrayHeader(commands.size());
    RunInOneBatch(call, commands);
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

// WATCH key [key ...]: EXEC fails if one of them is written, or expires,
// before it. A key that has expired already is missing: nothing to watch
// expire (as Redis 7 ignores the expiry of a key expired at WATCH).
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
  // Read before the keys are watched, so that a failed read watches none.
  uint64_t earliest = call.session.watched_expiry;
  for (std::string_view key : call.args.subspan(1)) {
    uint64_t expiry = 0;
    const Status s = call.server.keyspace.GetExpiry(key, &expiry);
    if (!s.ok() && !s.IsNotFound()) {
      ReplyError(call.reply, s);
      return;
    }
    if (s.ok() && expiry != 0 && (earliest == 0 || expiry < earliest)) {
      earliest = expiry;
    }
  }
  for (std::string_view key : call.args.subspan(1)) {
    if (call.server.watched_keys.Watch(call.session.id, key)) {
      call.session.watched.emplace_back(key);
    }
  }
  call.session.watched_expiry = earliest;
  call.session.watched_bytes += bytes;
  call.reply.Ok();
}

void RunUnwatch(CommandCall& call) {
  UnwatchAll(call);
  call.reply.Ok();
}

}  // namespace plush::server
