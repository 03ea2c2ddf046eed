// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush load POOL FILE [--format tsv|jsonl] [--batch N] [--threads N]
//                      [--unlogged]
//
// One thread reads the file and hands chunks of lines to --threads
// workers, which parse them and write every --batch records (in file order
// within a chunk) as one WriteBatch:
//  * by default logged: each batch is durable when DB::Write returns, and a
//    crash leaves whole batches only;
//  * with --unlogged: the batches skip the log and one Checkpoint() at the
//    end makes them durable; a crash before it may lose any record of the
//    load.
// Either way the count reported as loaded is of durable records only.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "command.h"
#include "command_line.h"
#include "display.h"
#include "json_records.h"
#include "line_workers.h"

namespace plush::cli {
namespace {

enum class Format { kTsv, kJsonl };

// The default --batch: as fast as any larger one (DB::Write's barrier is
// amortized long before: plush-bench --batch, tools/cli/README.md), and no
// more than a DRAM directory entry holds (at least 32 records), so that no
// batch migrates an entry after its commit, whatever its keys.
constexpr unsigned kDefaultBatch = 32;

// Records handed to a worker at a time (rounded to whole batches): enough
// to make queueing cheap, few enough to spread a small file over every
// thread.
constexpr size_t kChunkRecords = 1024;

struct LoadArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string file;
  Format format = Format::kTsv;
  unsigned batch = kDefaultBatch;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool unlogged = false;
};

// Blank lines hold no record; they are skipped.
bool IsBlank(std::string_view line) { return line.empty() || line == "\r"; }

// Parses and decodes a line that is not blank.
Status ParseLine(const LoadArgs& args, std::string_view line, std::string* key,
                 std::string* value) {
  if (line.back() == '\r') line.remove_suffix(1);
  std::string key_text;
  std::string value_text;
  Status s;
  if (args.format == Format::kJsonl) {
    s = ParseJsonRecord(line, &key_text, &value_text);
  } else if (size_t tab = line.find('\t'); tab != std::string_view::npos) {
    key_text.assign(line.substr(0, tab));
    value_text.assign(line.substr(tab + 1));
  } else {
    s = Status::InvalidArgument("expected key<TAB>value");
  }
  if (s.ok()) s = Decode(args.encoding, key_text, key).WithContext("key");
  if (s.ok()) {
    s = Decode(args.encoding, value_text, value).WithContext("value");
  }
  return s;
}

// Writes a chunk's records, lines `first_line` on, in batches of
// args.batch, and adds the records written to *written. A bad line stops
// the chunk before the batch that holds it.
Status WriteChunk(DB* db, const LoadArgs& args, uint64_t first_line,
                  const std::vector<std::string>& lines, uint64_t* written) {
  WriteOptions options;
  options.log = !args.unlogged;
  WriteBatch batch;
  uint64_t batch_first_line = 0;
  uint64_t last_line = 0;
  auto write_batch = [&] {
    Status s = db->Write(options, &batch)
                   .WithContext("lines " + std::to_string(batch_first_line) +
                                "-" + std::to_string(last_line));
    if (s.ok()) *written += batch.Count();
    batch.Clear();
    return s;
  };
  std::string key;
  std::string value;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsBlank(lines[i])) continue;
    last_line = first_line + i;
    Status s = ParseLine(args, lines[i], &key, &value);
    if (!s.ok()) return s.WithContext("line " + std::to_string(last_line));
    if (batch.Count() == 0) batch_first_line = last_line;
    batch.Put(key, value);
    if (batch.Count() == args.batch) {
      s = write_batch();
      if (!s.ok()) return s;
    }
  }
  return batch.Count() == 0 ? Status::OK() : write_batch();
}

// Feeds the lines of `in` to the workers, `chunk_records` records at a
// time, until the end or until a worker fails. Returns IOError if reading
// failed.
Status FeedLines(std::istream& in, size_t chunk_records, LineWorkers* workers,
                 std::atomic<uint64_t>* bytes_read) {
  std::vector<std::string> chunk;
  size_t records = 0;
  uint64_t first_line = 1;
  uint64_t line_number = 0;
  uint64_t bytes = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    bytes += line.size() + 1;
    bytes_read->store(bytes, std::memory_order_relaxed);
    if (!IsBlank(line)) ++records;
    chunk.push_back(std::move(line));
    if (records == chunk_records) {
      if (!workers->Add(first_line, std::move(chunk))) return Status::OK();
      chunk.clear();
      records = 0;
      first_line = line_number + 1;
    }
  }
  if (!chunk.empty()) workers->Add(first_line, std::move(chunk));
  return in.bad() ? Status::IOError("read error") : Status::OK();
}

Status Load(DB* db, const LoadArgs& args, std::istream& in,
            uint64_t total_bytes) {
  auto start = std::chrono::steady_clock::now();
  std::atomic<uint64_t> bytes_read{0};
  // Records written by each worker, also published for the progress line.
  std::vector<uint64_t> written(args.threads);
  tools::ProgressCounters progress(args.threads);
  Status s;
  {
    tools::ProgressDisplay display(
        isatty(STDERR_FILENO) != 0, "load", "records", progress,
        [&](uint64_t, double) {
          return total_bytes == 0 ? -1
                                  : static_cast<double>(bytes_read.load()) /
                                        static_cast<double>(total_bytes);
        });
    LineWorkers workers(
        args.threads, [&](unsigned worker, uint64_t first_line,
                          const std::vector<std::string>& lines) {
          Status chunk =
              WriteChunk(db, args, first_line, lines, &written[worker]);
          progress.Publish(worker, written[worker]);
          return chunk;
        });
    const size_t chunk_records =
        args.batch * std::max<size_t>(1, kChunkRecords / args.batch);
    Status read = FeedLines(in, chunk_records, &workers, &bytes_read);
    // A worker's error explains more than the read error it may have caused.
    s = workers.Finish();
    if (s.ok()) s = read;
    s = s.WithContext(args.file);
  }
  uint64_t loaded = 0;
  for (uint64_t n : written) loaded += n;
  // After an error too: the checkpoint makes unlogged batches durable (only
  // then do they count as loaded), and spares every later open replaying
  // logged ones from the recovery log into the DRAM level.
  Status checkpoint = db->Checkpoint(args.threads);
  if (!checkpoint.ok() && args.unlogged) loaded = 0;
  if (s.ok()) s = checkpoint;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::fprintf(stderr, "loaded %llu records in %.2f s\n",
               static_cast<unsigned long long>(loaded), seconds);
  return s;
}

int RunLoad(const LoadArgs& args) {
  std::ifstream file;
  std::istream* in = &std::cin;
  uint64_t total_bytes = 0;  // unknown for pipes
  if (args.file != "-") {
    file.open(args.file, std::ios::binary);
    if (!file) {
      return ExitWith(Status::IOError(args.file + ": " + std::strerror(errno)));
    }
    in = &file;
    std::error_code ignored;
    if (std::filesystem::is_regular_file(args.file, ignored)) {
      total_bytes = std::filesystem::file_size(args.file, ignored);
    }
  }
  return ExitWith(
      WithPool(ExistingPoolOptions(args.pool), args.pool.path,
               [&](DB* db) { return Load(db, args, *in, total_bytes); }));
}

}  // namespace

void AddLoadCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<LoadArgs>();
  CLI::App* cmd = app->add_subcommand(
      "load",
      "Bulk-load records from a file, in logged batches of --batch records "
      "(durable as written; a crash leaves whole batches), or --unlogged");
  AddPoolArgs(cmd, &args->pool);
  cmd->add_option("FILE", args->file, "Input file, or - for standard input")
      ->required();
  AddEncodingFlags(cmd, &args->encoding);
  tools::AddChoice<Format>(cmd, "--format",
                           "tsv: key<TAB>value lines; jsonl: {\"key\": ..., "
                           "\"value\": ...} lines (what `plush dump` prints)",
                           {{"tsv", Format::kTsv}, {"jsonl", Format::kJsonl}},
                           &args->format);
  cmd->add_option("--batch", args->batch,
                  "Records per WriteBatch (DB::Write): atomic across "
                  "crashes unless --unlogged")
      ->check(CLI::Range(1u, static_cast<unsigned>(kMaxBatchRecords)))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "Writer threads (1: batches reach the pool in file order)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cmd->add_flag("--unlogged", args->unlogged,
                "Write the batches unlogged (no log writes) and make them "
                "durable with the final checkpoint; a crash before it may "
                "lose any record of the load");
  cmd->callback([args, exit_code] { *exit_code = RunLoad(*args); });
}

}  // namespace plush::cli
