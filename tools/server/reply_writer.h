// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// ReplyWriter: encodes replies in RESP2, or in RESP3 once a client has
// asked for it with HELLO 3 (the two differ in nulls, maps and verbatim
// text only, among the types this server sends). Appends to a string that
// the connection sends when it has run the requests it has.

#ifndef PLUSH_TOOLS_SERVER_REPLY_WRITER_H_
#define PLUSH_TOOLS_SERVER_REPLY_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace plush::server {

class ReplyWriter {
 public:
  explicit ReplyWriter(std::string* out) : out_(out) {}

  // 2 (RESP2, the default) or 3.
  int protocol() const { return protocol_; }
  void set_protocol(int protocol) { protocol_ = protocol; }

  // "+OK": a short status text (must not hold CR or LF).
  void Status(std::string_view text);
  void Ok() { Status("OK"); }
  // An error line: its first word is the error code ("ERR", "NOAUTH",
  // ...). CR and LF in it (from echoed arguments) become spaces.
  void Error(std::string_view line);
  void Integer(int64_t value);
  void Bulk(std::string_view data);
  // The null reply: a missing key's value.
  void Null();
  // The null array: an EXEC whose watched keys were written.
  void NullArray();
  void ArrayHeader(size_t elements);
  // A map of `pairs` key/value pairs follows (RESP2: a flat array).
  void MapHeader(size_t pairs);
  // Text for people (INFO): RESP3 verbatim string, RESP2 bulk string.
  void Text(std::string_view text);

  // Bytes in the output so far: lets a command drop what it wrote
  // (Truncate) when its reply would grow too large.
  size_t size() const { return out_->size(); }
  void Truncate(size_t size) { out_->resize(size); }

 private:
  void Header(char type, uint64_t length);

  std::string* out_;
  int protocol_ = 2;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REPLY_WRITER_H_
