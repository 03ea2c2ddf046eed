// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The commands (one function each, grouped by family in commands_*.cc)
// and what they share. Internal to the command layer: command_table.cc
// lists them, Execute() runs them after the arity check, so each may rely
// on its arity.

#ifndef PLUSH_TOOLS_SERVER_COMMAND_HANDLERS_H_
#define PLUSH_TOOLS_SERVER_COMMAND_HANDLERS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "command_table.h"
#include "plush/status.h"
#include "reply_writer.h"

namespace plush::server {

// Error lines that several commands answer, in Redis's words.
inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kNotAnInteger =
    "ERR value is not an integer or out of range";

// The largest reply a command builds (MGET, SCAN, KEYS): one that would be
// larger answers an error, or stops early where the command can resume.
inline constexpr size_t kMaxReplyBytes = 64 << 20;

// The most a session's transaction may hold: the bytes of its queued
// commands, and apart from them those of the keys it watches
// (TransactionBytes). Beyond it, MULTI's queue refuses the command (and
// EXEC then fails), and WATCH the keys.
inline constexpr size_t kMaxTransactionBytes = 64 << 20;

// What `args` cost a transaction that holds them: their bytes, and
// kHeldArgumentBytes each for the string that keeps it.
inline constexpr size_t kHeldArgumentBytes = 32;
size_t TransactionBytes(std::span<const std::string_view> args);

// What the command reads and writes keys through: the pool, or the
// overlay of the transaction it runs in (keyspace.h).
inline Keyspace& Keys(CommandCall& call) {
  return call.keyspace != nullptr ? *call.keyspace : call.server.keyspace;
}

// A command wrote `key` (changed or not): clients that WATCH it are
// touched (in a transaction, once it is committed). REQUIRES: the keyspace
// gate held.
void KeyWritten(CommandCall& call, std::string_view key);

// Puts `pairs` through the keyspace (all or none) and answers +OK or the
// error.
void PutAndReply(CommandCall& call, std::span<const KeyValue> pairs);

// True iff `arg` is `keyword` (lower case) in any case.
bool IsKeyword(std::string_view arg, std::string_view keyword);

// A value, or the null reply for nullopt (a missing key).
void ReplyOptionalValue(ReplyWriter& reply,
                        const std::optional<std::string>& value);

// The time on the pool's clock (Unix ms): what expiries are judged by.
inline int64_t NowMs(const CommandCall& call) {
  return static_cast<int64_t>(call.server.clock->NowMs());
}

// commands_strings.cc
void RunGet(CommandCall& call);
void RunMGet(CommandCall& call);
void RunMSet(CommandCall& call);
void RunStrLen(CommandCall& call);
void RunIncr(CommandCall& call);
void RunDecr(CommandCall& call);
void RunIncrBy(CommandCall& call);
void RunDecrBy(CommandCall& call);
void RunIncrByFloat(CommandCall& call);

// commands_set.cc
void RunSet(CommandCall& call);
void RunSetNx(CommandCall& call);
void RunGetSet(CommandCall& call);
void RunSetEx(CommandCall& call);  // SETEX and PSETEX

// commands_expiry.cc
void RunExpire(CommandCall& call);
void RunPExpire(CommandCall& call);
void RunExpireAt(CommandCall& call);
void RunPExpireAt(CommandCall& call);
void RunTtl(CommandCall& call);
void RunPTtl(CommandCall& call);
void RunExpireTime(CommandCall& call);
void RunPExpireTime(CommandCall& call);
void RunPersist(CommandCall& call);
void RunGetEx(CommandCall& call);
void RunGetDel(CommandCall& call);

// commands_string_edits.cc
void RunAppend(CommandCall& call);
void RunGetRange(CommandCall& call);
void RunSetRange(CommandCall& call);

// commands_keys.cc
void RunDel(CommandCall& call);
void RunExists(CommandCall& call);
void RunType(CommandCall& call);
void RunRename(CommandCall& call);
void RunRenameNx(CommandCall& call);

// commands_key_walks.cc
void RunScan(CommandCall& call);
void RunDbSize(CommandCall& call);
void RunKeys(CommandCall& call);
void RunRandomKey(CommandCall& call);

// commands_flush.cc
void RunFlush(CommandCall& call);  // FLUSHDB and FLUSHALL

// commands_client.cc
void RunClient(CommandCall& call);
// CLIENT SETNAME's (and HELLO's SETNAME): names the session, or answers
// Redis's error for a name with spaces or special characters.
bool SetClientName(CommandCall& call, std::string_view name);

// commands_connection.cc
void RunPing(CommandCall& call);
void RunEcho(CommandCall& call);
void RunQuit(CommandCall& call);
void RunAuth(CommandCall& call);
void RunHello(CommandCall& call);
void RunSelect(CommandCall& call);
void RunReset(CommandCall& call);

// commands_transactions.cc
void RunMulti(CommandCall& call);
void RunExec(CommandCall& call);
void RunDiscard(CommandCall& call);
void RunWatch(CommandCall& call);
void RunUnwatch(CommandCall& call);
// Adds call.args to the session's transaction, or refuses it (too large).
void QueueCommand(CommandCall& call);
// Forgets the session's transaction and the keys it watches.
void DiscardTransaction(CommandCall& call);
// Runs `commands` in order, each writing its reply, against an overlay of
// the pool (each sees the writes of those before it), then writes all
// their writes as one WriteBatch (commands_transactions.cc: EXEC, and
// RENAME on its own). REQUIRES: the keyspace gate held alone.
void RunInOneBatch(CommandCall& call,
                   std::span<const std::span<const std::string_view>> commands);

// commands_server.cc
void RunInfo(CommandCall& call);
void RunSave(CommandCall& call);
void RunPlushVerify(CommandCall& call);
void RunLastSave(CommandCall& call);
void RunShutdown(CommandCall& call);
void RunCommand(CommandCall& call);
void RunTime(CommandCall& call);
void RunWait(CommandCall& call);

// commands_config.cc
void RunConfig(CommandCall& call);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_COMMAND_HANDLERS_H_
