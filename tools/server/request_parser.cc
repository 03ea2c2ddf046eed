// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "request_parser.h"

#include <algorithm>
#include <cstring>

#include "inline_args.h"
#include "redis_integer.h"

namespace plush::server {
namespace {

// What a read asks for at least: Redis's PROTO_IOBUF_LEN.
constexpr size_t kReadChunk = 16 << 10;
// An idle connection gives back a buffer that grew beyond this.
constexpr size_t kIdleBufferBytes = 256 << 10;
// "*" or "$", a 64-bit integer and CRLF fit in this; a longer header line
// is malformed.
constexpr size_t kMaxHeaderLine = 32;

}  // namespace

RequestParser::RequestParser(const RequestLimits& limits) : limits_(limits) {}

std::span<char> RequestParser::ReadSpace() {
  inline_args_.clear();
  if (begin_ > 0) {  // drop what was consumed
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    pos_ -= begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == 0 && buffer_.size() > kIdleBufferBytes) {
    std::vector<char>().swap(buffer_);
  }
  size_t want = kReadChunk;
  if (state_ == State::kArgumentBody) {
    // Room for the whole argument at once (its length was checked).
    want = std::max<size_t>(want, pos_ + body_length_ + 2 - end_);
  }
  if (buffer_.size() - end_ < want) buffer_.resize(end_ + want);
  return {buffer_.data() + end_, buffer_.size() - end_};
}

void RequestParser::Received(size_t bytes) { end_ += bytes; }

RequestParser::Outcome RequestParser::Next() {
  for (;;) {
    switch (state_) {
      case State::kBroken:
        return Outcome::kProtocolError;

      case State::kStart: {
        begin_ = pos_;
        spans_.clear();
        request_bytes_ = 0;
        rejected_ = false;
        if (pos_ == end_) return Outcome::kNeedMore;
        if (buffer_[pos_] != '*') {
          const Outcome outcome = ParseInline();
          if (outcome == Outcome::kRequest && args_.empty()) continue;
          return outcome;
        }
        std::string_view text;
        size_t next = 0;
        const Line line = FindHeaderLine(&text, &next);
        if (line == Line::kNeedMore) return Outcome::kNeedMore;
        const std::optional<int64_t> count = ParseInteger(text);
        if (line == Line::kTooLong || !count ||
            (*count > 0 &&
             static_cast<uint64_t>(*count) > limits_.max_arguments)) {
          return ProtocolError("invalid multibulk length");
        }
        pos_ = next;
        if (*count <= 0) continue;  // "*0" and "*-1" ask for nothing
        arguments_left_ = static_cast<uint64_t>(*count);
        state_ = State::kArgumentHeader;
        break;
      }

      case State::kArgumentHeader: {
        if (pos_ == end_) return Outcome::kNeedMore;
        if (buffer_[pos_] != '$') {
          return ProtocolError(std::string("expected '$', got '") +
                               buffer_[pos_] + "'");
        }
        std::string_view text;
        size_t next = 0;
        const Line line = FindHeaderLine(&text, &next);
        if (line == Line::kNeedMore) return Outcome::kNeedMore;
        const std::optional<int64_t> length = ParseInteger(text);
        if (line == Line::kTooLong || !length || *length < 0 ||
            static_cast<uint64_t>(*length) > limits_.max_bulk_length) {
          return ProtocolError("invalid bulk length");
        }
        pos_ = next;
        const auto bytes = static_cast<size_t>(*length);
        if (!rejected_ && bytes > limits_.max_argument_bytes) {
          Reject("ERR argument of " + std::to_string(bytes) +
                 " bytes exceeds the limit of " +
                 std::to_string(limits_.max_argument_bytes) +
                 " bytes (keys up to " + std::to_string(kMaxKeySize) +
                 ", values up to " + std::to_string(kMaxValueSize) + ")");
        } else if (!rejected_ &&
                   request_bytes_ + bytes > limits_.max_request_bytes) {
          Reject("ERR request arguments exceed the limit of " +
                 std::to_string(limits_.max_request_bytes) + " bytes");
        }
        if (rejected_) {
          begin_ = pos_;
          body_length_ = bytes + 2;  // with its CRLF
          state_ = State::kSkipBody;
        } else {
          body_length_ = bytes;
          state_ = State::kArgumentBody;
        }
        break;
      }

      case State::kArgumentBody: {
        if (end_ - pos_ < body_length_ + 2) return Outcome::kNeedMore;
        if (buffer_[pos_ + body_length_] != '\r' ||
            buffer_[pos_ + body_length_ + 1] != '\n') {
          return ProtocolError("bulk string not followed by CRLF");
        }
        spans_.emplace_back(pos_ - begin_, body_length_);
        request_bytes_ += body_length_;
        pos_ += body_length_ + 2;
        const Outcome outcome = FinishArgument();
        if (outcome != Outcome::kNeedMore) return outcome;
        break;
      }

      case State::kSkipBody: {
        const size_t n = std::min<uint64_t>(body_length_, end_ - pos_);
        pos_ += n;
        begin_ = pos_;  // a rejected request keeps nothing buffered
        body_length_ -= n;
        if (body_length_ > 0) return Outcome::kNeedMore;
        const Outcome outcome = FinishArgument();
        if (outcome != Outcome::kNeedMore) return outcome;
        break;
      }
    }
  }
}

RequestParser::Outcome RequestParser::FinishArgument() {
  if (--arguments_left_ > 0) {
    state_ = State::kArgumentHeader;
    return Outcome::kNeedMore;  // not a verdict: Next() goes on parsing
  }
  state_ = State::kStart;
  if (rejected_) return Outcome::kRejected;
  args_.clear();
  for (const auto& [offset, length] : spans_) {
    args_.emplace_back(buffer_.data() + begin_ + offset, length);
  }
  return Outcome::kRequest;
}

RequestParser::Outcome RequestParser::ParseInline() {
  const size_t window = std::min(end_ - pos_, limits_.max_inline_bytes + 1);
  const char* start = buffer_.data() + pos_;
  const char* newline =
      static_cast<const char*>(std::memchr(start, '\n', window));
  if (newline == nullptr) {
    if (end_ - pos_ > limits_.max_inline_bytes) {
      return ProtocolError("too big inline request");
    }
    return Outcome::kNeedMore;
  }
  std::string_view line(start, static_cast<size_t>(newline - start));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ += static_cast<size_t>(newline - start) + 1;
  std::vector<std::string> split;
  if (!SplitInlineArgs(line, &split)) {
    return ProtocolError("unbalanced quotes in request");
  }
  args_.clear();
  for (std::string& arg : split) {
    args_.push_back(inline_args_.emplace_back(std::move(arg)));
  }
  return Outcome::kRequest;  // an empty line gives no arguments
}

RequestParser::Line RequestParser::FindHeaderLine(std::string_view* text,
                                                  size_t* next) const {
  const size_t window = std::min(end_ - pos_, kMaxHeaderLine);
  const char* start = buffer_.data() + pos_;
  const char* cr = static_cast<const char*>(std::memchr(start, '\r', window));
  if (cr == nullptr) {
    return window == kMaxHeaderLine ? Line::kTooLong : Line::kNeedMore;
  }
  const size_t cr_pos = pos_ + static_cast<size_t>(cr - start);
  if (cr_pos + 1 == end_) return Line::kNeedMore;
  // A lone CR is no line end: let the caller report the line malformed.
  if (buffer_[cr_pos + 1] != '\n') return Line::kTooLong;
  *text = std::string_view(start + 1, cr_pos - pos_ - 1);
  *next = cr_pos + 2;
  return Line::kFound;
}

void RequestParser::Reject(std::string message) {
  rejected_ = true;
  spans_.clear();
  error_ = std::move(message);
}

RequestParser::Outcome RequestParser::ProtocolError(std::string_view what) {
  state_ = State::kBroken;
  error_ = "ERR Protocol error: ";
  error_ += what;
  return Outcome::kProtocolError;
}

}  // namespace plush::server
