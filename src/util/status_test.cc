// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "plush/status.h"

#include <gtest/gtest.h>

namespace plush {
namespace {

TEST(StatusTest, OkIsDefaultAndHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kOk);
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(s.message().empty());
}

TEST(StatusTest, EachCodeHasItsPredicateAndName) {
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::NoSpace("x").IsNoSpace());
  EXPECT_TRUE(Status::IOError("x").IsIOError());
  EXPECT_TRUE(Status::Busy("x").IsBusy());
  EXPECT_TRUE(Status::NotSupported("x").IsNotSupported());
  EXPECT_EQ(Status::Corruption("bad superblock").ToString(),
            "Corruption: bad superblock");
  EXPECT_EQ(Status::Busy("open").ToString(), "Busy: open");
  EXPECT_FALSE(Status::NoSpace("x").ok());
}

TEST(StatusTest, CopiesAreDeepAndContextPrefixes) {
  Status a = Status::IOError("disk");
  Status b = a;
  a = Status::OK();
  EXPECT_TRUE(b.IsIOError());
  EXPECT_EQ(b.message(), "disk");
  EXPECT_EQ(b.WithContext("pool 'p'").ToString(), "IOError: pool 'p': disk");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

}  // namespace
}  // namespace plush
