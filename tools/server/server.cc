// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "server.h"

#include <asio.hpp>
#include <csignal>
#include <functional>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

#include "connection.h"
#include "protected_mode.h"
#include "server_context.h"

namespace plush::server {
namespace {

// Redis's listen backlog.
constexpr int kBacklog = 511;
// After a failed accept (e.g. out of file descriptors), wait this long.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
// Idle clients are looked for this often.
constexpr auto kIdleSweep = std::chrono::seconds(1);

}  // namespace

// One event loop per thread, each serving the connections it was given
// (round robin): a connection's handlers run on one thread without a
// strand, and no thread wakes another to run a connection's next step.
// The first loop also runs the acceptor, the timers and the signals.
class Server::Impl {
 public:
  Impl(DB* db, const ServerConfig& config)
      : context_(db, config),
        loops_(MakeLoops(config.threads)),
        acceptor_(*loops_[0]),
        accept_retry_(*loops_[0]),
        idle_sweep_(*loops_[0]),
        signals_(*loops_[0], SIGINT, SIGTERM) {
    context_.request_shutdown = [this] { Shutdown(); };
    for (auto& loop : loops_) {
      asio::io_context* l = loop.get();
      reply_syncs_.push_back(std::make_unique<ReplySync>(
          [l](std::function<void()> fn) { asio::post(*l, std::move(fn)); },
          db, &context_.gate, &context_.synced_writes,
          &context_.reply_syncs));
    }
  }

  Status Listen() {
    asio::error_code error;
    const asio::ip::address address =
        asio::ip::make_address(context_.config.bind, error);
    if (error) {
      return Status::InvalidArgument("--bind " + context_.config.bind +
                                     ": not an IP address");
    }
    const asio::ip::tcp::endpoint endpoint(address, context_.config.port);
    acceptor_.open(endpoint.protocol(), error);
    if (!error)
      acceptor_.set_option(asio::socket_base::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(kBacklog, error);
    if (error) {
      return Status::IOError("cannot listen on " + context_.config.bind + ":" +
                             std::to_string(context_.config.port) + ": " +
                             error.message());
    }
    context_.port.store(port());
    return Status::OK();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void Run() {
    signals_.async_wait([this](const asio::error_code& error, int) {
      if (!error) Shutdown();
    });
    Accept();
    if (context_.config.idle_timeout_seconds > 0) SweepIdle();
    // The loops run until Shutdown() releases them and their connections
    // are gone.
    for (auto& loop : loops_)
      keep_running_.push_back(asio::make_work_guard(*loop));
    std::vector<std::thread> threads;
    for (size_t i = 1; i < loops_.size(); ++i) {
      threads.emplace_back([this, i] { loops_[i]->run(); });
    }
    loops_[0]->run();
    for (std::thread& t : threads) t.join();
  }

  void Shutdown() {
    asio::post(*loops_[0], [this] {
      if (stopping_) return;
      stopping_ = true;
      asio::error_code ignored;
      acceptor_.close(ignored);
      accept_retry_.cancel();
      idle_sweep_.cancel();
      signals_.cancel();
      ForEachConnection([](ClientHandle& c) { c.Close(); });
      keep_running_.clear();
    });
  }

 private:
  void Accept() {
    const size_t i = next_loop_++ % loops_.size();
    acceptor_.async_accept(*loops_[i], [this, i](const asio::error_code& error,
                                                 asio::ip::tcp::socket socket) {
      if (stopping_ || error == asio::error::operation_aborted) return;
      if (error) {
        std::cerr << "plush-server: accept: " << error.message() << '\n';
        accept_retry_.expires_after(kAcceptRetry);
        accept_retry_.async_wait([this](const asio::error_code& e) {
          if (!e) Accept();
        });
        return;
      }
      Admit(std::move(socket), *reply_syncs_[i]);
      Accept();
    });
  }

  void Admit(asio::ip::tcp::socket socket, ReplySync& reply_sync) {
    asio::error_code error;
    const asio::ip::tcp::endpoint peer = socket.remote_endpoint(error);
    if (error) return;  // the client is gone already
    if (ProtectedModeRefuses(context_.config, peer.address().to_string())) {
      Refuse(std::move(socket), kProtectedModeError);
      return;
    }
    if (context_.connected_clients.load() >= context_.config.maxclients) {
      Refuse(std::move(socket), "-ERR max number of clients reached\r\n");
      return;
    }
    std::make_shared<Connection>(std::move(socket), context_, reply_sync)
        ->Start();
  }

  // Sends `error` and closes the connection (Redis counts such clients as
  // rejected).
  void Refuse(asio::ip::tcp::socket socket, std::string_view error) {
    context_.rejected_connections.fetch_add(1);
    // A fresh socket's send buffer is empty: this cannot block. The
    // connection closes with `socket`, here.
    asio::error_code ignored;
    socket.write_some(asio::buffer(error), ignored);
  }

  void SweepIdle() {
    idle_sweep_.expires_after(kIdleSweep);
    idle_sweep_.async_wait([this](const asio::error_code& error) {
      if (error) return;
      const auto timeout =
          std::chrono::seconds(context_.config.idle_timeout_seconds);
      ForEachConnection(
          [timeout](ClientHandle& c) { c.CloseIfIdle(timeout); });
      SweepIdle();
    });
  }

  static std::vector<std::unique_ptr<asio::io_context>> MakeLoops(
      unsigned threads) {
    std::vector<std::unique_ptr<asio::io_context>> loops;
    for (unsigned i = 0; i < threads; ++i) {
      loops.push_back(std::make_unique<asio::io_context>(1));  // one thread
    }
    return loops;
  }

  // Every open connection (context_.clients).
  template <typename Fn>
  void ForEachConnection(Fn fn) {
    for (const ClientRegistry::Client& c : context_.clients.List()) {
      fn(*c.handle);
    }
  }

  // Declared before loops_: the handlers that a loop destroys with it may
  // hold the last reference to a connection, whose destructor uses it.
  ServerContext context_;
  // One per loop, as loops_ (filled by the constructor); declared before
  // loops_ for the same reason.
  std::vector<std::unique_ptr<ReplySync>> reply_syncs_;

  std::vector<std::unique_ptr<asio::io_context>> loops_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>>
      keep_running_;
  // On the first loop:
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer accept_retry_;
  asio::steady_timer idle_sweep_;
  asio::signal_set signals_;
  size_t next_loop_ = 0;
  bool stopping_ = false;
};

Server::Server(DB* db, const ServerConfig& config)
    : impl_(std::make_unique<Impl>(db, config)) {}
Server::~Server() = default;
Status Server::Listen() { return impl_->Listen(); }
uint16_t Server::port() const { return impl_->port(); }
void Server::Run() { impl_->Run(); }
void Server::Shutdown() { impl_->Shutdown(); }

}  // namespace plush::server
