// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// libFuzzer target for RequestParser: arbitrary client bytes, cut into
// reads at the places the input's first bytes choose, with small limits so
// that rejections and limit errors are reached often. Checks what the
// parser promises besides not crashing:
//   * the same bytes give the same outcomes however they are cut;
//   * arguments respect the limits, and a rejected request's bytes are
//     never buffered beyond one read;
//   * a protocol error is final.
// Run by `scripts/fuzz.sh 60s request` (ASan + UBSan).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "request_parser.h"

namespace {

using plush::server::RequestLimits;
using plush::server::RequestParser;

struct Parsed {
  std::vector<std::vector<std::string>> requests;
  std::vector<std::string> errors;  // rejections and the protocol error
  bool broken = false;
};

void Check(bool condition) {
  if (!condition) std::abort();
}

// Parses `data` read `piece` bytes at a time (0: all at once).
Parsed Parse(const uint8_t* data, size_t size, size_t piece,
             const RequestLimits& limits) {
  RequestParser parser(limits);
  Parsed parsed;
  size_t offset = 0;
  while (offset < size && !parsed.broken) {
    std::span<char> space = parser.ReadSpace();
    Check(!space.empty());
    // Whatever is buffered is at most one request's worth plus a read.
    Check(parser.buffered_bytes() <= limits.max_request_bytes +
                                         64 * limits.max_arguments +
                                         limits.max_inline_bytes + (32 << 10));
    size_t n = std::min(size - offset, space.size());
    if (piece > 0) n = std::min(n, piece);
    std::memcpy(space.data(), data + offset, n);
    parser.Received(n);
    offset += n;
    for (;;) {
      const RequestParser::Outcome outcome = parser.Next();
      if (outcome == RequestParser::Outcome::kNeedMore) break;
      if (outcome == RequestParser::Outcome::kRequest) {
        Check(!parser.args().empty());
        // (An inline line's arguments are bounded by its length only.)
        Check(parser.args().size() <=
              std::max(limits.max_arguments, limits.max_inline_bytes / 2 + 1));
        size_t bytes = 0;
        for (std::string_view arg : parser.args()) {
          Check(arg.size() <=
                std::max(limits.max_argument_bytes, limits.max_inline_bytes));
          bytes += arg.size();
        }
        Check(bytes <=
              std::max(limits.max_request_bytes, limits.max_inline_bytes));
        parsed.requests.emplace_back(parser.args().begin(),
                                     parser.args().end());
        continue;
      }
      parsed.errors.push_back(parser.error());
      if (outcome == RequestParser::Outcome::kProtocolError) {
        parsed.broken = true;
        Check(parser.Next() == RequestParser::Outcome::kProtocolError);
        break;
      }
    }
  }
  return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 17;
  RequestLimits limits;
  limits.max_arguments = 8;
  limits.max_argument_bytes = 64;
  limits.max_request_bytes = 200;
  limits.max_bulk_length = 1000;
  limits.max_inline_bytes = 128;
  const Parsed whole = Parse(data + 1, size - 1, 0, limits);
  const Parsed cut = Parse(data + 1, size - 1, piece, limits);
  Check(whole.requests == cut.requests);
  Check(whole.errors == cut.errors);
  Check(whole.broken == cut.broken);
  return 0;
}
