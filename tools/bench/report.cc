// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "display.h"

namespace plush::bench {
namespace {

double Rate(uint64_t items, double seconds) {
  return seconds > 0 ? static_cast<double>(items) / seconds : 0;
}

double Mops(uint64_t operations, double seconds) {
  return Rate(operations, seconds) / 1e6;
}

// "negative-lookup" -> "negative_lookup_ratio".
std::string RatioField(OpType type) {
  std::string name(OpName(type));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name + "_ratio";
}

// The percentiles reported, with their JSON names and table labels.
struct Percentile {
  double percent;
  const char* json;
  const char* label;
};
constexpr Percentile kPercentiles[] = {{50, "p50_ns", "p50"},
                                       {90, "p90_ns", "p90"},
                                       {99, "p99_ns", "p99"},
                                       {99.9, "p999_ns", "p99.9"},
                                       {99.99, "p9999_ns", "p99.99"}};

std::string Printf(const char* format, auto... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof(buffer), format, args...);
  return buffer;
}

// 1234 -> "1.2 us"; keeps 2 to 3 significant digits.
std::string Nanos(uint64_t ns) {
  const auto x = static_cast<double>(ns);
  if (ns < 1000) return Printf("%llu ns", static_cast<unsigned long long>(ns));
  if (ns < 1000000) return Printf("%.3g us", x / 1e3);
  if (ns < 1000000000) return Printf("%.3g ms", x / 1e6);
  return Printf("%.3g s", x / 1e9);
}

std::string SizeText(const SizeSpec& size) {
  return size.fixed() ? size.ToString() + " B" : size.ToString();
}

}  // namespace

std::string ToJson(const BenchConfig& config, const RunResult& result) {
  // Ordered: the members keep the order below, which makes the line
  // readable (scripts go by the names, docs/benchmarking-tool.md). Every
  // figure keeps its C++ type, so a double is always a JSON float ("8.0")
  // and a count always an integer.
  nlohmann::ordered_json json;
  json["engine"] = config.engine.name;
  json["workload"] = config.workload;
  json["mode"] = config.recovery ? "recovery" : "run";
  json["status"] = std::string(OutcomeName(result.outcome));
  json["error"] = result.error;
  json["threads"] = config.threads;
  json["records"] = config.records;
  json["operations"] = result.operations;
  json["seconds"] = result.seconds;
  json["mops"] = Mops(result.operations, result.seconds);
  json["load_seconds"] = result.load_seconds;
  json["load_mops"] =
      Mops(config.recovery ? 0 : config.records, result.load_seconds);
  for (const Percentile& p : kPercentiles) {
    json[p.json] = result.latency.Percentile(p.percent);
  }
  json["max_ns"] = result.latency.max();
  json["latency_samples"] = result.latency.count();
  json["dram_bytes"] = result.dram_bytes;
  json["dram_source"] = result.dram_from_engine ? "engine" : "rss";
  json["rss_delta_bytes"] = result.rss_delta_bytes;
  json["pool_bytes"] = result.pool_bytes;
  json["media_write_amp"] = result.media_write_amp;
  json["persist_per_op"] = result.persist_per_op;
  json["flushed_lines_per_op"] = result.flushed_lines_per_op;
  json["key_size"] = config.key_size.mean();
  json["key_size_stddev"] = config.key_size.stddev();
  json["value_size"] = config.value_size.mean();
  json["value_size_stddev"] = config.value_size.stddev();
  json["key_order"] = std::string(KeyOrderName(config.key_order));
  json["distribution"] = std::string(DistributionName(config.distribution));
  json["skew"] = config.skew;
  json["seed"] = config.seed;
  json["backend"] = result.backend;
  for (size_t i = 0; i < kOpTypeCount; ++i) {
    json[RatioField(static_cast<OpType>(i))] = config.mix.ratios[i];
  }
  json["scan_size"] = config.scan_size;
  json["batch"] = config.batch;
  json["multiget"] = config.multiget;
  json["recovery_seconds"] = result.recovery_seconds;
  json["engine_recovery_seconds"] = result.engine_recovery_seconds;
  json["recovered_log_entries"] = result.recovered_log_entries;
  json["verified_records"] = result.verified_records;
  json["checkpoint_threads"] = config.checkpoint_threads;
  json["checkpoint_seconds"] = result.checkpoint_seconds;
  json["emulate_pmem"] = config.engine.plush_internal.emulate_pmem_costs;
  json["unlogged"] = config.engine.plush_unlogged;
  json["model_write_amp"] = config.engine.plush_internal.model_media_write_amp;
  json["pool_path"] = result.pool_path;
  // Later additions, at the end so that the order of the others holds.
  json["latency_mode"] = LatencyModeName(config.latency);
  json["iterate_records"] = result.iterate_records;
  json["iterate_seconds"] = result.iterate_seconds;
  json["iterate_records_per_second"] =
      Rate(result.iterate_records, result.iterate_seconds);
  json["backup_seconds"] = result.backup_seconds;
  json["backup_bytes"] = result.backup_bytes;
  json["sync"] = config.engine.plush_sync;
  // An error message or a path may hold bytes that are not UTF-8: replace
  // them rather than throw, or print JSON no parser would accept.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void PrintTable(const BenchConfig& config, const RunResult& result,
                std::ostream& out) {
  out << "plush-bench: engine " << config.engine.name << " (" << result.backend
      << "), workload " << config.workload << ", " << config.threads
      << " thread(s), " << DistributionName(config.distribution);
  if (config.skew != 0) out << " " << config.skew;
  out << ", key " << SizeText(config.key_size) << ", value "
      << SizeText(config.value_size) << ", seed " << config.seed << "\n";

  if (config.recovery) {
    out << Printf(
               "  recovery  %.3f s to reopen after kill -9 of a child that "
               "loaded %llu records\n",
               result.recovery_seconds,
               static_cast<unsigned long long>(config.records))
        << Printf(
               "            engine's own account %.3f s, %llu log entries "
               "replayed\n",
               result.engine_recovery_seconds,
               static_cast<unsigned long long>(result.recovered_log_entries));
  } else {
    out << Printf("  load      %12llu records  %8.3f s  %8.3f Mops/s\n",
                  static_cast<unsigned long long>(config.records),
                  result.load_seconds,
                  Mops(config.records, result.load_seconds))
        << Printf("  run       %12llu ops      %8.3f s  %8.3f Mops/s\n",
                  static_cast<unsigned long long>(result.operations),
                  result.seconds, Mops(result.operations, result.seconds));
  }
  if (result.latency.count() > 0) {
    out << "  latency  ";
    for (const Percentile& p : kPercentiles) {
      out << " " << p.label << " "
          << Nanos(result.latency.Percentile(p.percent));
    }
    out << " max " << Nanos(result.latency.max()) << " ("
        << result.latency.count()
        << (config.latency == LatencyMode::kAll ? " samples, every operation)\n"
                                                : " samples)\n");
  }
  out << "  memory    DRAM "
      << tools::HumanBytes(static_cast<double>(result.dram_bytes))
      << (result.dram_from_engine ? " (engine's account)" : " (RSS growth)")
      << ", RSS growth "
      << tools::HumanBytes(static_cast<double>(result.rss_delta_bytes))
      << ", pool " << tools::HumanBytes(static_cast<double>(result.pool_bytes))
      << "\n";
  out << Printf("  persist   %.2f fences/op, %.2f flushed lines/op, ",
                result.persist_per_op, result.flushed_lines_per_op)
      << (config.engine.plush_internal.model_media_write_amp
              ? Printf("media write amplification %.2f\n",
                       result.media_write_amp)
              : std::string("media write amplification not modeled\n"));
  if (config.checkpoint_threads > 0) {
    out << Printf("  checkpoint %.3f s with %u thread(s)\n",
                  result.checkpoint_seconds, config.checkpoint_threads);
  }
  if (config.iterate) {
    out << Printf("  iterate   %12llu records  %8.3f s  %8.3f M records/s\n",
                  static_cast<unsigned long long>(result.iterate_records),
                  result.iterate_seconds,
                  Rate(result.iterate_records, result.iterate_seconds) / 1e6);
  }
  if (!config.backup.empty()) {
    out << Printf("  backup    %.3f s, ", result.backup_seconds)
        << tools::HumanBytes(static_cast<double>(result.backup_bytes)) << " to "
        << config.backup << "\n";
  }
  if (config.verify) {
    out << "  check     " << result.verified_records << " records read back\n";
  }
  if (!config.pool.empty() || config.keep_pool) {
    out << "  pool      " << result.pool_path << " (kept)\n";
  }
  out << "  result    " << OutcomeName(result.outcome);
  if (result.outcome != Outcome::kOk) out << ": " << result.error;
  out << "\n";
}

}  // namespace plush::bench
