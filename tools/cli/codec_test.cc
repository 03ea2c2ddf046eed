// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "codec.h"

#include <gtest/gtest.h>

#include <string>

namespace plush::cli {
namespace {

std::string MustDecode(Encoding encoding, std::string_view in) {
  std::string out;
  Status s = Decode(encoding, in, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

TEST(CodecTest, TextPassesBytesThrough) {
  const std::string raw("a\0\xff\t", 4);
  EXPECT_EQ(Encode(Encoding::kText, raw), raw);
  EXPECT_EQ(MustDecode(Encoding::kText, raw), raw);
}

TEST(CodecTest, HexRoundTripsEveryByte) {
  std::string raw;
  for (int b = 0; b < 256; ++b) raw.push_back(static_cast<char>(b));
  std::string hex = Encode(Encoding::kHex, raw);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(MustDecode(Encoding::kHex, hex), raw);
}

TEST(CodecTest, HexAcceptsUpperCase) {
  EXPECT_EQ(MustDecode(Encoding::kHex, "DEADbeef"), "\xde\xad\xbe\xef");
}

TEST(CodecTest, HexRejectsOddLengthAndBadDigits) {
  std::string out;
  EXPECT_TRUE(Decode(Encoding::kHex, "abc", &out).IsInvalidArgument());
  EXPECT_TRUE(Decode(Encoding::kHex, "zz", &out).IsInvalidArgument());
}

TEST(CodecTest, Base64MatchesRfc4648Vectors) {
  const std::pair<std::string, std::string> kVectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [raw, encoded] : kVectors) {
    EXPECT_EQ(Encode(Encoding::kBase64, raw), encoded);
    EXPECT_EQ(MustDecode(Encoding::kBase64, encoded), raw);
  }
}

TEST(CodecTest, Base64PaddingIsOptional) {
  EXPECT_EQ(MustDecode(Encoding::kBase64, "Zm8"), "fo");
}

TEST(CodecTest, Base64RoundTripsBinary) {
  const std::string raw("\x00\xff\xfe\x80\x7f", 5);
  EXPECT_EQ(MustDecode(Encoding::kBase64, Encode(Encoding::kBase64, raw)), raw);
}

TEST(CodecTest, Base64RejectsBadInput) {
  std::string out;
  EXPECT_TRUE(Decode(Encoding::kBase64, "Zm9v!", &out).IsInvalidArgument());
  EXPECT_TRUE(Decode(Encoding::kBase64, "Zm9vY", &out).IsInvalidArgument());
}

}  // namespace
}  // namespace plush::cli
