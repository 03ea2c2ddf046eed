// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Connection: one client. Reads requests into its RequestParser, runs
// them one after the other through the command layer, and sends the
// replies: read, run everything buffered, write, read again. So a client
// that pipelines gets its replies in batches, and a client that stops
// reading stops only itself (its requests are not read while its replies
// wait to be sent). The replies of one round are capped at kFlushBytes
// before they are sent, so large replies do not pile up.
//
// Plain puts (SET key value, MSET) are answered only when durable, through
// the group commit: the connection runs the puts it finds in a row in its
// buffer, submits them together, and waits; the next request (which may
// read what they wrote) runs once they are committed and answered.
//
// Every handler of a connection runs on the thread of its event loop
// (server.h); Close() may be called from any thread.

#ifndef PLUSH_TOOLS_SERVER_CONNECTION_H_
#define PLUSH_TOOLS_SERVER_CONNECTION_H_

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client_registry.h"
#include "group_commit.h"
#include "reply_writer.h"
#include "request_parser.h"
#include "server_context.h"

namespace plush::server {

class Connection final : public std::enable_shared_from_this<Connection>,
                         public ClientHandle,
                         private GroupCommit::Waiter {
 public:
  using Clock = std::chrono::steady_clock;

  Connection(asio::ip::tcp::socket socket, ServerContext& server);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Enters the connection in server.clients and starts serving it.
  void Start();
  // Closes the connection (from any thread). A command that is running
  // finishes; its reply is not sent.
  void Close() override;
  // Closes the connection if it made no progress (bytes in or out) for
  // `timeout`: checked on its event loop, so that a command that ran long
  // is not mistaken for an idle client.
  void CloseIfIdle(Clock::duration timeout) override;

 private:
  // Runs the buffered requests and commits their puts; ends by reading,
  // writing, or waiting for a group commit or a sync.
  void Process();
  // Runs buffered requests until one has to wait for the puts before it,
  // the buffer is used up, or the replies fill kFlushBytes.
  void RunBuffered();
  // Executes one request; a plain put's puts join puts_.
  void Run(std::span<const std::string_view> args);
  // True iff the plain put `args` may join puts_ before they are
  // committed: a submission stays within the limits of one batch.
  bool FitsPendingPuts(std::span<const std::string_view> args) const;
  // Submits puts_ to the group commit. True if they were committed (and
  // answered) before Submit returned; false if Committed() will resume.
  bool CommitPuts();
  void AnswerPuts();
  // --sync-writes: has the writer tell Committed() once a sync covers the
  // replies from unsynced_from_ on; AnswerSync() then lets them go, or
  // replaces them with the sync's error and closes the connection.
  void AwaitSync();
  void AnswerSync();
  void Read();
  void Flush();
  void Committed(std::vector<Status> statuses) override;  // any thread
  void Shutdown();
  void Touch() {
    last_progress_.store(Clock::now().time_since_epoch().count());
  }

  asio::ip::tcp::socket socket_;
  ServerContext& server_;
  RequestParser parser_;
  std::string output_;
  ReplyWriter reply_;
  Session session_;
  // The puts of the plain-put commands run since the last commit, and
  // where each command's puts end.
  std::vector<KeyValue> puts_;
  std::vector<size_t> command_ends_;
  size_t pending_bytes_ = 0;  // keys and values in puts_
  // A parsed outcome that waits for the puts before it to be answered.
  std::optional<RequestParser::Outcome> held_;
  // Keeps the connection alive while the group commit holds it.
  std::shared_ptr<Connection> committing_;
  // Keeps the event loop running meanwhile (outstanding work): on SHUTDOWN
  // the loop ends only once the commit is answered (with --sync-writes the
  // writer thread answers it, after the loop may have run out of handlers).
  asio::any_io_executor awaiting_commit_;
  // --sync-writes: where in output_ the replies begin that wait for a sync
  // (of writes made outside the group commit; kNone: none), and whether
  // the group commit's Committed() answers such a wait (AwaitSync).
  static constexpr size_t kNone = ~size_t{0};
  size_t unsynced_from_ = kNone;
  bool awaiting_sync_ = false;
  // Who goes on after a commit: CommitPuts() if Committed() came while it
  // was still in Submit() (kDone), else Committed() (kWaiting).
  enum class CommitState { kSubmitting, kWaiting, kDone };
  std::atomic<CommitState> commit_state_{CommitState::kDone};
  std::vector<Status> statuses_;  // of the last commit or sync
  bool closed_ = false;
  std::atomic<Clock::rep> last_progress_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_CONNECTION_H_
