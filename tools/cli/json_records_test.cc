// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_records.h"

#include <gtest/gtest.h>

namespace plush::cli {
namespace {

TEST(JsonRecordsTest, FormatThenParseRoundTrips) {
  const std::string key = "k\"ey\\\n\t\x01";
  const std::string value = "v\xc3\xa9";  // UTF-8 for e-acute
  std::string line;
  ASSERT_TRUE(FormatJsonRecord(key, value, &line).ok());
  EXPECT_EQ(line.find('\n'), std::string::npos);
  std::string parsed_key;
  std::string parsed_value;
  ASSERT_TRUE(ParseJsonRecord(line, &parsed_key, &parsed_value).ok());
  EXPECT_EQ(parsed_key, key);
  EXPECT_EQ(parsed_value, value);
}

TEST(JsonRecordsTest, FormatRejectsInvalidUtf8) {
  std::string line;
  EXPECT_TRUE(FormatJsonRecord("\xff", "v", &line).IsInvalidArgument());
}

TEST(JsonRecordsTest, ParseAcceptsEscapesAndExtraMembers) {
  std::string key;
  std::string value;
  ASSERT_TRUE(
      ParseJsonRecord(R"( {"value": "\u00e9", "note": 1, "key": "a\tb"} )",
                      &key, &value)
          .ok());
  EXPECT_EQ(key, "a\tb");
  EXPECT_EQ(value, "\xc3\xa9");
}

TEST(JsonRecordsTest, ParseRejectsMalformedLines) {
  std::string key;
  std::string value;
  for (const char* line :
       {"", "not json", "[1, 2]", R"({"key": "k"})",
        R"({"key": 1, "value": "v"})", R"({"key": "k", "value": "v")"}) {
    EXPECT_TRUE(ParseJsonRecord(line, &key, &value).IsInvalidArgument())
        << line;
  }
}

}  // namespace
}  // namespace plush::cli
