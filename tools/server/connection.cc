// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "connection.h"

#include <utility>

#include "command_table.h"

namespace plush::server {
namespace {

// Replies are sent once this many bytes are waiting (or when the buffered
// requests are done).
constexpr size_t kFlushBytes = 256 << 10;
// An output buffer that grew beyond this is given back after a write.
constexpr size_t kIdleOutputBytes = 1 << 20;

// After AUTH (or without a password): a request as large as a write batch.
RequestLimits AuthenticatedLimits(const ServerContext& server) {
  RequestLimits limits;
  limits.max_request_bytes = server.max_write_bytes;
  return limits;
}

// Before AUTH, requests are held small, as Redis does (at most 10
// arguments of 16 KiB): a client without the password cannot make the
// server buffer much.
RequestLimits UnauthenticatedLimits() {
  RequestLimits limits;
  limits.max_arguments = 10;
  limits.max_argument_bytes = 16 << 10;
  limits.max_bulk_length = 16 << 10;
  limits.max_request_bytes = 64 << 10;
  return limits;
}

// ip:port, as CLIENT LIST spells addresses.
std::string Address(const asio::ip::tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" +
         std::to_string(endpoint.port());
}

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, ServerContext& server,
                       ReplySync& reply_sync)
    : socket_(std::move(socket)),
      server_(server),
      reply_sync_(reply_sync),
      reply_(&output_) {
  session_.id = server_.next_client_id.fetch_add(1);
  session_.authenticated = !server_.config.password.has_value();
  parser_.set_limits(session_.authenticated ? AuthenticatedLimits(server_)
                                            : UnauthenticatedLimits());
  server_.connected_clients.fetch_add(1);
  server_.total_connections.fetch_add(1);
  Touch();
}

Connection::~Connection() {
  server_.watched_keys.Unwatch(session_.id, session_.watched);
  server_.clients.Remove(session_.id);
  server_.connected_clients.fetch_sub(1);
}

void Connection::Start() {
  asio::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  session_.client = std::make_shared<ClientRecord>(
      session_.id, Address(socket_.remote_endpoint(ignored)),
      Address(socket_.local_endpoint(ignored)),
      static_cast<int>(socket_.native_handle()));
  server_.clients.Add(session_.client, weak_from_this());
  asio::post(socket_.get_executor(),
             [self = shared_from_this()] { self->Process(); });
}

void Connection::Close() {
  asio::post(socket_.get_executor(),
             [self = shared_from_this()] { self->Shutdown(); });
}

void Connection::CloseIfIdle(Clock::duration timeout) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), timeout] {
    const Clock::time_point last{Clock::duration(self->last_progress_.load())};
    if (Clock::now() - last >= timeout) self->Shutdown();
  });
}

void Connection::Process() {
  RunBuffered();
  if (closed_) return;
  Touch();
  if (unsynced_from_ != kNone) {
    // (The waiter shares the connection's ownership.)
    reply_sync_.Await(std::shared_ptr<ReplySync::Waiter>(
        shared_from_this(), static_cast<ReplySync::Waiter*>(this)));
    // Synced() flushes
  } else if (output_.empty() && !session_.close_after_reply) {
    Read();
  } else {
    Flush();
  }
}

void Connection::RunBuffered() {
  using Outcome = RequestParser::Outcome;
  while (!closed_ && !session_.close_after_reply &&
         output_.size() < kFlushBytes) {
    const Outcome outcome = parser_.Next();
    if (outcome == Outcome::kNeedMore) return;
    if (outcome == Outcome::kRejected) {
      reply_.Error(parser_.error());
    } else if (outcome == Outcome::kProtocolError) {
      reply_.Error(parser_.error());
      session_.close_after_reply = true;
    } else {
      Run(parser_.args());
    }
  }
}

void Connection::Run(std::span<const std::string_view> args) {
  const bool was_authenticated = session_.authenticated;
  const size_t reply_from = output_.size();
  CommandCall call{server_, session_, args, reply_};
  const bool sync_writes = server_.config.sync_writes;
  const bool may_write = sync_writes && MayWrite(args);
  if (may_write) server_.synced_writes.Begin();
  Execute(call);
  if (may_write) server_.synced_writes.End();
  // A reply that may show a write not yet synced, its own or another's,
  // waits for a sync.
  if (sync_writes && unsynced_from_ == kNone &&
      (call.wrote || server_.synced_writes.Uncovered())) {
    unsynced_from_ = reply_from;
  }
  if (session_.authenticated != was_authenticated) {  // AUTH, RESET
    parser_.set_limits(session_.authenticated ? AuthenticatedLimits(server_)
                                              : UnauthenticatedLimits());
  }
}

// A failed sync is the answer to the first write it was to cover: the
// replies from there on are dropped (the writes were made, but not
// durably), and the connection ends after the error, since the replies it
// owes for the requests after that write are gone.
void Connection::Synced(const Status& status) {
  if (!status.ok()) {
    output_.resize(unsynced_from_);
    ReplyError(reply_, status);
    session_.close_after_reply = true;
  }
  unsynced_from_ = kNone;
  Flush();
}

void Connection::Read() {
  const std::span<char> space = parser_.ReadSpace();
  socket_.async_read_some(
      asio::buffer(space.data(), space.size()),
      [self = shared_from_this()](const asio::error_code& error, size_t bytes) {
        if (error) {  // the client left, or Close()
          self->Shutdown();
          return;
        }
        self->parser_.Received(bytes);
        self->Process();
      });
}

void Connection::Flush() {
  if (output_.empty()) {  // closing, nothing left to say
    Shutdown();
    return;
  }
  asio::async_write(
      socket_, asio::buffer(output_),
      [self = shared_from_this()](const asio::error_code& error, size_t) {
        if (error) {
          self->Shutdown();
          return;
        }
        self->output_.clear();
        if (self->output_.capacity() > kIdleOutputBytes) {
          std::string().swap(self->output_);
        }
        if (self->session_.close_after_reply) {
          self->Shutdown();
          return;
        }
        self->Process();
      });
}

void Connection::Shutdown() {
  if (closed_) return;
  closed_ = true;
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace plush::server
