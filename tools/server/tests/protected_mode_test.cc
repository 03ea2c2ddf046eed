// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Which clients protected mode refuses. (The refusal on a socket: the
// redis-py tests, test_abuse.py.)

#include "protected_mode.h"

#include <gtest/gtest.h>

namespace plush::server {
namespace {

TEST(ProtectedModeTest, LoopbackAddresses) {
  for (const char* address : {"127.0.0.1", "127.255.0.9", "::1",
                              "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"}) {
    EXPECT_TRUE(IsLoopbackAddress(address)) << address;
  }
  for (const char* address :
       {"128.0.0.1", "10.0.0.1", "192.0.2.2", "0.0.0.0", "::", "fe80::1",
        "::2", "::ffff:10.0.0.1", "::127.0.0.1", "localhost", "", "127.0.0"}) {
    EXPECT_FALSE(IsLoopbackAddress(address)) << address;
  }
}

TEST(ProtectedModeTest, RefusesOtherHostsOnlyWithoutAPassword) {
  ServerConfig config;  // protected mode is on unless turned off
  EXPECT_TRUE(ProtectedModeApplies(config));
  EXPECT_FALSE(ProtectedModeRefuses(config, "127.0.0.1"));
  EXPECT_FALSE(ProtectedModeRefuses(config, "::1"));
  EXPECT_TRUE(ProtectedModeRefuses(config, "192.0.2.2"));
  EXPECT_TRUE(ProtectedModeRefuses(config, "fd00::2"));

  config.password = "secret";
  EXPECT_FALSE(ProtectedModeApplies(config));
  EXPECT_FALSE(ProtectedModeRefuses(config, "192.0.2.2"));

  config.password.reset();
  config.protected_mode = false;
  EXPECT_FALSE(ProtectedModeApplies(config));
  EXPECT_FALSE(ProtectedModeRefuses(config, "192.0.2.2"));
}

}  // namespace
}  // namespace plush::server
