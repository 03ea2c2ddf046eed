// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "server_request.h"

#include <asio.hpp>

#include <charconv>
#include <istream>

namespace plush::cli {
namespace {

// A reply longer than this (Redis's own default bulk limit) is not one a
// server sends for these commands: refused rather than allocated.
constexpr size_t kMaxReply = 512u << 20;

// `what` about the server at `address`.
std::string FromServer(const std::string& address, const std::string& what) {
  return "plush-server at " + address + ": " + what;
}

// Reads one reply into *reply: a bulk or simple string.
Status ReadReply(const std::string& address, asio::ip::tcp::socket& socket,
                 asio::streambuf& in, std::string* reply) {
  asio::error_code ec;
  // (Bounded: a first line without its end is not read for ever. No
  // timeout: the server's Verify takes as long as its pool is large.)
  asio::read_until(socket, in, "\r\n", ec);
  if (ec) return Status::IOError(FromServer(address, ec.message()));
  std::istream lines(&in);
  std::string line;
  std::getline(lines, line);  // up to '\n'; the '\r' stays
  line.pop_back();
  const std::string_view rest =
      line.empty() ? std::string_view() : std::string_view(line).substr(1);
  switch (line.empty() ? '\0' : line[0]) {
    case '+':
      *reply = rest;
      return Status::OK();
    case '-':
      return Status::InvalidArgument(FromServer(address, std::string(rest)));
    case '$': {
      size_t length = 0;
      const auto [end, error] =
          std::from_chars(rest.data(), rest.data() + rest.size(), length);
      if (error != std::errc() || end != rest.data() + rest.size() ||
          length > kMaxReply) {
        break;
      }
      // The bulk string and its "\r\n", part of which may be read already.
      if (in.size() < length + 2) {
        asio::read(socket, in, asio::transfer_exactly(length + 2 - in.size()),
                   ec);
      }
      if (ec) return Status::IOError(FromServer(address, ec.message()));
      reply->resize(length);
      lines.read(reply->data(), static_cast<std::streamsize>(length));
      lines.ignore(2);  // its "\r\n"
      return Status::OK();
    }
  }
  return Status::IOError(
      FromServer(address, "a reply this client does not read: " + line));
}

}  // namespace

Status RequestFromServer(const std::string& address,
                         const std::vector<std::vector<std::string>>& commands,
                         std::string* reply) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) {
    return Status::InvalidArgument("server address '" + address +
                                   "' is not host:port");
  }
  const std::string host = colon == 0 ? "127.0.0.1" : address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  std::string request;
  for (const std::vector<std::string>& args : commands) {
    request += "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& arg : args) {
      request += "$" + std::to_string(arg.size()) + "\r\n";
      request += arg;
      request += "\r\n";
    }
  }
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  asio::error_code ec;
  asio::ip::tcp::resolver resolver(io);
  const auto endpoints = resolver.resolve(host, port, ec);
  if (!ec) asio::connect(socket, endpoints, ec);
  if (!ec) asio::write(socket, asio::buffer(request), ec);
  if (ec) return Status::IOError(FromServer(address, ec.message()));
  asio::streambuf in(kMaxReply + 64);
  for (size_t i = 0; i < commands.size(); ++i) {
    Status s = ReadReply(address, socket, in, reply);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace plush::cli
