// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// RequestParser: turns the bytes a client sends into requests (argument
// lists), incrementally, within limits. A client sends either RESP arrays
// of bulk strings ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", what every client
// library sends) or inline commands ("GET k\r\n", what people type into
// telnet; split by inline_args.h).
//
// The parser owns the connection's input buffer: the socket reads into
// ReadSpace(), and arguments are views into the buffer, so a request's
// bytes are copied once (by the kernel). Lengths are checked when their
// header arrives, before anything is buffered for them:
//   * an argument beyond RequestLimits::max_argument_bytes, or a request
//     whose arguments add up to more than max_request_bytes, is *rejected*:
//     its bytes are read and dropped as they arrive (never buffered), and
//     Next() reports kRejected once the request has ended, so that the
//     connection answers an error and goes on with the next request;
//   * what cannot be followed (a malformed header, too many arguments, a
//     bulk length beyond max_bulk_length, an overlong inline line) is a
//     *protocol error*: the stream cannot be resynchronized, the
//     connection answers the error and closes.
// The error texts are Redis's where Redis has one.
//
// Not thread-safe: one parser per connection.

#ifndef PLUSH_TOOLS_SERVER_REQUEST_PARSER_H_
#define PLUSH_TOOLS_SERVER_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plush/limits.h"

namespace plush::server {

struct RequestLimits {
  // Larger arguments reject their request. No key or value beyond Plush's
  // limits can be stored, and every other argument is shorter.
  size_t max_argument_bytes = kMaxValueSize;
  // The arguments of one request together (an MSET): more rejects it.
  // The server allows what it puts into one write batch (WriteBatchLimit:
  // server_context.h).
  size_t max_request_bytes = kMaxBatchBytes;
  // More arguments than an MSET of the largest batch: protocol error.
  size_t max_arguments = 1 + 2 * kMaxBatchRecords;
  // A bulk length beyond Redis's proto-max-bulk-len (512 MiB) is a
  // protocol error: dropping that much is not worth the time.
  uint64_t max_bulk_length = 512ull << 20;
  // An inline command line longer than Redis's 64 KiB: protocol error.
  size_t max_inline_bytes = 64 << 10;
};

class RequestParser {
 public:
  enum class Outcome {
    kRequest,        // args() holds the next request
    kNeedMore,       // no complete request buffered: read more
    kRejected,       // a request over the limits was dropped: error()
    kProtocolError,  // the stream is broken: answer error() and close
  };

  explicit RequestParser(const RequestLimits& limits = RequestLimits());

  // Where the next read from the socket goes (never empty). Invalidates
  // args().
  std::span<char> ReadSpace();
  // Records that the last read stored `bytes` bytes at ReadSpace().
  void Received(size_t bytes);

  // The limits for what is parsed from now on (e.g. wider after AUTH).
  void set_limits(const RequestLimits& limits) { limits_ = limits; }

  // Parses what has been received. After kProtocolError every call
  // returns kProtocolError again.
  Outcome Next();

  // The request of the last kRequest: its command name first. The span is
  // valid until the next call of Next(), the bytes it points to until the
  // next ReadSpace() (so the arguments of several requests may be used
  // together).
  std::span<const std::string_view> args() const { return args_; }
  // The error line (without the leading '-') of the last kRejected or
  // kProtocolError, e.g. "ERR Protocol error: invalid bulk length".
  const std::string& error() const { return error_; }
  // Bytes received and not consumed yet.
  size_t buffered_bytes() const { return end_ - pos_; }

 private:
  enum class State {
    kStart,           // between requests
    kArgumentHeader,  // expecting "$<length>\r\n"
    kArgumentBody,    // expecting body_length_ bytes and CRLF
    kSkipBody,        // dropping body_length_ more bytes of a rejected request
    kBroken,          // after a protocol error
  };
  enum class Line { kFound, kNeedMore, kTooLong };

  Outcome ParseInline();
  // Finds the header line at pos_: on kFound, *text is the line without
  // its first character and CRLF, and *next the position after it.
  Line FindHeaderLine(std::string_view* text, size_t* next) const;
  // Called after each argument: the outcome once the request is complete.
  Outcome FinishArgument();
  void Reject(std::string message);
  Outcome ProtocolError(std::string_view what);

  RequestLimits limits_;
  // Received bytes: [begin_, end_) are not consumed; begin_ is the start
  // of the request being parsed, pos_ the parse position.
  std::vector<char> buffer_;
  size_t begin_ = 0;
  size_t pos_ = 0;
  size_t end_ = 0;

  State state_ = State::kStart;
  uint64_t arguments_left_ = 0;
  uint64_t body_length_ = 0;
  size_t request_bytes_ = 0;  // argument bytes of the current request
  bool rejected_ = false;     // the current request is being dropped
  // The current request's arguments: (offset from begin_, length).
  std::vector<std::pair<size_t, size_t>> spans_;

  std::vector<std::string_view> args_;
  // What args_ points to for inline requests (until ReadSpace()).
  std::deque<std::string> inline_args_;
  std::string error_;
};

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REQUEST_PARSER_H_
