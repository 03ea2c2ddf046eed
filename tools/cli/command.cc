// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "command.h"

#include <iostream>

namespace plush::cli {

int ExitWith(const Status& status) {
  if (status.ok()) return 0;
  std::cerr << "plush: " << status.ToString() << '\n';
  return static_cast<int>(status.code());
}

void AddPoolArgs(CLI::App* cmd, PoolArgs* args) {
  cmd->add_option("POOL", args->path, "Path of the pool file")->required();
  tools::AddBackendOption(cmd, &args->backend);
}

void AddEncodingFlags(CLI::App* cmd, Encoding* encoding) {
  CLI::Option* hex = cmd->add_flag_callback(
      "--hex", [encoding] { *encoding = Encoding::kHex; },
      "Keys and values are hex, in input and output");
  CLI::Option* base64 = cmd->add_flag_callback(
      "--base64", [encoding] { *encoding = Encoding::kBase64; },
      "Keys and values are base64, in input and output");
  hex->excludes(base64);
}

Status WithPool(const Options& options, const std::string& path,
                const std::function<Status(DB*)>& body) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(options, path, &db);
  if (!s.ok()) return s;  // the engine's messages name the pool
  s = body(db.get());
  // Close() also reports a failed final sync, which must not go unnoticed.
  Status closed = db->Close();
  return s.ok() ? closed : s;
}

}  // namespace plush::cli
