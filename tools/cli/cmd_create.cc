// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush create POOL [--size BYTES] [--range [--sample FILE [--hex|--base64]]]
//                   [--small] [--payload-log-count N]
//                   [--payload-chunk-size BYTES]

#include <fstream>
#include <iostream>

#include "codec.h"
#include "command.h"
#include "key_sample.h"
#include "display.h"
#include "stats_report.h"

namespace plush::cli {
namespace {

struct CreateArgs {
  PoolArgs pool;
  uint64_t size = 0;
  CLI::Option* size_option = nullptr;  // set iff --size was declared
  bool range = false;
  std::string sample_file;  // empty: no sample
  Encoding encoding = Encoding::kText;
  bool small = false;
  // Set iff given; else the profile's values apply.
  CLI::Option* payload_log_count_option = nullptr;
  uint32_t payload_log_count = 0;
  CLI::Option* payload_chunk_size_option = nullptr;
  uint32_t payload_chunk_size = 0;
};

// The keys of a sample file: one per line, or the key of a `plush load`
// line (before the first TAB), spelled per `encoding`; blank lines are
// skipped. A large file is sampled (key_sample.h).
Status ReadSample(const std::string& path, Encoding encoding,
                  uint32_t dram_bits, std::vector<std::string>* sample) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot open sample file '" + path + "'");
  KeySample keys(dram_bits);
  std::string line;
  std::string key;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    Status s = Decode(encoding, std::string_view(line).substr(0, line.find('\t')),
                      &key);
    if (!s.ok()) {
      return s.WithContext("sample file '" + path + "', line " +
                           std::to_string(number));
    }
    keys.Add(key);
  }
  if (in.bad()) return Status::IOError("reading sample file '" + path + "'");
  if (keys.seen() == 0) {
    return Status::InvalidArgument("sample file '" + path +
                                   "' holds no keys");
  }
  *sample = keys.Take();
  return Status::OK();
}

int RunCreate(const CreateArgs& args) {
  Options options = args.small ? Options::SmallProfile() : Options();
  options.error_if_exists = true;
  options.backend = args.pool.backend;
  if (args.size_option->count() > 0) options.initial_pool_size = args.size;
  if (args.range) options.partitioning = Partitioning::kRange;
  if (!args.sample_file.empty()) {
    Status s = ReadSample(args.sample_file, args.encoding,
                          options.dram_directory_bits,
                          &options.range_key_sample);
    if (!s.ok()) return ExitWith(s);
  }
  // Out of range values are the engine's to refuse: its message gives the
  // valid range.
  if (args.payload_log_count_option->count() > 0) {
    options.payload_log_count = args.payload_log_count;
  }
  if (args.payload_chunk_size_option->count() > 0) {
    options.payload_chunk_size = args.payload_chunk_size;
  }
  // The engine raises a smaller initial size to the minimum without a
  // word (a lower bound for a program); a size asked for here must be met.
  if (args.size_option->count() > 0 &&
      args.size < options.MinimumPoolSize()) {
    return ExitWith(Status::InvalidArgument(
        "--size " + tools::HumanBytes(args.size) + " is below the " +
        tools::HumanBytes(options.MinimumPoolSize()) +
        " that a pool with these parameters needs (recovery logs and "
        "headers); give at least that, or --small for a tiny pool"));
  }
  return ExitWith(WithPool(options, args.pool.path, [&](DB* db) {
    Stats stats;
    Status s = db->GetStats(&stats);
    if (s.ok()) {
      std::cout << "created " << args.pool.path << ": "
                << (args.range ? "range" : "hash") << "-partitioned"
                << (options.range_key_sample.empty()
                        ? ""
                        : " at the quantiles of " +
                              std::to_string(
                                  options.range_key_sample.size()) +
                              " sampled keys")
                << ", "
                << stats.backend << " back end, "
                << tools::HumanBytes(stats.pool_bytes) << '\n';
    }
    return s;
  }));
}

}  // namespace

void AddCreateCommand(CLI::App* app, int* exit_code) {
  auto args = std::make_shared<CreateArgs>();
  CLI::App* cmd = app->add_subcommand("create", "Create a new, empty pool");
  AddPoolArgs(cmd, &args->pool);
  args->size_option =
      cmd->add_option("--size", args->size,
                      "Initial size of the pool file, e.g. 64MiB (it grows "
                      "on demand)")
          ->transform(CLI::AsSizeValue(/*kb_is_1000=*/false));
  CLI::Option* range = cmd->add_flag(
      "--range", args->range, "Range-partition keys: enables scan and dump");
  cmd->add_option("--sample", args->sample_file,
                  "With --range: a file of keys like the pool's, one per "
                  "line (or a plush load input: the key before the TAB); "
                  "the pool splits the key space at their quantiles")
      ->needs(range);
  AddEncodingFlags(cmd, &args->encoding);
  cmd->add_flag("--small", args->small,
                "Small profile: tiny DRAM level and logs, for tests and "
                "small machines");
  args->payload_log_count_option = cmd->add_option(
      "--payload-log-count", args->payload_log_count,
      "Payload logs, for records other than 8-byte keys with 8-byte values "
      "(default 4, --small 2; 0: such records are NotSupported)");
  args->payload_chunk_size_option =
      cmd->add_option("--payload-chunk-size", args->payload_chunk_size,
                      "Unit in which payload logs take space, e.g. 256KiB "
                      "(default 1MiB, --small 128KiB)")
          ->transform(CLI::AsSizeValue(/*kb_is_1000=*/false));
  cmd->callback([args, exit_code] { *exit_code = RunCreate(*args); });
}

}  // namespace plush::cli
