// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "protected_mode.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace plush::server {

bool IsLoopbackAddress(std::string_view address) {
  const std::string text(address);  // inet_pton wants a C string
  std::array<uint8_t, 16> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) {
    return bytes[0] == 127;
  }
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return false;
  constexpr std::array<uint8_t, 16> kLoopback6{0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, 0, 1};
  constexpr std::array<uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0,    0,
                                                  0, 0, 0, 0, 0xff, 0xff};
  const bool v4_mapped = std::equal(kMappedPrefix.begin(), kMappedPrefix.end(),
                                    bytes.begin());
  return bytes == kLoopback6 || (v4_mapped && bytes[12] == 127);
}

bool ProtectedModeApplies(const ServerConfig& config) {
  return config.protected_mode && !config.password.has_value();
}

bool ProtectedModeRefuses(const ServerConfig& config,
                          std::string_view peer_address) {
  return ProtectedModeApplies(config) && !IsLoopbackAddress(peer_address);
}

}  // namespace plush::server
