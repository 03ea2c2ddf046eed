// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush load POOL FILE [--format tsv|jsonl] [--threads N]
//
// Bulk load: unlogged writes (WriteOptions::log = false) from several
// threads, then one Checkpoint() that makes them all durable. Much faster
// than logged puts; a crash during the load loses what it had written.

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

// Lines handed to a worker at a time: large enough to make queueing cheap,
// small enough to spread a small file over every thread.
constexpr size_t kChunkLines = 1024;

struct LoadArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string file;
  Format format = Format::kTsv;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

// Splits a line into its (still encoded) key and value.
Status SplitLine(Format format, std::string_view line, std::string* key,
                 std::string* value) {
  if (format == Format::kJsonl) return ParseJsonRecord(line, key, value);
  size_t tab = line.find('\t');
  if (tab == std::string_view::npos) {
    return Status::InvalidArgument("expected key<TAB>value");
  }
  key->assign(line.substr(0, tab));
  value->assign(line.substr(tab + 1));
  return Status::OK();
}

// Parses, decodes and writes one line; blank lines are skipped.
Status LoadLine(DB* db, const LoadArgs& args, std::string_view line,
                uint64_t* records) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return Status::OK();
  std::string key_text;
  std::string value_text;
  std::string key;
  std::string value;
  Status s = SplitLine(args.format, line, &key_text, &value_text);
  if (s.ok()) s = Decode(args.encoding, key_text, &key).WithContext("key");
  if (s.ok()) {
    s = Decode(args.encoding, value_text, &value).WithContext("value");
  }
  WriteOptions unlogged;
  unlogged.log = false;
  if (s.ok()) s = db->Put(unlogged, key, value);
  if (s.ok()) ++*records;
  return s;
}

// Feeds the lines of `in` to the workers until the end or until a worker
// fails. Returns IOError if reading failed.
Status FeedLines(std::istream& in, LineWorkers* workers,
                 std::atomic<uint64_t>* bytes_read) {
  std::vector<std::string> chunk;
  uint64_t first_line = 1;
  uint64_t line_number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    bytes_read->fetch_add(line.size() + 1, std::memory_order_relaxed);
    chunk.push_back(std::move(line));
    if (chunk.size() == kChunkLines) {
      if (!workers->Add(first_line, std::move(chunk))) return Status::OK();
      chunk.clear();
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
  // Per worker: records written, and published for the progress line.
  std::vector<uint64_t> loaded(args.threads);
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
          for (size_t i = 0; i < lines.size(); ++i) {
            Status line = LoadLine(db, args, lines[i], &loaded[worker]);
            if (!line.ok()) {
              return line.WithContext("line " + std::to_string(first_line + i));
            }
          }
          progress.Publish(worker, loaded[worker]);
          return Status::OK();
        });
    Status read = FeedLines(in, &workers, &bytes_read);
    // A worker's error explains more than the read error it may have caused.
    s = workers.Finish();
    if (s.ok()) s = read;
    s = s.WithContext(args.file);
    // Checkpoint after an error too: every record counted below is durable.
    Status checkpoint = db->Checkpoint(args.threads);
    if (s.ok()) s = checkpoint;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  uint64_t records = 0;
  for (uint64_t n : loaded) records += n;
  std::fprintf(stderr, "loaded %llu records in %.2f s\n",
               static_cast<unsigned long long>(records), seconds);
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
      "Bulk-load records from a file (unlogged writes from several threads, "
      "then one checkpoint)");
  AddPoolArgs(cmd, &args->pool);
  cmd->add_option("FILE", args->file, "Input file, or - for standard input")
      ->required();
  AddEncodingFlags(cmd, &args->encoding);
  tools::AddChoice<Format>(cmd, "--format",
                           "tsv: key<TAB>value lines; jsonl: {\"key\": ..., "
                           "\"value\": ...} lines (what `plush dump` prints)",
                           {{"tsv", Format::kTsv}, {"jsonl", Format::kJsonl}},
                           &args->format);
  cmd->add_option("--threads", args->threads, "Writer threads")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cmd->callback([args, exit_code] { *exit_code = RunLoad(*args); });
}

}  // namespace plush::cli
