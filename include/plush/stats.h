// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Figures reported by DB::GetStats(). Counters are cumulative since Open().
//
// Tools that print or export every figure walk them with
// Stats::ForEachField(), the one list of fields (the CLI's `plush stats`,
// Python's db.stats() and plush-bench use it). Each field is also a
// property, "plush.<field name>", that DB::GetProperty() returns as text.
//
// The layout of Stats is part of the ABI and does not change: a figure
// added by a later version is a named entry of `more_counts`, which
// ForEachField and GetProperty present like the fields.

#ifndef PLUSH_STATS_H_
#define PLUSH_STATS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plush/export.h"

namespace plush {

// Receives the fields of a Stats, one typed call per field (ForEachField).
class PLUSH_EXPORT StatsVisitor {
 public:
  virtual ~StatsVisitor() = default;
  virtual void Text(std::string_view name, const std::string& value) = 0;
  virtual void Flag(std::string_view name, bool value) = 0;
  virtual void Count(std::string_view name, uint64_t value) = 0;
  virtual void Ratio(std::string_view name, double value) = 0;
  virtual void Counts(std::string_view name,
                      const std::vector<uint64_t>& values) = 0;
};

// A StatsVisitor that spells every field as text and hands it to Field():
// counts in decimal, ratios with six significant digits, lists of counts
// comma-separated, flags as the two spellings given.
class PLUSH_EXPORT StatsTextVisitor : public StatsVisitor {
 public:
  StatsTextVisitor(std::string_view if_true, std::string_view if_false)
      : if_true_(if_true), if_false_(if_false) {}

  virtual void Field(std::string_view name, const std::string& text) = 0;

  void Text(std::string_view name, const std::string& value) override;
  void Flag(std::string_view name, bool value) override;
  void Count(std::string_view name, uint64_t value) override;
  void Ratio(std::string_view name, double value) override;
  void Counts(std::string_view name,
              const std::vector<uint64_t>& values) override;

 private:
  const std::string if_true_;
  const std::string if_false_;
};

struct PLUSH_EXPORT Stats {
  // Back end in use: "pmem", "file" or "sim".
  std::string backend;
  // True only when an acknowledged write survives a power failure: on pmem,
  // and on a file on a disk opened with Options::power_fail_safe. Other
  // files survive process crashes at once and power failures only up to
  // the last successful Sync() (docs/reliability.md §4).
  bool power_fail_durable = false;
  // One-line description of the guarantee, for humans.
  std::string guarantee;
  // Store granularity of the mapping: "byte", "cache-line" or "page".
  std::string granularity;

  uint32_t format_version = 0;
  // How the pool places keys (creation parameter): "hash" or "range"
  // (range: ordered iteration).
  std::string partitioning;
  // How the units' key ranges are set: "adaptive" (range pools: a range
  // map that re-balances online); empty for hash pools.
  std::string range_units;
  // The pool's other creation parameters (see Options), as recorded in its
  // superblock: what applies, whatever Options the pool was opened with.
  uint32_t dram_directory_bits = 0;
  uint32_t fanout_bits = 0;
  uint32_t first_level_fanout_bits = 0;
  uint32_t preallocated_levels = 0;
  uint32_t dram_filter_levels = 0;
  uint32_t log_count = 0;
  uint32_t log_chunk_size = 0;
  uint32_t log_chunks_per_log = 0;
  uint32_t payload_log_count = 0;
  uint32_t payload_chunk_size = 0;

  // DRAM held by the engine (DRAM level, filters, metadata), in bytes.
  uint64_t dram_bytes = 0;
  // Size of the pool file, in bytes.
  uint64_t pool_bytes = 0;
  // Bytes of the pool handed out by its allocator (directories, buckets,
  // logs); at most pool_bytes.
  uint64_t pool_used_bytes = 0;
  // Bytes of storage the pool file takes (its allocated blocks): the
  // unwritten parts of its recovery logs take none, so a small pool is
  // small on disk whatever pool_bytes says.
  uint64_t pool_allocated_bytes = 0;

  // Number of hash-table levels, the DRAM level included.
  uint64_t levels = 0;
  // Occupied record slots per level, DRAM first. Counts every stored
  // version (older versions and tombstones not yet merged away included).
  std::vector<uint64_t> records_per_level;
  // Balance of the units: a unit is a DRAM entry with its subtree on the
  // PMem levels, the part of the table that receives a key range in a
  // range pool (or a slice of the hashes in a hash pool), and that an
  // ordered scan reads at once. Stored versions per unit, smallest,
  // median and largest (of a range map's units, those its positions
  // name). When the largest is far above the median, one unit takes most
  // records: its subtree grows deeper, its keys' lookups search more
  // levels and its scans read more records (docs/operations.md, "Range
  // partitioning").
  uint64_t unit_records_min = 0;
  uint64_t unit_records_median = 0;
  uint64_t unit_records_max = 0;
  // Range pools with units "adaptive": the moves of a key range from one
  // unit to another that re-balancing made since the pool was created (a
  // re-balance of a heavy unit is usually two: a merge of two light
  // neighbours, then the split of the heavy unit into the unit it freed).
  uint64_t range_rebalances = 0;
  // Records (versions and tombstones) those moves copied from one unit to
  // another since the pool was opened: what re-balancing wrote. Keys that
  // keep growing split their unit above its largest key, which copies
  // nothing.
  uint64_t range_records_copied = 0;

  uint64_t migrations = 0;       // directory entries migrated to a lower level
  uint64_t log_compactions = 0;  // recovery-log chunks recycled
  uint64_t log_forced_migrations = 0;  // migrations done to free a log chunk
  // DRAM entries migrated by the background threads before they filled
  // (Options::background_threads), and by writers that found their entry
  // full (the background threads had not got to it: a slow insert).
  uint64_t dram_migrations_background = 0;
  uint64_t dram_migrations_inline = 0;
  // Recovery-log chunks recycled by the background threads ahead of need.
  uint64_t log_recycles_background = 0;

  // Payload logs (records other than 8-byte keys with 8-byte values).
  uint64_t payload_chunks = 0;      // chunks holding payload entries
  uint64_t payload_bytes = 0;       // their bytes (chunk size * chunks)
  uint64_t payload_gc_runs = 0;     // chunks compacted and freed
  uint64_t payload_gc_moved = 0;    // live records moved by compaction
  uint64_t payload_gc_skipped = 0;  // chunks examined and left (too live)

  // Persistence work done by the media layer.
  uint64_t persist_calls = 0;  // fences (drains) issued
  uint64_t flushed_lines = 0;  // 64-byte lines flushed or streamed

  // User payload written through Put/Delete (key + value bytes).
  uint64_t user_bytes_written = 0;
  // Bytes the modeled PMem media wrote (256-byte XPLines leaving the
  // write-combining buffer), and its ratio to user_bytes_written.
  // Both 0 unless the benchmark tools turned the model on (plush-bench
  // --model-write-amp).
  uint64_t media_bytes_written = 0;
  double media_write_amp = 0;

  // Wall time of the recovery done by Open(), in seconds (0 for a new pool).
  double recovery_seconds = 0;
  uint64_t recovered_log_entries = 0;

  // Counts added after the fields above, by name: visited as
  // Count(name, value) after the fields, each also the property
  // "plush.<name>". This version reports:
  //   syncs  syncs of the pool made since Open (msyncs on the file back
  //          end; DB::Sync, Checkpoint and WriteOptions::sync writes
  //          share them: media.h)
  std::vector<std::pair<std::string, uint64_t>> more_counts;

  // Calls the visitor once per field above, in declaration order, with the
  // field's name ("backend", "records_per_level", ...), then once per entry
  // of more_counts.
  void ForEachField(StatsVisitor* visitor) const;
};

}  // namespace plush

#endif  // PLUSH_STATS_H_
