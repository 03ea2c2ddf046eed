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
// With --sync-writes, the replies from the first write of a round on wait
// for the event loop's next sync (reply_sync.h), and go out with it; so
// do those of reads while another connection's write may be unsynced
// (SyncedWrites).
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
#include "reply_sync.h"
#include "reply_writer.h"
#include "request_parser.h"
#include "server_context.h"

namespace plush::server {

class Connection final : public std::enable_shared_from_this<Connection>,
                         public ClientHandle,
                         private ReplySync::Waiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `reply_sync`: its event loop's (used with --sync-writes only).
  Connection(asio::ip::tcp::socket socket, ServerContext& server,
             ReplySync& reply_sync);
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
  // Runs the buffered requests; ends by reading, writing, or waiting for
  // a sync.
  void Process();
  // Runs buffered requests until the buffer is used up or the replies
  // fill kFlushBytes.
  void RunBuffered();
  void Run(std::span<const std::string_view> args);
  // --sync-writes: the replies from unsynced_from_ on go out, or are
  // replaced with the sync's error and the connection closes.
  void Synced(const Status& status) override;
  void Read();
  void Flush();
  void Shutdown();
  void Touch() {
    last_progress_.store(Clock::now().time_since_epoch().count());
  }

  asio::ip::tcp::socket socket_;
  ServerContext& server_;
  ReplySync& reply_sync_;
  RequestParser parser_;
  std::string output_;
  ReplyWriter reply_;
  Session session_;
  // --sync-writes: where in output_ the replies begin that wait for a sync
  // (kNone: none).
  static constexpr size_t kNone = ~size_t{0};
  size_t unsynced_from_ = kNone;
  bool closed_ = false;
  std::atomic<Clock::rep> last_progress_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_CONNECTION_H_
