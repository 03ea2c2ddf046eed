// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "plush/status.h"

namespace plush {
namespace {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kNotFound:
      return "NotFound";
    case Status::Code::kInvalidArgument:
      return "InvalidArgument";
    case Status::Code::kCorruption:
      return "Corruption";
    case Status::Code::kNoSpace:
      return "NoSpace";
    case Status::Code::kIOError:
      return "IOError";
    case Status::Code::kBusy:
      return "Busy";
    case Status::Code::kNotSupported:
      return "NotSupported";
  }
  return "Unknown";
}

}  // namespace

Status::Status(Code code, std::string_view msg)
    : code_(code),
      message_(code == Code::kOk ? nullptr
                                 : std::make_unique<std::string>(msg)) {}

Status::Status(const Status& other)
    : code_(other.code_),
      message_(other.message_ ? std::make_unique<std::string>(*other.message_)
                              : nullptr),
      constant_message_(other.constant_message_) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    code_ = other.code_;
    message_ = other.message_ ? std::make_unique<std::string>(*other.message_)
                              : nullptr;
    constant_message_ = other.constant_message_;
  }
  return *this;
}

std::string_view Status::message() const {
  if (message_) return *message_;
  return constant_message_ != nullptr ? constant_message_ : std::string_view();
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeName(code_);
  out += ": ";
  out += message();
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return Status();
  std::string msg(context);
  msg += ": ";
  msg += message();
  return Status(code_, msg);
}

}  // namespace plush
