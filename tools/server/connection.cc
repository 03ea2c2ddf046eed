// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "connection.h"

#include "command.h"

namespace plush::server {
namespace {

// Replies are sent once this many bytes are waiting (or when the buffered
// requests are done).
constexpr size_t kFlushBytes = 256 << 10;
// An output buffer that grew beyond this is given back after a write.
constexpr size_t kIdleOutputBytes = 1 << 20;

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

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, ServerContext& server,
                       std::function<void(Connection*)> on_destroy)
    : socket_(std::move(socket)),
      server_(server),
      on_destroy_(std::move(on_destroy)),
      reply_(&output_) {
  session_.id = server_.next_client_id.fetch_add(1);
  session_.authenticated = !server_.config.password.has_value();
  if (!session_.authenticated) parser_.set_limits(UnauthenticatedLimits());
  server_.connected_clients.fetch_add(1);
  server_.total_connections.fetch_add(1);
  Touch();
}

Connection::~Connection() {
  server_.connected_clients.fetch_sub(1);
  on_destroy_(this);
}

void Connection::Start() {
  asio::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
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
  while (!closed_ && !session_.close_after_reply &&
         output_.size() < kFlushBytes) {
    const RequestParser::Outcome outcome = parser_.Next();
    if (outcome == RequestParser::Outcome::kNeedMore) break;
    if (outcome == RequestParser::Outcome::kRejected) {
      reply_.Error(parser_.error());
      continue;
    }
    if (outcome == RequestParser::Outcome::kProtocolError) {
      reply_.Error(parser_.error());
      session_.close_after_reply = true;
      break;
    }
    const bool was_authenticated = session_.authenticated;
    CommandCall call{server_, session_, parser_.args(), reply_, puts_};
    Execute(call);
    if (session_.authenticated && !was_authenticated) {
      parser_.set_limits(RequestLimits());
    }
    if (!puts_.empty()) {
      committing_ = shared_from_this();
      server_.group_commit.Submit(puts_, this);
      return;  // Committed() resumes
    }
  }
  if (closed_) return;
  Touch();
  if (output_.empty() && !session_.close_after_reply) {
    Read();
  } else {
    Flush();
  }
}

void Connection::Committed(const Status& status) {
  asio::post(socket_.get_executor(), [self = std::move(committing_), status] {
    self->puts_.clear();
    ReplyToPuts(self->reply_, status);
    self->Process();
  });
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
