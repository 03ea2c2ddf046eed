// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "codec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace plush::cli {
namespace {

constexpr std::string_view kHexDigits = "0123456789abcdef";
constexpr std::string_view kBase64Digits =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr int kInvalid = -1;

// Value of a hex digit, or kInvalid.
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return kInvalid;
}

// Value of every base64 digit, kInvalid for other bytes.
constexpr std::array<int, 256> Base64Table() {
  std::array<int, 256> table{};
  table.fill(kInvalid);
  for (size_t i = 0; i < kBase64Digits.size(); ++i) {
    table[static_cast<uint8_t>(kBase64Digits[i])] = static_cast<int>(i);
  }
  return table;
}

Status DecodeHex(std::string_view in, std::string* out) {
  if (in.size() % 2 != 0) {
    return Status::InvalidArgument("hex input has an odd number of digits");
  }
  out->clear();
  out->reserve(in.size() / 2);
  for (size_t i = 0; i < in.size(); i += 2) {
    int high = HexValue(in[i]);
    int low = HexValue(in[i + 1]);
    if (high == kInvalid || low == kInvalid) {
      return Status::InvalidArgument("invalid hex digit in '" +
                                     std::string(in) + "'");
    }
    out->push_back(static_cast<char>(high << 4 | low));
  }
  return Status::OK();
}

Status DecodeBase64(std::string_view in, std::string* out) {
  static constexpr std::array<int, 256> kTable = Base64Table();
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  // Each 4 digits carry 3 bytes; a lone trailing digit carries no byte.
  if (in.size() % 4 == 1) {
    return Status::InvalidArgument("invalid base64 length in '" +
                                   std::string(in) + "'");
  }
  out->clear();
  out->reserve(in.size() * 3 / 4);
  uint32_t bits = 0;
  int bit_count = 0;
  for (char c : in) {
    int value = kTable[static_cast<uint8_t>(c)];
    if (value == kInvalid) {
      return Status::InvalidArgument("invalid base64 character in '" +
                                     std::string(in) + "'");
    }
    bits = bits << 6 | static_cast<uint32_t>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out->push_back(static_cast<char>(bits >> bit_count & 0xff));
    }
  }
  return Status::OK();
}

std::string EncodeHex(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (char c : raw) {
    auto byte = static_cast<uint8_t>(c);
    out.push_back(kHexDigits[byte >> 4]);
    out.push_back(kHexDigits[byte & 0xf]);
  }
  return out;
}

std::string EncodeBase64(std::string_view raw) {
  std::string out;
  out.reserve((raw.size() + 2) / 3 * 4);
  for (size_t i = 0; i < raw.size(); i += 3) {
    size_t n = std::min<size_t>(3, raw.size() - i);
    uint32_t group = 0;
    for (size_t j = 0; j < 3; ++j) {
      uint32_t byte = j < n ? static_cast<uint8_t>(raw[i + j]) : 0;
      group = group << 8 | byte;
    }
    // n bytes fill n + 1 digits; '=' pads the group to 4.
    for (size_t j = 0; j < 4; ++j) {
      out.push_back(j <= n ? kBase64Digits[group >> (18 - 6 * j) & 0x3f] : '=');
    }
  }
  return out;
}

}  // namespace

Status Decode(Encoding encoding, std::string_view in, std::string* out) {
  switch (encoding) {
    case Encoding::kHex:
      return DecodeHex(in, out);
    case Encoding::kBase64:
      return DecodeBase64(in, out);
    case Encoding::kText:
      break;
  }
  out->assign(in);
  return Status::OK();
}

std::string Encode(Encoding encoding, std::string_view raw) {
  switch (encoding) {
    case Encoding::kHex:
      return EncodeHex(raw);
    case Encoding::kBase64:
      return EncodeBase64(raw);
    case Encoding::kText:
      break;
  }
  return std::string(raw);
}

namespace {
constexpr std::array<std::pair<Encoding, std::string_view>, 3> kNames = {{
    {Encoding::kText, "text"},
    {Encoding::kHex, "hex"},
    {Encoding::kBase64, "base64"},
}};
}  // namespace

std::string_view EncodingName(Encoding encoding) {
  for (const auto& [e, name] : kNames) {
    if (e == encoding) return name;
  }
  return {};
}

bool EncodingFromName(std::string_view name, Encoding* encoding) {
  for (const auto& [e, n] : kNames) {
    if (n == name) {
      *encoding = e;
      return true;
    }
  }
  return false;
}

}  // namespace plush::cli
