// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush scan POOL [--start KEY] [--end KEY] [--limit N]   key<TAB>value lines
// plush dump POOL                 JSON lines of any bytes (and expiry times),
//                                 for `plush load`
//
// Both walk every record of the pool: in key order on a range-partitioned
// pool, partition by partition on a hash-partitioned one (which cannot
// start at a key: --start is NotSupported there). A dump is framed by a
// first and a last line (json_records.h): the last one only once every
// record was written out.

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

// Prints the iterator's current record; an error stops the walk.
using RecordPrinter = std::function<Status(Encoding, const Iterator&)>;

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
    Status s = print(encoding, *it);
    if (!s.ok()) return s;
    it->Next();
  }
  // NotSupported for a --start or --end on a hash pool; the engine says
  // why.
  return it->status();
}

// A reader of the output that went away, or a full disk, is an error: the
// output is not all there.
Status CheckOutput() {
  std::cout.flush();
  return std::cout ? Status::OK()
                   : Status::IOError("cannot write to standard output");
}

// `before` and `after` print a frame around the records (null: none).
int RunScan(const ScanArgs& args, const RecordPrinter& print,
            const std::function<void()>& before = nullptr,
            const std::function<void(uint64_t records)>& after = nullptr) {
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
  // Before the pool is opened: a reader of a dump that got its first line
  // but not its last knows it failed, even if it failed to open the pool.
  if (s.ok() && before) before();
  if (s.ok()) {
    s = WithPool(ExistingPoolOptions(args.pool), args.pool.path, [&](DB* db) {
      uint64_t records = 0;
      Status printed = PrintRecords(
          db, has_start ? &start : nullptr, has_end ? &end : nullptr,
          args.limit, args.encoding,
          [&](Encoding encoding, const Iterator& record) {
            ++records;
            return print(encoding, record);
          });
      if (printed.ok() && after) after(records);
      return printed.ok() ? CheckOutput() : printed;
    });
  }
  return ExitWith(s);
}

Status PrintTsv(Encoding encoding, const Iterator& record) {
  std::cout << Encode(encoding, record.key()) << '\t'
            << Encode(encoding, record.value()) << '\n';
  return Status::OK();
}

Status PrintJson(Encoding encoding, const Iterator& record) {
  std::cout << FormatJsonRecord(encoding, record.key(), record.value(),
                                record.expires_at_ms())
            << '\n';
  return Status::OK();
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
      "(in key order on range pools; bytes that are not UTF-8 text as "
      "\"key_base64\" / \"value_base64\"; a record that expires also has "
      "\"expires_at_ms\", in Unix milliseconds), between a first and a last "
      "line that frame the dump; `plush load` reads it back");
  AddPoolArgs(cmd, &args->pool);
  AddEncodingFlags(cmd, &args->encoding);
  cmd->callback([args, exit_code] {
    *exit_code = RunScan(
        *args, PrintJson,
        [&] { std::cout << FormatDumpHeader(args->encoding) << '\n'; },
        [](uint64_t records) { std::cout << FormatDumpEnd(records) << '\n'; });
  });
}

}  // namespace plush::cli
