// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The text of INFO: Redis's sections (server, clients, memory,
// persistence, stats, keyspace) as "name:value" lines, with the pool's
// figures from DB::GetStats under "plush_" names. Each field appears in one
// section, booleans as Redis spells them (0 or 1); the persistence section
// states what this server's replies guarantee (reply_guarantee.h).

#ifndef PLUSH_TOOLS_SERVER_INFO_REPORT_H_
#define PLUSH_TOOLS_SERVER_INFO_REPORT_H_

#include <span>
#include <string>
#include <string_view>

#include "plush/status.h"
#include "server_context.h"

namespace plush::server {

// The INFO text of the sections named in `sections` (any case; none,
// "default", "all" or "everything" mean all of them; unknown names add
// nothing, as in Redis). Fails only if the pool's figures, or the
// process's memory (process_memory.h), cannot be read.
Status InfoReport(ServerContext& server,
                  std::span<const std::string_view> sections,
                  std::string* text);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_INFO_REPORT_H_
