// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "connection.h"

#include <utility>

#include "command_table.h"

namespace plush::server {
namespace {

// Replies are sent once this many bytes are waiting (or when the buffered
// requests are done).
constexpr size_t kFlushBytes = 256 << 10;
// A pipeline's puts are committed at the latest once this many are
// waiting (or ServerContext::max_write_bytes of them).
constexpr size_t kMaxPipelinedPuts = 1024;
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

Connection::Connection(asio::ip::tcp::socket socket, ServerContext& server)
    : socket_(std::move(socket)), server_(server), reply_(&output_) {
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
  for (;;) {
    RunBuffered();
    if (closed_) return;
    if (puts_.empty()) break;
    if (!CommitPuts()) return;  // Committed() resumes
  }
  Touch();
  if (unsynced_from_ != kNone) {
    AwaitSync();  // Committed() flushes
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
    const Outcome outcome =
        held_ ? *std::exchange(held_, std::nullopt) : parser_.Next();
    if (outcome == Outcome::kNeedMore) return;
    const bool plain_put = outcome == Outcome::kRequest &&
                           IsPlainPut(session_, parser_.args()) &&
                           FitsPendingPuts(parser_.args());
    if (!plain_put && !puts_.empty()) {
      held_ = outcome;  // its reply follows theirs
      return;
    }
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
  const size_t puts_before = puts_.size();
  const size_t reply_from = output_.size();
  CommandCall call{server_, session_, args, reply_, puts_};
  Execute(call);
  if (call.wrote && server_.config.sync_writes && unsynced_from_ == kNone)
    unsynced_from_ = reply_from;
  if (puts_.size() > puts_before) {
    command_ends_.push_back(puts_.size());
    for (size_t i = puts_before; i < puts_.size(); ++i) {
      pending_bytes_ += puts_[i].key.size() + puts_[i].value.size();
    }
  }
  if (session_.authenticated != was_authenticated) {  // AUTH, RESET
    parser_.set_limits(session_.authenticated ? AuthenticatedLimits(server_)
                                              : UnauthenticatedLimits());
  }
}

bool Connection::FitsPendingPuts(std::span<const std::string_view> args) const {
  if (puts_.empty()) return true;
  size_t bytes = 0;
  for (std::string_view arg : args.subspan(1)) bytes += arg.size();
  return puts_.size() + args.size() / 2 <= kMaxPipelinedPuts &&
         pending_bytes_ + bytes <= server_.max_write_bytes;
}

bool Connection::CommitPuts() {
  committing_ = shared_from_this();
  commit_state_.store(CommitState::kSubmitting);
  server_.group_commit.Submit(puts_, command_ends_, this);
  CommitState expected = CommitState::kSubmitting;
  if (commit_state_.compare_exchange_strong(expected, CommitState::kWaiting)) {
    awaiting_commit_ = asio::prefer(socket_.get_executor(),
                                    asio::execution::outstanding_work.tracked);
    return false;
  }
  // This thread led the group that held the puts: answer them right away
  // instead of through the event loop.
  committing_.reset();
  AnswerPuts();
  return true;
}

void Connection::Committed(std::vector<Status> statuses) {
  statuses_ = std::move(statuses);
  CommitState expected = CommitState::kSubmitting;
  if (commit_state_.compare_exchange_strong(expected, CommitState::kDone)) {
    return;  // still in Submit(): CommitPuts() goes on
  }
  asio::post(socket_.get_executor(), [self = std::move(committing_)] {
    self->awaiting_commit_ = {};
    if (std::exchange(self->awaiting_sync_, false)) {
      self->AnswerSync();
      self->Flush();
      return;
    }
    self->AnswerPuts();
    self->Process();
  });
}

void Connection::AwaitSync() {
  committing_ = shared_from_this();
  awaiting_sync_ = true;
  awaiting_commit_ = asio::prefer(socket_.get_executor(),
                                  asio::execution::outstanding_work.tracked);
  commit_state_.store(CommitState::kWaiting);  // Committed() posts
  server_.group_commit.AwaitSync(this);
}

// A failed sync is the answer to the first write it was to cover: the
// replies from there on are dropped (the writes were made, but not
// durably), and the connection ends after the error, since the replies it
// owes for the requests after that write are gone.
void Connection::AnswerSync() {
  const Status status = statuses_.at(0);
  statuses_.clear();
  if (!status.ok()) {
    output_.resize(unsynced_from_);
    ReplyToPuts(reply_, status);
    session_.close_after_reply = true;
  }
  unsynced_from_ = kNone;
}

void Connection::AnswerPuts() {
  for (const Status& status : statuses_) ReplyToPuts(reply_, status);
  statuses_.clear();
  puts_.clear();
  command_ends_.clear();
  pending_bytes_ = 0;
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
