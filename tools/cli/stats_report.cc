// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "stats_report.h"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace plush::cli {
namespace {

// The single list of fields; the text and JSON renderings both derive from
// it so that they can never disagree.
nlohmann::ordered_json ToJson(const Stats& s) {
  return {
      {"backend", s.backend},
      {"power_fail_durable", s.power_fail_durable},
      {"guarantee", s.guarantee},
      {"granularity", s.granularity},
      {"format_version", s.format_version},
      {"partitioning", s.partitioning},
      {"dram_bytes", s.dram_bytes},
      {"pool_bytes", s.pool_bytes},
      {"pool_used_bytes", s.pool_used_bytes},
      {"levels", s.levels},
      {"records_per_level", s.records_per_level},
      {"migrations", s.migrations},
      {"log_compactions", s.log_compactions},
      {"log_forced_migrations", s.log_forced_migrations},
      {"payload_chunks", s.payload_chunks},
      {"payload_bytes", s.payload_bytes},
      {"payload_gc_runs", s.payload_gc_runs},
      {"payload_gc_moved", s.payload_gc_moved},
      {"payload_gc_skipped", s.payload_gc_skipped},
      {"persist_calls", s.persist_calls},
      {"flushed_lines", s.flushed_lines},
      {"user_bytes_written", s.user_bytes_written},
      {"media_bytes_written", s.media_bytes_written},
      {"media_write_amp", s.media_write_amp},
      {"recovery_seconds", s.recovery_seconds},
      {"recovered_log_entries", s.recovered_log_entries},
  };
}

}  // namespace

std::string StatsToJson(const Stats& stats) { return ToJson(stats).dump(); }

std::string StatsToText(const Stats& stats) {
  std::ostringstream out;
  const nlohmann::ordered_json json = ToJson(stats);
  for (const auto& [name, value] : json.items()) {
    // Strings unquoted for reading; numbers, booleans and lists as JSON.
    out << name << ": "
        << (value.is_string() ? value.get<std::string>() : value.dump())
        << '\n';
  }
  return out.str();
}

std::string StatsSummary(const Stats& s) {
  std::ostringstream out;
  out << "format version:     " << s.format_version << '\n'
      << "partitioning:       " << s.partitioning << '\n'
      << "back end:           " << s.backend << " (" << s.granularity
      << " granularity)\n"
      << "durability:         " << s.guarantee << '\n'
      << "power-fail durable: " << (s.power_fail_durable ? "yes" : "no") << '\n'
      << "levels:             " << s.levels << '\n';
  for (size_t i = 0; i < s.records_per_level.size(); ++i) {
    out << "  level " << i << (i == 0 ? " (DRAM)" : "       ")
        << " records: " << s.records_per_level[i] << '\n';
  }
  out << "DRAM:               " << HumanBytes(s.dram_bytes) << '\n'
      << "pool:               " << HumanBytes(s.pool_bytes) << " ("
      << HumanBytes(s.pool_used_bytes) << " used)\n";
  return out.str();
}

std::string HumanBytes(uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB",
                                                        "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.0f %s" : "%.1f %s",
                value, kUnits[unit]);
  return buffer;
}

}  // namespace plush::cli
