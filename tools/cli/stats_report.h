// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Renderings of DB::GetStats() for `plush stats` and `plush info`.

#ifndef PLUSH_TOOLS_CLI_STATS_REPORT_H_
#define PLUSH_TOOLS_CLI_STATS_REPORT_H_

#include <string>

#include "plush/stats.h"

namespace plush::cli {

// Every Stats field as one JSON object, in declaration order.
std::string StatsToJson(const Stats& stats);

// Every Stats field as "name: value" lines, same names as the JSON.
std::string StatsToText(const Stats& stats);

// A summary for people: format, back end and guarantee, levels, space.
std::string StatsSummary(const Stats& stats);

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_STATS_REPORT_H_
