// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "reply_writer.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace plush::server {
namespace {

using namespace std::string_literals;

TEST(ReplyWriterTest, Resp2) {
  std::string out;
  ReplyWriter reply(&out);
  reply.Ok();
  reply.Error("ERR bad\r\nthing");  // a line break would end the error
  reply.Integer(std::numeric_limits<int64_t>::min());
  reply.Bulk(std::string("a\0b", 3));
  reply.Null();
  reply.MapHeader(2);
  reply.Text("x:1\r\n");
  EXPECT_EQ(out,
            "+OK\r\n-ERR bad  thing\r\n:-9223372036854775808\r\n$3\r\na\0b\r\n"
            "$-1\r\n*4\r\n$5\r\nx:1\r\n\r\n"s);
}

TEST(ReplyWriterTest, Resp3) {
  std::string out;
  ReplyWriter reply(&out);
  reply.set_protocol(3);
  reply.Null();
  reply.MapHeader(2);
  reply.Text("x:1");
  EXPECT_EQ(out, "_\r\n%2\r\n=7\r\ntxt:x:1\r\n");
}

TEST(ReplyWriterTest, TruncateDropsWhatWasWritten) {
  std::string out;
  ReplyWriter reply(&out);
  reply.Ok();
  const size_t mark = reply.size();
  reply.Bulk("dropped");
  reply.Truncate(mark);
  EXPECT_EQ(out, "+OK\r\n");
}

}  // namespace
}  // namespace plush::server
