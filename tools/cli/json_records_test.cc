// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "json_records.h"

#include <gtest/gtest.h>

#include <random>

namespace plush::cli {
namespace {

// Format, then parse: the same bytes (and expiry) in every encoding.
void ExpectRoundTrip(const std::string& key, const std::string& value,
                     uint64_t expires_at_ms = 0) {
  for (Encoding encoding : {Encoding::kText, Encoding::kHex, Encoding::kBase64}) {
    const std::string line =
        FormatJsonRecord(encoding, key, value, expires_at_ms);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    std::string parsed_key;
    std::string parsed_value;
    uint64_t parsed_expiry = 1;
    ASSERT_TRUE(ParseJsonRecord(line, encoding, &parsed_key, &parsed_value,
                                &parsed_expiry)
                    .ok())
        << line;
    EXPECT_EQ(parsed_key, key) << line;
    EXPECT_EQ(parsed_value, value) << line;
    EXPECT_EQ(parsed_expiry, expires_at_ms) << line;
  }
}

TEST(JsonRecordsTest, FormatThenParseRoundTrips) {
  ExpectRoundTrip("k\"ey\\\n\t\x01", "v\xc3\xa9");  // UTF-8 for e-acute
  ExpectRoundTrip("", "");
}

TEST(JsonRecordsTest, BytesThatAreNotTextTravelAsBase64Members) {
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "\xff", "v", 0),
            R"({"key_base64":"/w==","value":"v"})");
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "k", std::string("\xc3", 1), 0),
            R"({"key":"k","value_base64":"ww=="})");
  EXPECT_EQ(FormatJsonRecord(Encoding::kHex, "\xff", "v", 0),
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

TEST(JsonRecordsTest, ExpiryTravelsAsAMemberOfRecordsThatHaveOne) {
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "k", "v", 1767225600123),
            R"({"key":"k","value":"v","expires_at_ms":1767225600123})");
  EXPECT_EQ(FormatJsonRecord(Encoding::kText, "\xff", "v", 1),
            R"({"key_base64":"/w==","value":"v","expires_at_ms":1})");
  ExpectRoundTrip("k\xff", "v", 1767225600123);
  ExpectRoundTrip("k", "v", UINT64_MAX);
  // 0 is "never", as the engine has it, written or not.
  std::string key;
  std::string value;
  uint64_t expiry = 1;
  ASSERT_TRUE(ParseJsonRecord(R"({"key": "k", "value": "v",
                                  "expires_at_ms": 0})",
                              Encoding::kText, &key, &value, &expiry)
                  .ok());
  EXPECT_EQ(expiry, 0u);
}

TEST(JsonRecordsTest, ParseAcceptsEscapesAndExtraMembers) {
  std::string key;
  std::string value;
  uint64_t expiry = 1;
  ASSERT_TRUE(ParseJsonRecord(
                  R"( {"value": "\u00e9", "note": 1, "key": "a\tb"} )",
                  Encoding::kText, &key, &value, &expiry)
                  .ok());
  EXPECT_EQ(key, "a\tb");
  EXPECT_EQ(value, "\xc3\xa9");
  EXPECT_EQ(expiry, 0u);
}

TEST(JsonRecordsTest, ParseRejectsMalformedLinesWithTheReason) {
  std::string key;
  std::string value;
  uint64_t expiry = 0;
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
      {R"({"key": "k", "value": "v", "expires_at_ms": -5})",
       "\"expires_at_ms\" must be a whole number of Unix milliseconds, not "
       "-5"},
      {R"({"key": "k", "value": "v", "expires_at_ms": 1.5})",
       "\"expires_at_ms\" must be a whole number of Unix milliseconds, not "
       "1.5"},
      {R"({"key": "k", "value": "v", "expires_at_ms": "1767225600123"})",
       "\"expires_at_ms\" must be a whole number of Unix milliseconds, not "
       "\"1767225600123\""},
      {R"({"key": "k", "value": "v", "expires_at_ms": 18446744073709551616})",
       "\"expires_at_ms\" must be a whole number of Unix milliseconds, not "},
  };
  for (const auto& [line, message] : cases) {
    Status s = ParseJsonRecord(line, Encoding::kText, &key, &value, &expiry);
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
