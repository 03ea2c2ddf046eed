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
// A command whose puts go through the group commit suspends the
// connection until they are durable: only then is the write answered, and
// only then does the next request run (it may read what was written).
//
// Every handler of a connection runs on its strand; Close() may be called
// from any thread.

#ifndef PLUSH_TOOLS_SERVER_CONNECTION_H_
#define PLUSH_TOOLS_SERVER_CONNECTION_H_

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "group_commit.h"
#include "reply_writer.h"
#include "request_parser.h"
#include "server_context.h"

namespace plush::server {

class Connection final : public std::enable_shared_from_this<Connection>,
                         private GroupCommit::Waiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `on_destroy` runs when the connection is gone (the server's registry).
  Connection(asio::ip::tcp::socket socket, ServerContext& server,
             std::function<void(Connection*)> on_destroy);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void Start();
  // Closes the connection (from any thread). A command that is running
  // finishes; its reply is not sent.
  void Close();
  // Closes the connection if it made no progress (bytes in or out) for
  // `timeout`: checked on its strand, so that a command that ran long is
  // not mistaken for an idle client.
  void CloseIfIdle(Clock::duration timeout);

 private:
  // Runs the buffered requests; ends by reading, writing, or waiting for
  // a group commit.
  void Process();
  void Read();
  void Flush();
  void Committed(const Status& status) override;  // any thread
  void Shutdown();
  void Touch() {
    last_progress_.store(Clock::now().time_since_epoch().count());
  }

  asio::ip::tcp::socket socket_;
  ServerContext& server_;
  std::function<void(Connection*)> on_destroy_;
  RequestParser parser_;
  std::string output_;
  ReplyWriter reply_;
  Session session_;
  std::vector<KeyValue> puts_;
  // Keeps the connection alive while the group commit holds it.
  std::shared_ptr<Connection> committing_;
  bool closed_ = false;
  std::atomic<Clock::rep> last_progress_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_CONNECTION_H_
