// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The one list of Stats fields (plush/stats.h).

#include "plush/stats.h"

#include <cstdio>
#include <string>

namespace plush {

void StatsTextVisitor::Text(std::string_view name, const std::string& value) {
  Field(name, value);
}

void StatsTextVisitor::Flag(std::string_view name, bool value) {
  Field(name, value ? if_true_ : if_false_);
}

void StatsTextVisitor::Count(std::string_view name, uint64_t value) {
  Field(name, std::to_string(value));
}

void StatsTextVisitor::Ratio(std::string_view name, double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  Field(name, text);
}

void StatsTextVisitor::Counts(std::string_view name,
                              const std::vector<uint64_t>& values) {
  std::string text;
  for (uint64_t v : values) {
    if (!text.empty()) text += ',';
    text += std::to_string(v);
  }
  Field(name, text);
}

void Stats::ForEachField(StatsVisitor* v) const {
  v->Text("backend", backend);
  v->Flag("power_fail_durable", power_fail_durable);
  v->Text("guarantee", guarantee);
  v->Text("granularity", granularity);
  v->Count("format_version", format_version);
  v->Text("partitioning", partitioning);
  v->Text("range_units", range_units);
  v->Count("dram_directory_bits", dram_directory_bits);
  v->Count("fanout_bits", fanout_bits);
  v->Count("first_level_fanout_bits", first_level_fanout_bits);
  v->Count("preallocated_levels", preallocated_levels);
  v->Count("dram_filter_levels", dram_filter_levels);
  v->Count("log_count", log_count);
  v->Count("log_chunk_size", log_chunk_size);
  v->Count("log_chunks_per_log", log_chunks_per_log);
  v->Count("payload_log_count", payload_log_count);
  v->Count("payload_chunk_size", payload_chunk_size);
  v->Count("dram_bytes", dram_bytes);
  v->Count("pool_bytes", pool_bytes);
  v->Count("pool_used_bytes", pool_used_bytes);
  v->Count("pool_allocated_bytes", pool_allocated_bytes);
  v->Count("levels", levels);
  v->Counts("records_per_level", records_per_level);
  v->Count("unit_records_min", unit_records_min);
  v->Count("unit_records_median", unit_records_median);
  v->Count("unit_records_max", unit_records_max);
  v->Count("range_rebalances", range_rebalances);
  v->Count("range_records_copied", range_records_copied);
  v->Count("migrations", migrations);
  v->Count("log_compactions", log_compactions);
  v->Count("log_forced_migrations", log_forced_migrations);
  v->Count("dram_migrations_background", dram_migrations_background);
  v->Count("dram_migrations_inline", dram_migrations_inline);
  v->Count("log_recycles_background", log_recycles_background);
  v->Count("payload_chunks", payload_chunks);
  v->Count("payload_bytes", payload_bytes);
  v->Count("payload_gc_runs", payload_gc_runs);
  v->Count("payload_gc_moved", payload_gc_moved);
  v->Count("payload_gc_skipped", payload_gc_skipped);
  v->Count("persist_calls", persist_calls);
  v->Count("flushed_lines", flushed_lines);
  v->Count("user_bytes_written", user_bytes_written);
  v->Count("media_bytes_written", media_bytes_written);
  v->Ratio("media_write_amp", media_write_amp);
  v->Ratio("recovery_seconds", recovery_seconds);
  v->Count("recovered_log_entries", recovered_log_entries);
  for (const auto& [name, value] : more_counts) v->Count(name, value);
}

}  // namespace plush
