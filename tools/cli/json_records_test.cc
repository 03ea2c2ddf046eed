// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_records.h"

#include <gtest/gtest.h>

#include <random>

namespace plush::cli {
namespace {

// Format, then parse: the same bytes in every encoding.
void ExpectRoundTrip(const std::string& key, const std::string& value) {
  for (Encoding encoding : {Encoding::kText, Encoding::kHex, Encoding::kBase64}) {
    const std::string line = FormatJsonRecord(encoding, key, value);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    std::string parsed_key;
    std::string parsed_value;
    ASSERT_TRUE(ParseJsonRecord(line, encoding, &parsed_key, &parsed_value).ok())
        << line;
    EXPECT_EQ(parsed_key, key) << line;
    EXPECT_EQ(parsed_value, value) << line;
  }
}

TEST(JsonRecordsTest, FormatThenParseRoundTrips) {
  ExpectRoundTrip("k\"ey\\\n\t\x01", "v\xc3\xa9");  // UTF-8 for e-acute
  ExpectRoundTrip("", "");
}

TEST(JsonRecordsTest, BytesThatAreNotTextTravelAsBase64Members) {
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "\xff", "v"),
            R"({"key_base64":"/w==","value":"v"})");
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "k", std::string("\xc3", 1)),
            R"({"key":"k","value_base64":"ww=="})");
  EXPECT_EQ(FormatJsonRecord(Encoding::kHex, "\xff", "v"),
            R"({"key":"ff","value":"76"})");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string key(rng() % 40, '\0');
    std::string value(rng() % 100, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    for (char& c : value) c = static_cast<char>(rng());
    ExpectRoundTrip(key, value);
  }
}

TEST(JsonRecordsTest, ParseAcceptsEscapesAndExtraMembers) {
  std::string key;
  std::string value;
  ASSERT_TRUE(ParseJsonRecord(
                  R"( {"value": "\u00e9", "note": 1, "key": "a\tb"} )",
                  Encoding::kText, &key, &value)
                  .ok());
  EXPECT_EQ(key, "a\tb");
  EXPECT_EQ(value, "\xc3\xa9");
}

TEST(JsonRecordsTest, ParseRejectsMalformedLinesWithTheReason) {
  std::string key;
  std::string value;
  const std::pair<const char*, const char*> cases[] = {
      {"", "expected a JSON object {\"key\": ..., \"value\": ...}"},
      {"not json", "expected a JSON object {\"key\": ..., \"value\": ...}"},
      {"[1, 2]", "expected a JSON object {\"key\": ..., \"value\": ...}"},
      {R"({"key": "k"})",
       "expected a string member \"value\" or \"value_base64\""},
      {R"({"key": 1, "value": "v"})",
       "expected a string member \"key\" or \"key_base64\""},
      {R"({"key": "k", "value": "v")",
       "expected a JSON object {\"key\": ..., \"value\": ...}"},
      {R"({"key": "k", "key_base64": "aw==", "value": "v"})",
       "both \"key\" and \"key_base64\" are given"},
      {R"({"key_base64": "!!", "value": "v"})", "key_base64: "},
  };
  for (const auto& [line, message] : cases) {
    Status s = ParseJsonRecord(line, Encoding::kText, &key, &value);
    EXPECT_TRUE(s.IsInvalidArgument()) << line;
    EXPECT_EQ(s.message().find(message), 0u) << line << ": " << s.message();
  }
}

TEST(JsonRecordsTest, DumpFrameNamesItsEncodingAndCount) {
  bool is_header = false;
  Encoding encoding = Encoding::kText;
  ASSERT_TRUE(ParseDumpHeader(FormatDumpHeader(Encoding::kHex), &is_header,
                              &encoding)
                  .ok());
  EXPECT_TRUE(is_header);
  EXPECT_EQ(encoding, Encoding::kHex);
  ASSERT_TRUE(ParseDumpHeader(R"({"key": "k", "value": "v"})", &is_header,
                              &encoding)
                  .ok());
  EXPECT_FALSE(is_header);
  Status s = ParseDumpHeader(R"({"plush_dump": {"version": 9}})", &is_header,
                             &encoding);
  EXPECT_EQ(s.message(),
            R"(a dump of another version than 1 (its first line: {"plush_dump": {"version": 9}}))");
  s = ParseDumpHeader(R"({"plush_dump": {"version": 1, "encoding": "rot13"}})",
                      &is_header, &encoding);
  EXPECT_EQ(s.message().find("a dump of an unknown encoding"), 0u);

  bool is_end = false;
  uint64_t records = 0;
  ASSERT_TRUE(ParseDumpEnd(FormatDumpEnd(1001), &is_end, &records).ok());
  EXPECT_TRUE(is_end);
  EXPECT_EQ(records, 1001u);
  s = ParseDumpEnd(R"({"plush_dump_end": {"records": -1}})", &is_end, &records);
  EXPECT_EQ(s.message(),
            R"(a malformed end line of a dump: {"plush_dump_end": {"records": -1}})");
}

TEST(JsonRecordsTest, TellsJsonObjectsFromTabSeparatedLines) {
  EXPECT_TRUE(IsJsonObject(R"({"key": "k", "value": "v"})"));
  EXPECT_FALSE(IsJsonObject("{k}\tv"));
  EXPECT_FALSE(IsJsonObject("k\tv"));
}

}  // namespace
}  // namespace plush::cli
