// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush load POOL FILE [--format auto|tsv|jsonl] [--batch N] [--threads N]
//                      [--unlogged]
//
// One thread reads the file; --threads workers parse its lines and write
// them, each the records of its own keys (keyed_workers.h), every --batch
// of them as one WriteBatch:
//  * by default logged: each batch is durable when DB::Write returns, and a
//  crash leaves whole batches only;
//  * with --unlogged: the batches skip the log and one Checkpoint() at the
//    end makes them durable; a crash before it may lose any record of the
//    load.
// Either way the pool ends as writing the lines one by one in file order
// would (the last line of a key wins), the count reported as loaded is of
// durable records only, and a load that could not write every record of
// its input (a bad line, a dump cut short, a full pool) exits non-zero.
// JSON lines keep their "expires_at_ms" (json_records.h), so that `plush
// dump | plush load` keeps every record's expiry.

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
#include "keyed_workers.h"

namespace plush::cli {
namespace {

// kAuto: JSON lines if the first line that holds something is a JSON
// object, else key<TAB>value lines.
enum class Format { kAuto, kTsv, kJsonl };

// The default --batch: as fast as any larger one (DB::Write's barrier is
// amortized long before: plush-bench --batch, tools/cli/README.md), and no
// more than a DRAM directory entry holds (at least 32 records), so that no
// batch migrates an entry after its commit, whatever its keys.
constexpr unsigned kDefaultBatch = 32;

// Records handed to the workers at a time (rounded to whole batches):
// enough to make queueing cheap, few enough to spread a small file over
// every thread.
constexpr size_t kChunkRecords = 1024;

struct LoadArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string file;
  Format format = Format::kAuto;
  unsigned batch = kDefaultBatch;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool unlogged = false;
};

// What the input is, as its first line that holds something tells.
struct Input {
  Format format = Format::kTsv;
  Encoding encoding = Encoding::kText;
  bool dump = false;  // framed by `plush dump`'s first and last lines
};

// Blank lines hold no record; they are skipped.
bool IsBlank(std::string_view line) { return line.empty() || line == "\r"; }

std::string_view WithoutCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Tells the input's format and encoding from its first line that holds
// something (`first`); sets *header if that line is a dump's first line,
// which holds no record.
Status Detect(const LoadArgs& args, std::string_view first, Input* input,
              bool* header) {
  *header = false;
  input->encoding = args.encoding;
  input->format = args.format;
  if (input->format == Format::kAuto) {
    input->format = IsJsonObject(first) ? Format::kJsonl : Format::kTsv;
  }
  if (input->format != Format::kJsonl) return Status::OK();
  Encoding dumped = Encoding::kText;
  Status s = ParseDumpHeader(first, header, &dumped);
  if (!s.ok() || !*header) return s;
  input->dump = true;
  // The dump says how it is encoded; a different --hex or --base64 is a
  // mistake to report, not to apply.
  if (args.encoding != Encoding::kText && args.encoding != dumped) {
    return Status::InvalidArgument(
        "the dump is " + std::string(EncodingName(dumped)) +
        "-encoded (its first line says so): load it without --" +
        std::string(EncodingName(args.encoding)));
  }
  input->encoding = dumped;
  return Status::OK();
}

// Parses and decodes a line that is not blank. Only JSON lines carry an
// expiry; key<TAB>value lines have no column for one.
Status ParseLine(const Input& input, std::string_view line,
                 ParsedRecord* record) {
  line = WithoutCr(line);
  if (input.format == Format::kJsonl) {
    return ParseJsonRecord(line, input.encoding, &record->key, &record->value,
                           &record->expires_at_ms);
  }
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos) {
    return Status::InvalidArgument("expected key<TAB>value");
  }
  Status s = Decode(input.encoding, line.substr(0, tab), &record->key)
                 .WithContext("key");
  if (s.ok()) {
    s = Decode(input.encoding, line.substr(tab + 1), &record->value)
            .WithContext("value");
  }
  return s;
}

// One worker's records, written in batches of args.batch.
class BatchWriter {
 public:
  BatchWriter(DB* db, const LoadArgs& args) : db_(db), batch_size_(args.batch) {
    options_.log = !args.unlogged;
  }

  Status Add(const std::vector<ParsedRecord>& records, bool end) {
    for (const ParsedRecord& r : records) {
      if (batch_.Count() == 0) first_line_ = r.line;
      last_line_ = r.line;
      // An expiry already past loads a record that is absent at once (and
      // hides what the key held), as the engine writes such a time.
      batch_.PutWithExpiry(r.key, r.value, r.expires_at_ms);
      if (batch_.Count() == batch_size_) {
        Status s = Flush();
        if (!s.ok()) return s;
      }
    }
    return end ? Flush() : Status::OK();
  }

  uint64_t written() const { return written_; }

 private:
  Status Flush() {
    if (batch_.Count() == 0) return Status::OK();
    Status s = db_->Write(options_, &batch_);
    if (!s.ok()) {
      return s.WithContext(first_line_ == last_line_
                               ? "line " + std::to_string(first_line_)
                               : "a batch of lines " +
                                     std::to_string(first_line_) + "-" +
                                     std::to_string(last_line_));
    }
    written_ += batch_.Count();
    batch_.Clear();
    return s;
  }

  DB* const db_;
  const unsigned batch_size_;
  WriteOptions options_;
  WriteBatch batch_;
  uint64_t first_line_ = 0;
  uint64_t last_line_ = 0;
  uint64_t written_ = 0;
};

// Whether the DRAM level holds a quarter of what it can: enough records
// that replaying them at every open is worth a checkpoint. A checkpoint of
// a DRAM level that holds a few records in each entry would spare little
// and move them to a PMem level whose directory then takes storage for
// every entry (2^(d+a) entries of 512 bytes: 128 MiB at the default
// options) — a small load stays small.
bool DramLevelIsFilling(DB* db) {
  Stats stats;
  if (!db->GetStats(&stats).ok()) return true;
  const uint64_t capacity = (uint64_t{1} << stats.dram_directory_bits)
                            << (4 + stats.fanout_bits);
  return !stats.records_per_level.empty() &&
         stats.records_per_level[0] * 4 >= capacity;
}

// Reads the input's lines, counting them and the bytes read.
class LineReader {
 public:
  LineReader(std::istream& in, std::atomic<uint64_t>* bytes_read)
      : in_(in), bytes_read_(*bytes_read) {}

  bool Next(std::string* line) {
    if (!std::getline(in_, *line)) return false;
    ++number_;
    bytes_ += line->size() + 1;
    bytes_read_.store(bytes_, std::memory_order_relaxed);
    return true;
  }
  uint64_t number() const { return number_; }
  Status status() const {
    return in_.bad() ? Status::IOError("read error") : Status::OK();
  }

 private:
  std::istream& in_;
  std::atomic<uint64_t>& bytes_read_;
  uint64_t number_ = 0;
  uint64_t bytes_ = 0;
};

// Feeds the records of a dump's or plain file's lines to the workers,
// `chunk_records` records at a time, until the end, a worker's error or a
// flaw of the input (which it returns). `first` is the first line that
// holds something (a dump's first line is no record).
Status Feed(LineReader* reader, const Input& input, std::string first,
            bool header, size_t chunk_records, KeyedWorkers* workers) {
  std::vector<std::string> chunk;
  uint64_t chunk_first_line = reader->number();
  if (header) ++chunk_first_line;
  else chunk.push_back(std::move(first));
  size_t chunk_size = chunk.size();
  uint64_t records = chunk.size();
  bool ended = false;  // the dump's last line was read
  std::string line;
  while (reader->Next(&line)) {
    if (IsBlank(line)) {
      chunk.push_back(std::move(line));
      continue;
    }
    const std::string at = "line " + std::to_string(reader->number());
    if (ended) {
      if (!chunk.empty()) workers->Add(chunk_first_line, std::move(chunk));
      return Status::InvalidArgument("a line after the last line of the dump")
          .WithContext(at);
    }
    // A dump's last line is written as it starts here (json_records.h).
    if (input.dump && line.starts_with("{\"plush_dump_end\"")) {
      uint64_t dumped = 0;
      Status s = ParseDumpEnd(WithoutCr(line), &ended, &dumped);
      if (s.ok() && dumped != records) {
        s = Status::InvalidArgument(
            "the dump's last line counts " + std::to_string(dumped) +
            " records, but " + std::to_string(records) + " came before it");
      }
      if (!s.ok()) {
        if (!chunk.empty()) workers->Add(chunk_first_line, std::move(chunk));
        return s.WithContext(at);
      }
      if (ended) {
        chunk.emplace_back();  // keeps the line numbers of the chunk
        continue;
      }
    }
    ++records;
    ++chunk_size;
    chunk.push_back(std::move(line));
    if (chunk_size == chunk_records) {
      if (!workers->Add(chunk_first_line, std::move(chunk))) return Status::OK();
      chunk.clear();
      chunk_size = 0;
      chunk_first_line = reader->number() + 1;
    }
  }
  if (!chunk.empty()) workers->Add(chunk_first_line, std::move(chunk));
  Status s = reader->status();
  if (s.ok() && input.dump && !ended) {
    s = Status::InvalidArgument(
        "the input ends before the last line of the dump: the dump was cut "
        "short (did `plush dump` fail?)");
  }
  return s;
}

Status Load(DB* db, const LoadArgs& args, std::istream& in,
            uint64_t total_bytes) {
  auto start = std::chrono::steady_clock::now();
  std::atomic<uint64_t> bytes_read{0};
  std::vector<BatchWriter> writers(args.threads, BatchWriter(db, args));
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
    LineReader reader(in, &bytes_read);
    std::string first;
    while (reader.Next(&first) && IsBlank(first)) {
    }
    Input input;
    bool header = false;
    if (!IsBlank(first)) {
      s = Detect(args, WithoutCr(first), &input, &header)
              .WithContext("line " + std::to_string(reader.number()));
    }
    if (s.ok() && !IsBlank(first)) {
      KeyedWorkers workers(
          args.threads,
          [&](std::string_view line, ParsedRecord* record) {
            return ParseLine(input, line, record);
          },
          [&](unsigned worker, const std::vector<ParsedRecord>& records,
              bool end) {
            Status added = writers[worker].Add(records, end);
            progress.Publish(worker, writers[worker].written());
            return added;
          });
      const size_t chunk_records =
          args.batch * std::max<size_t>(1, kChunkRecords / args.batch);
      Status read = Feed(&reader, input, std::move(first), header,
                         chunk_records, &workers);
      // A worker's error explains more than the read error it may have
      // caused.
      s = workers.Finish();
      if (s.ok()) s = read;
    } else if (s.ok()) {
      s = reader.status();
    }
    s = s.WithContext(args.file);
  }
  uint64_t loaded = 0;
  for (const BatchWriter& w : writers) loaded += w.written();
  // After an error too: the checkpoint makes unlogged batches durable (only
  // then do they count as loaded), and spares every later open replaying
  // logged ones from the recovery log into the DRAM level.
  Status checkpoint = args.unlogged || DramLevelIsFilling(db)
                          ? db->Checkpoint(args.threads)
                          : Status::OK();
  if (!checkpoint.ok() && args.unlogged) loaded = 0;
  if (s.ok()) s = checkpoint;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::fprintf(stderr, "loaded %llu records in %.2f s%s\n",
               static_cast<unsigned long long>(loaded), seconds,
               s.ok() ? "" : "; the load stopped early");
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
  tools::AddChoice<Format>(
      cmd, "--format",
      "tsv: key<TAB>value lines; jsonl: {\"key\": ..., \"value\": ...} "
      "lines (what `plush dump` prints); auto: jsonl if the first line is a "
      "JSON object, else tsv",
      {{"auto", Format::kAuto}, {"tsv", Format::kTsv}, {"jsonl", Format::kJsonl}},
      &args->format);
  cmd->add_option("--batch", args->batch,
                  "Records per WriteBatch (DB::Write): atomic across "
                  "crashes unless --unlogged")
      ->check(CLI::Range(1u, static_cast<unsigned>(kMaxBatchRecords)))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "Threads that parse and write (each writes the records of "
                  "its own keys, in file order)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cmd->add_flag("--unlogged", args->unlogged,
                "Write the batches unlogged (no log writes) and make them "
                "durable with the final checkpoint; a crash before it may "
                "lose any record of the load");
  cmd->callback([args, exit_code] { *exit_code = RunLoad(*args); });
}

}  // namespace plush::cli
