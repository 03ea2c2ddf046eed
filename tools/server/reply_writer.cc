// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "reply_writer.h"

#include <charconv>

namespace plush::server {

void ReplyWriter::Status(std::string_view text) {
  out_->push_back('+');
  out_->append(text);
  out_->append("\r\n");
}

void ReplyWriter::Error(std::string_view line) {
  const size_t start = out_->size();
  out_->push_back('-');
  out_->append(line);
  for (size_t i = start; i < out_->size(); ++i) {
    char& c = (*out_)[i];
    if (c == '\r' || c == '\n') c = ' ';
  }
  out_->append("\r\n");
}

void ReplyWriter::Integer(int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  out_->push_back(':');
  out_->append(digits, end);
  out_->append("\r\n");
}

void ReplyWriter::Bulk(std::string_view data) {
  Header('$', data.size());
  out_->append(data);
  out_->append("\r\n");
}

void ReplyWriter::Null() { out_->append(protocol_ == 3 ? "_\r\n" : "$-1\r\n"); }

void ReplyWriter::NullArray() {
  out_->append(protocol_ == 3 ? "_\r\n" : "*-1\r\n");
}

void ReplyWriter::ArrayHeader(size_t elements) { Header('*', elements); }

void ReplyWriter::MapHeader(size_t pairs) {
  if (protocol_ == 3) {
    Header('%', pairs);
  } else {
    Header('*', 2 * pairs);
  }
}

void ReplyWriter::Text(std::string_view text) {
  if (protocol_ == 3) {
    Header('=', text.size() + 4);
    out_->append("txt:");
  } else {
    Header('$', text.size());
  }
  out_->append(text);
  out_->append("\r\n");
}

void ReplyWriter::Header(char type, uint64_t length) {
  char line[24];
  line[0] = type;
  char* end = std::to_chars(line + 1, line + sizeof(line) - 2, length).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out_->append(line, end);
}

}  // namespace plush::server
