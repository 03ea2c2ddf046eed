// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A Status is the result of every fallible Plush call. No exception ever
// crosses the public API and no bad input aborts the process: callers check
// `ok()` or one of the `IsXxx()` predicates.
//
// An OK status holds no allocation and is cheap to copy; a non-OK status
// owns a heap-allocated message — except the NotFound() of a missing key,
// whose message is a constant (lookups that miss allocate nothing).
// Statuses are cheap to move.
//
// Thread safety: a const Status may be read from many threads; a mutable one
// needs external synchronisation, like any value type.

#ifndef PLUSH_STATUS_H_
#define PLUSH_STATUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "plush/export.h"

namespace plush {

class [[nodiscard]] PLUSH_EXPORT Status {
 public:
  // The closed set of outcomes. Values are part of the API (the Python
  // bindings and the CLI's exit codes map them); do not renumber.
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound = 1,         // the key does not exist (not an error for Get)
    kInvalidArgument = 2,  // bad input: sizes, options, a closed DB
    kCorruption = 3,       // the pool's bytes are inconsistent
    kNoSpace = 4,          // the pool (or its file system) is full
    kIOError = 5,          // the operating system refused an operation
    kBusy = 6,             // the pool is already open somewhere else
    kNotSupported = 7,     // the request is valid but cannot be met here
  };

  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) {
    return {Code::kNotFound, msg};
  }
  // NotFound with the constant message "key not found", allocation-free.
  static Status NotFound() {
    Status s;
    s.code_ = Code::kNotFound;
    s.constant_message_ = "key not found";
    return s;
  }
  static Status InvalidArgument(std::string_view msg) {
    return {Code::kInvalidArgument, msg};
  }
  static Status Corruption(std::string_view msg) {
    return {Code::kCorruption, msg};
  }
  static Status NoSpace(std::string_view msg) { return {Code::kNoSpace, msg}; }
  static Status IOError(std::string_view msg) { return {Code::kIOError, msg}; }
  static Status Busy(std::string_view msg) { return {Code::kBusy, msg}; }
  static Status NotSupported(std::string_view msg) {
    return {Code::kNotSupported, msg};
  }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNoSpace() const { return code_ == Code::kNoSpace; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }

  Code code() const { return code_; }
  // The message alone, without the code name; empty for OK.
  std::string_view message() const;
  // "OK", or "<CodeName>: <message>", e.g. "Corruption: bad superblock".
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context` + ": ".
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string_view msg);

  Code code_ = Code::kOk;
  std::unique_ptr<std::string> message_;  // null if ok() or constant
  const char* constant_message_ = nullptr;
};

}  // namespace plush

#endif  // PLUSH_STATUS_H_
