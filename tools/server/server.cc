// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "server.h"

#include <asio.hpp>
#include <csignal>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "connection.h"
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

class Server::Impl {
 public:
  Impl(DB* db, const ServerConfig& config)
      : context_(db, config),
        strand_(asio::make_strand(io_)),
        acceptor_(strand_),
        accept_retry_(strand_),
        idle_sweep_(strand_),
        signals_(strand_, SIGINT, SIGTERM) {
    context_.request_shutdown = [this] { Shutdown(); };
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
    return Status::OK();
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void Run() {
    signals_.async_wait([this](const asio::error_code& error, int) {
      if (!error) Shutdown();
    });
    Accept();
    if (context_.config.idle_timeout_seconds > 0) SweepIdle();
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < context_.config.threads; ++i) {
      threads.emplace_back([this] { io_.run(); });
    }
    io_.run();
    for (std::thread& t : threads) t.join();
  }

  void Shutdown() {
    asio::post(strand_, [this] {
      if (stopping_) return;
      stopping_ = true;
      asio::error_code ignored;
      acceptor_.close(ignored);
      accept_retry_.cancel();
      idle_sweep_.cancel();
      signals_.cancel();
      ForEachConnection([](Connection& c) { c.Close(); });
    });
  }

 private:
  void Accept() {
    acceptor_.async_accept(
        asio::make_strand(io_),
        [this](const asio::error_code& error, asio::ip::tcp::socket socket) {
          if (stopping_ || error == asio::error::operation_aborted) return;
          if (error) {
            std::cerr << "plush-server: accept: " << error.message() << '\n';
            accept_retry_.expires_after(kAcceptRetry);
            accept_retry_.async_wait([this](const asio::error_code& e) {
              if (!e) Accept();
            });
            return;
          }
          Admit(std::move(socket));
          Accept();
        });
  }

  void Admit(asio::ip::tcp::socket socket) {
    if (context_.connected_clients.load() >= context_.config.maxclients) {
      context_.rejected_connections.fetch_add(1);
      // A fresh socket's send buffer is empty: this cannot block.
      static constexpr std::string_view kFull =
          "-ERR max number of clients reached\r\n";
      asio::error_code ignored;
      socket.write_some(asio::buffer(kFull), ignored);
      return;  // closed with the socket
    }
    auto connection = std::make_shared<Connection>(
        std::move(socket), context_, [this](Connection* c) {
          std::lock_guard<std::mutex> lock(mu_);
          connections_.erase(c);
        });
    {
      std::lock_guard<std::mutex> lock(mu_);
      connections_.emplace(connection.get(), connection);
    }
    connection->Start();
  }

  void SweepIdle() {
    idle_sweep_.expires_after(kIdleSweep);
    idle_sweep_.async_wait([this](const asio::error_code& error) {
      if (error) return;
      const auto timeout =
          std::chrono::seconds(context_.config.idle_timeout_seconds);
      ForEachConnection([timeout](Connection& c) { c.CloseIfIdle(timeout); });
      SweepIdle();
    });
  }

  template <typename Fn>
  void ForEachConnection(Fn fn) {
    std::vector<std::shared_ptr<Connection>> alive;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [raw, weak] : connections_) {
        if (auto c = weak.lock()) alive.push_back(std::move(c));
      }
    }
    for (auto& c : alive) fn(*c);
  }

  // Declared before io_: the handlers that io_ destroys with it may hold
  // the last reference to a connection, whose destructor uses these.
  ServerContext context_;
  std::mutex mu_;
  // Every open connection, for Shutdown() and the idle sweep.
  std::unordered_map<Connection*, std::weak_ptr<Connection>> connections_;

  asio::io_context io_;
  // The acceptor, the timers and the signals are used on this strand only.
  asio::strand<asio::io_context::executor_type> strand_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer accept_retry_;
  asio::steady_timer idle_sweep_;
  asio::signal_set signals_;
  bool stopping_ = false;  // on strand_
};

Server::Server(DB* db, const ServerConfig& config)
    : impl_(std::make_unique<Impl>(db, config)) {}
Server::~Server() = default;
Status Server::Listen() { return impl_->Listen(); }
uint16_t Server::port() const { return impl_->port(); }
void Server::Run() { impl_->Run(); }
void Server::Shutdown() { impl_->Shutdown(); }

}  // namespace plush::server
