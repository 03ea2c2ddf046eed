// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What a write this server answered survives: the back end's guarantee,
// raised to power failure by --sync-writes where a sync gives it (the file
// back end). The one statement of it, for INFO persistence and the line
// the server prints when it starts.

#ifndef PLUSH_TOOLS_SERVER_REPLY_GUARANTEE_H_
#define PLUSH_TOOLS_SERVER_REPLY_GUARANTEE_H_

#include <string>

#include "plush/stats.h"

namespace plush::server {

struct ReplyGuarantee {
  // An answered write survives power failure.
  bool power_fail_durable = false;
  // One line for humans (no commas: redis-py reads a value with commas in
  // INFO as a list).
  std::string text;
};

// The guarantee of the replies of a server on a pool with these `stats`,
// with or without --sync-writes.
ReplyGuarantee GuaranteeOfReplies(const Stats& stats, bool sync_writes);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_REPLY_GUARANTEE_H_
