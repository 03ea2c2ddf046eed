// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "key_space.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "rng.h"

namespace plush::bench {
namespace {

// See key_space.h. Top bit clear, so that salting keeps record and absent
// key inputs apart.
constexpr uint64_t kKeySalt = 0x5bd1e9955bd1e995ULL;
// Salts that make a record's key size, value tag and value size independent
// functions of its key hash.
constexpr uint64_t kKeySizeSalt = 0x6b65792d73697a65ULL;
constexpr uint64_t kValueSalt = 0x76616c75652d7467ULL;

// The same random bytes in every process (the recovery mode checks in one
// process what another one wrote), hence the fixed seed.
std::vector<char> Filler(size_t size) {
  std::vector<char> bytes(size);
  Rng rng(0x66696c6c6572ULL);
  for (char& byte : bytes) byte = static_cast<char>(rng.Next());
  return bytes;
}

void StoreBigEndian(uint64_t x, char* out) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(x & 0xff);
    x >>= 8;
  }
}

uint64_t LoadBigEndian(const char* in) {
  uint64_t x = 0;
  for (int i = 0; i < 8; ++i) x = (x << 8) | static_cast<unsigned char>(in[i]);
  return x;
}

constexpr std::string_view kUserPrefix = "user:";

}  // namespace

std::string_view KeyOrderName(KeyOrder order) {
  switch (order) {
    case KeyOrder::kHashed:
      return "hashed";
    case KeyOrder::kSequential:
      return "sequential";
    case KeyOrder::kUser:
      return "user";
  }
  return "?";
}

KeySpace::KeySpace(SizeSpec key_size, SizeSpec value_size, KeyOrder order)
    : key_size_(key_size), value_size_(value_size), order_(order) {}

RecordBuilder::RecordBuilder(const KeySpace& space)
    : space_(space),
      // A user key takes "user:" and up to 20 digits (and snprintf's NUL).
      key_(Filler(std::max(space.key_size_.max(), size_t{32}))),
      value_(Filler(std::max(space.value_size_.max(), sizeof(uint64_t)))) {}

std::string_view RecordBuilder::BuildKey(uint64_t id) {
  const uint64_t hash = Mix64(id ^ kKeySalt);
  switch (space_.order_) {
    case KeyOrder::kHashed:
      StoreBigEndian(hash, key_.data());
      break;
    case KeyOrder::kSequential:
      StoreBigEndian(id, key_.data());
      break;
    case KeyOrder::kUser: {
      // At most 5 + 20 bytes: key_ is at least that long (the constructor).
      const int size = std::snprintf(key_.data(), key_.size(), "%s%08llu",
                                     kUserPrefix.data(),
                                     static_cast<unsigned long long>(id));
      return {key_.data(), static_cast<size_t>(size)};
    }
  }
  return {key_.data(), space_.key_size_.SizeOf(Mix64(hash ^ kKeySizeSalt))};
}

std::string_view RecordBuilder::Value(uint64_t record) {
  const uint64_t tag = Mix64(Mix64(record) ^ kValueSalt);
  std::memcpy(value_.data(), &tag, sizeof(tag));
  return {value_.data(), space_.value_size_.SizeOf(tag)};
}

std::optional<uint64_t> RecordBuilder::RecordOf(std::string_view key) {
  uint64_t id = 0;
  if (space_.order_ == KeyOrder::kUser) {
    if (!key.starts_with(kUserPrefix)) return std::nullopt;
    const std::string_view digits = key.substr(kUserPrefix.size());
    if (digits.empty() || digits.size() > 19) return std::nullopt;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      id = id * 10 + static_cast<uint64_t>(c - '0');
    }
  } else if (key.size() < sizeof(uint64_t)) {
    return std::nullopt;
  } else {
    id = LoadBigEndian(key.data());
    if (space_.order_ == KeyOrder::kHashed) id = Unmix64(id) ^ kKeySalt;
  }
  // The prefix fixes the record; the size and filler must match it too.
  if ((id & kAbsentBit) != 0 || Key(id) != key) return std::nullopt;
  return id;
}

std::string KeyText(std::string_view key) {
  std::string text = "key 0x";
  char hex[3];
  for (size_t i = 0; i < key.size() && i < 8; ++i) {
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(key[i]));
    text += hex;
  }
  return text;
}

std::string DescribeRecord(uint64_t record, std::string_view key) {
  return "record " + std::to_string(record) + " (" + KeyText(key) + ")";
}

}  // namespace plush::bench
