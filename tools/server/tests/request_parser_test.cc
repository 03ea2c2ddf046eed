// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "request_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace plush::server {
namespace {

using Outcome = RequestParser::Outcome;

// Hands `bytes` to the parser as socket reads of at most `piece` bytes.
void Feed(RequestParser& parser, std::string_view bytes,
          size_t piece = SIZE_MAX) {
  while (!bytes.empty()) {
    std::span<char> space = parser.ReadSpace();
    const size_t n = std::min({bytes.size(), space.size(), piece});
    std::memcpy(space.data(), bytes.data(), n);
    parser.Received(n);
    bytes.remove_prefix(n);
  }
}

std::vector<std::string> Args(const RequestParser& parser) {
  return {parser.args().begin(), parser.args().end()};
}

// RESP's encoding of a request. (Built by appending: GCC 12 warns falsely
// about "literal" + std::string.)
std::string Request(const std::vector<std::string>& args) {
  std::string out(1, '*');
  out += std::to_string(args.size());
  out += "\r\n";
  for (const std::string& a : args) {
    out += '$';
    out += std::to_string(a.size());
    out += "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

// The protocol error that `bytes` (fed at once) ends in.
std::string ProtocolErrorOf(std::string_view bytes,
                            const RequestLimits& limits = RequestLimits()) {
  RequestParser parser(limits);
  Feed(parser, bytes);
  Outcome outcome;
  while ((outcome = parser.Next()) == Outcome::kRequest) {
  }
  EXPECT_EQ(outcome, Outcome::kProtocolError) << bytes;
  return parser.error();
}

TEST(RequestParserTest, ParsesAnArrayOfBulkStrings) {
  RequestParser parser;
  Feed(parser, "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"SET", "key", "value"}));
  EXPECT_EQ(parser.Next(), Outcome::kNeedMore);
}

TEST(RequestParserTest, ArgumentsAreBinary) {
  const std::string binary("a\0b\r\nc$*", 8);
  RequestParser parser;
  Feed(parser, Request({"SET", binary, ""}));
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"SET", binary, ""}));
}

TEST(RequestParserTest, AnyCutOfTheBytesGivesTheSameRequests) {
  const std::string stream = Request({"SET", "k", std::string(300, 'v')}) +
                             "GET k\r\n" + Request({"MGET", "a", "b"});
  for (size_t piece : {1, 2, 3, 7, 64, 1000}) {
    RequestParser parser;
    std::vector<std::vector<std::string>> requests;
    std::string_view rest = stream;
    while (!rest.empty()) {
      const size_t n = std::min(piece, rest.size());
      Feed(parser, rest.substr(0, n));
      rest.remove_prefix(n);
      while (parser.Next() == Outcome::kRequest)
        requests.push_back(Args(parser));
    }
    ASSERT_EQ(requests.size(), 3u) << "pieces of " << piece;
    EXPECT_EQ(requests[0][2], std::string(300, 'v'));
    EXPECT_EQ(requests[1], (std::vector<std::string>{"GET", "k"}));
    EXPECT_EQ(requests[2], (std::vector<std::string>{"MGET", "a", "b"}));
  }
}

TEST(RequestParserTest, InlineCommands) {
  RequestParser parser;
  Feed(parser, "PING\r\n\r\n  \nset \"a b\" 'c'\nGET\t\"\\x41\\n\"\r\n");
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"PING"}));
  ASSERT_EQ(parser.Next(), Outcome::kRequest);  // blank lines skipped
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"set", "a b", "c"}));
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"GET", "A\n"}));
  EXPECT_EQ(parser.Next(), Outcome::kNeedMore);
}

TEST(RequestParserTest, EmptyArraysAskForNothing) {
  RequestParser parser;
  Feed(parser, "*0\r\n*-1\r\n" + Request({"PING"}));
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"PING"}));
}

TEST(RequestParserTest, ProtocolErrorsHaveRedisMessages) {
  EXPECT_EQ(ProtocolErrorOf("*x\r\n"),
            "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(ProtocolErrorOf("*\r\n"),
            "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(ProtocolErrorOf("*01\r\n"),
            "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n+PING\r\n"),
            "ERR Protocol error: expected '$', got '+'");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$-1\r\n"),
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$4x\r\n"),
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$600000000\r\n"),
            "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$4\r\nPINGxx"),
            "ERR Protocol error: bulk string not followed by CRLF");
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$4\r\nPING\r\n*1\rX"),
            "ERR Protocol error: invalid multibulk length");  // lone CR
  EXPECT_EQ(ProtocolErrorOf("*1\r\n$" + std::string(40, '1')),
            "ERR Protocol error: invalid bulk length");  // no CRLF in sight
  EXPECT_EQ(ProtocolErrorOf("set \"a\"b\r\n"),
            "ERR Protocol error: unbalanced quotes in request");
  EXPECT_EQ(ProtocolErrorOf("set 'a\r\n"),
            "ERR Protocol error: unbalanced quotes in request");
  EXPECT_EQ(ProtocolErrorOf(std::string(64 << 10 | 1, 'x')),
            "ERR Protocol error: too big inline request");
}

TEST(RequestParserTest, TooManyArgumentsIsAProtocolError) {
  RequestLimits limits;
  limits.max_arguments = 3;
  EXPECT_EQ(ProtocolErrorOf("*4\r\n", limits),
            "ERR Protocol error: invalid multibulk length");
  RequestParser parser(limits);
  Feed(parser, Request({"a", "b", "c"}));
  EXPECT_EQ(parser.Next(), Outcome::kRequest);
}

TEST(RequestParserTest, AProtocolErrorIsFinal) {
  RequestParser parser;
  Feed(parser, "*x\r\n");
  EXPECT_EQ(parser.Next(), Outcome::kProtocolError);
  Feed(parser, Request({"PING"}));
  EXPECT_EQ(parser.Next(), Outcome::kProtocolError);
}

TEST(RequestParserTest,
     AnOversizedArgumentRejectsItsRequestWithoutBufferingIt) {
  RequestParser parser;
  const std::string big(1 << 20, 'v');
  // In small reads, as a client would send it: the parser drops the bytes
  // as they come instead of holding them.
  std::string_view rest;
  const std::string stream = Request({"SET", "k", big}) + Request({"GET", "k"});
  rest = stream;
  size_t largest_space = 0;
  std::vector<Outcome> outcomes;
  while (!rest.empty()) {
    std::span<char> space = parser.ReadSpace();
    largest_space = std::max(largest_space, space.size());
    const size_t n = std::min({rest.size(), space.size(), size_t{4096}});
    std::memcpy(space.data(), rest.data(), n);
    parser.Received(n);
    rest.remove_prefix(n);
    for (Outcome o; (o = parser.Next()) != Outcome::kNeedMore;) {
      outcomes.push_back(o);
      if (o == Outcome::kRequest) {
        EXPECT_EQ(Args(parser), (std::vector<std::string>{"GET", "k"}));
      }
    }
  }
  EXPECT_EQ(outcomes,
            (std::vector<Outcome>{Outcome::kRejected, Outcome::kRequest}));
  EXPECT_LT(largest_space, size_t{64 << 10});
  EXPECT_EQ(parser.error(),
            "ERR argument of 1048576 bytes exceeds the limit of 65536 bytes "
            "(keys up to 1024, values up to 65536)");
}

TEST(RequestParserTest, ArgumentsAtTheLimitPass) {
  RequestParser parser;
  const std::string value(kMaxValueSize, 'v');
  Feed(parser, Request({"SET", "k", value}), 1000);
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(parser.args()[2], value);
}

TEST(RequestParserTest, ARequestOverTheByteLimitIsRejected) {
  RequestLimits limits;
  limits.max_request_bytes = 10;
  RequestParser parser(limits);
  Feed(parser, Request({"MSET", "k", "123", "k2", "456"}) + Request({"PING"}));
  EXPECT_EQ(parser.Next(), Outcome::kRejected);
  EXPECT_EQ(parser.error(),
            "ERR request arguments exceed the limit of 10 bytes");
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  EXPECT_EQ(Args(parser), (std::vector<std::string>{"PING"}));
}

TEST(RequestParserTest, TighterLimitsApplyToWhatFollows) {
  RequestParser parser;
  RequestLimits tight;
  tight.max_arguments = 2;
  parser.set_limits(tight);
  Feed(parser, Request({"AUTH", "pw"}));
  ASSERT_EQ(parser.Next(), Outcome::kRequest);
  parser.set_limits(RequestLimits());
  Feed(parser, Request({"SET", "k", "v"}));
  EXPECT_EQ(parser.Next(), Outcome::kRequest);
}

}  // namespace
}  // namespace plush::server
