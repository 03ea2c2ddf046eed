// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush scan POOL [--start KEY] [--end KEY] [--limit N]   key<TAB>value lines
// plush dump POOL                             JSON lines, for `plush load`
//
// Both walk every record of the pool: in key order on a range-partitioned
// pool, partition by partition on a hash-partitioned one (which cannot
// start at a key: --start is NotSupported there).

#include <iostream>
#include <limits>

#include "command.h"
#include "command_line.h"
#include "json_records.h"

namespace plush::cli {
namespace {

struct ScanArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string start;
  CLI::Option* start_option = nullptr;  // scan only
  std::string end;
  CLI::Option* end_option = nullptr;  // scan only
  uint64_t limit = std::numeric_limits<uint64_t>::max();
};

// Prints one record; an error stops the walk.
using RecordPrinter =
    std::function<Status(Encoding, std::string_view, std::string_view)>;

// Walks the records from `start` (the first one if null) up to `end`
// (exclusive; the last one if null) and prints at most `limit` of them.
Status PrintRecords(DB* db, const std::string* start, const std::string* end,
                    uint64_t limit, Encoding encoding,
                    const RecordPrinter& print) {
  ReadOptions options;
  if (end != nullptr) options.iterate_upper_bound = *end;
  std::unique_ptr<Iterator> it = db->NewIterator(options);
  if (start != nullptr) {
    it->Seek(*start);
  } else {
    it->SeekToFirst();
  }
  for (uint64_t n = 0; n < limit && it->Valid(); ++n) {
    Status s = print(encoding, it->key(), it->value());
    if (!s.ok()) return s;
    it->Next();
  }
  // NotSupported for a --start or --end on a hash pool; the engine says
  // why.
  return it->status();
}

int RunScan(const ScanArgs& args, const RecordPrinter& print) {
  std::string start;
  std::string end;
  const bool has_start =
      args.start_option != nullptr && args.start_option->count() > 0;
  const bool has_end =
      args.end_option != nullptr && args.end_option->count() > 0;
  Status s;
  if (has_start) {
    s = Decode(args.encoding, args.start, &start).WithContext("--start");
  }
  if (s.ok() && has_end) {
    s = Decode(args.encoding, args.end, &end).WithContext("--end");
  }
  if (s.ok()) {
    s = WithPool(ExistingPoolOptions(args.pool), args.pool.path, [&](DB* db) {
      return PrintRecords(db, has_start ? &start : nullptr,
                          has_end ? &end : nullptr, args.limit, args.encoding,
                          print);
    });
  }
  return ExitWith(s);
}

Status PrintTsv(Encoding encoding, std::string_view key,
                std::string_view value) {
  std::cout << Encode(encoding, key) << '\t' << Encode(encoding, value) << '\n';
  return Status::OK();
}

Status PrintJson(Encoding encoding, std::string_view key,
                 std::string_view value) {
  std::string line;
  Status s =
      FormatJsonRecord(Encode(encoding, key), Encode(encoding, value), &line);
  if (s.ok()) std::cout << line << '\n';
  return s;
}

}  // namespace

void AddScanCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = app->add_subcommand(
      "scan",
      "Print key<TAB>value lines (in key order on range pools; --start "
      "and --end need one)");
  AddPoolArgs(cmd, &args->pool);
  AddEncodingFlags(cmd, &args->encoding);
  args->start_option =
      cmd->add_option("--start", args->start, "Begin at the first key >= this");
  args->end_option = cmd->add_option(
      "--end", args->end, "Stop before the first key >= this (exclusive)");
  cmd->add_option("--limit", args->limit, "Print at most this many records")
      ->check(tools::NotNegative());
  cmd->callback([args, exit_code] { *exit_code = RunScan(*args, PrintTsv); });
}

void AddDumpCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = app->add_subcommand(
      "dump",
      "Print every record as a JSON line {\"key\": ..., \"value\": ...} "
      "(in key order on range pools); `plush load --format jsonl` reads it "
      "back");
  AddPoolArgs(cmd, &args->pool);
  AddEncodingFlags(cmd, &args->encoding);
  cmd->callback([args, exit_code] { *exit_code = RunScan(*args, PrintJson); });
}

}  // namespace plush::cli
