// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Writes one flat JSON object on one line: string, number and boolean
// members, in insertion order.

#ifndef PLUSH_TOOLS_BENCH_JSON_OBJECT_H_
#define PLUSH_TOOLS_BENCH_JSON_OBJECT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace plush::bench {

class JsonObject {
 public:
  JsonObject& String(std::string_view name, std::string_view value);
  JsonObject& Unsigned(std::string_view name, uint64_t value);
  JsonObject& Signed(std::string_view name, int64_t value);
  // Non-finite values (which JSON cannot express) are written as null.
  JsonObject& Double(std::string_view name, double value);
  JsonObject& Bool(std::string_view name, bool value);

  // The object, "{...}", without a newline.
  std::string str() const { return "{" + members_ + "}"; }

 private:
  void Name(std::string_view name);
  void Quoted(std::string_view text);

  std::string members_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_JSON_OBJECT_H_
