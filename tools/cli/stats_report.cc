// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "stats_report.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "display.h"

namespace plush::cli {
namespace {

// Stats::ForEachField is the one list of fields; the text and JSON
// renderings both derive from it so that they can never disagree.
class JsonFields final : public StatsVisitor {
 public:
  void Text(std::string_view name, const std::string& value) override {
    json[std::string(name)] = value;
  }
  void Flag(std::string_view name, bool value) override {
    json[std::string(name)] = value;
  }
  void Count(std::string_view name, uint64_t value) override {
    json[std::string(name)] = value;
  }
  void Ratio(std::string_view name, double value) override {
    json[std::string(name)] = value;
  }
  void Counts(std::string_view name,
              const std::vector<uint64_t>& values) override {
    json[std::string(name)] = values;
  }
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
};

nlohmann::ordered_json ToJson(const Stats& s) {
  JsonFields fields;
  s.ForEachField(&fields);
  return std::move(fields.json);
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
      << "partitioning:       " << s.partitioning
      << (s.range_units.empty()
              ? ""
              : " (units " + s.range_units + ", " +
                    std::to_string(s.range_rebalances) + " re-balances)")
      << '\n'
      << "back end:           " << s.backend << " (" << s.granularity
      << " granularity)\n"
      << "durability:         " << s.guarantee << '\n'
      << "power-fail durable: " << (s.power_fail_durable ? "yes" : "no") << '\n'
      << "levels:             " << s.levels << '\n';
  for (size_t i = 0; i < s.records_per_level.size(); ++i) {
    out << "  level " << i << (i == 0 ? " (DRAM)" : "       ")
        << " records: " << s.records_per_level[i] << '\n';
  }
  out << "records per unit:   " << s.unit_records_min << " min, "
      << s.unit_records_median << " median, " << s.unit_records_max
      << " max (of " << (uint64_t{1} << s.dram_directory_bits)
      << " units)\n";
  out << "DRAM:               " << tools::HumanBytes(s.dram_bytes) << '\n'
      << "pool:               " << tools::HumanBytes(s.pool_bytes) << " ("
      << tools::HumanBytes(s.pool_used_bytes) << " used, "
      << tools::HumanBytes(s.pool_allocated_bytes) << " on disk)\n";
  return out.str();
}

}  // namespace plush::cli
