// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "plush/write_batch.h"

#include <cstdint>
#include <cstring>

namespace plush {
namespace {

enum Tag : char { kPutTag = 1, kDeleteTag = 2, kPutWithExpiryTag = 3 };

void AppendBytes(std::string* rep, std::string_view bytes) {
  const auto size = static_cast<uint32_t>(bytes.size());
  rep->append(reinterpret_cast<const char*>(&size), sizeof(size));
  rep->append(bytes.data(), bytes.size());
}

std::string_view ReadBytes(const std::string& rep, size_t* at) {
  uint32_t size = 0;
  std::memcpy(&size, rep.data() + *at, sizeof(size));
  const std::string_view bytes(rep.data() + *at + sizeof(size), size);
  *at += sizeof(size) + size;
  return bytes;
}

}  // namespace

void WriteBatch::Put(std::string_view key, std::string_view value) {
  rep_.push_back(kPutTag);
  AppendBytes(&rep_, key);
  AppendBytes(&rep_, value);
  ++count_;
}

void WriteBatch::PutWithExpiry(std::string_view key, std::string_view value,
                               uint64_t expires_at_ms) {
  rep_.push_back(kPutWithExpiryTag);
  AppendBytes(&rep_, key);
  AppendBytes(&rep_, value);
  rep_.append(reinterpret_cast<const char*>(&expires_at_ms),
              sizeof(expires_at_ms));
  ++count_;
}

void WriteBatch::Delete(std::string_view key) {
  rep_.push_back(kDeleteTag);
  AppendBytes(&rep_, key);
  ++count_;
}

void WriteBatch::Clear() {
  rep_.clear();
  count_ = 0;
}

void WriteBatch::Iterate(Handler* handler) const {
  for (size_t at = 0; at < rep_.size();) {
    const char tag = rep_[at++];
    const std::string_view key = ReadBytes(rep_, &at);
    if (tag == kPutTag) {
      handler->Put(key, ReadBytes(rep_, &at));
    } else if (tag == kPutWithExpiryTag) {
      const std::string_view value = ReadBytes(rep_, &at);
      uint64_t expires_at_ms = 0;
      std::memcpy(&expires_at_ms, rep_.data() + at, sizeof(expires_at_ms));
      at += sizeof(expires_at_ms);
      handler->PutWithExpiry(key, value, expires_at_ms);
    } else {
      handler->Delete(key);
    }
  }
}

}  // namespace plush
