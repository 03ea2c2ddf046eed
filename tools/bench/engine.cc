// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "engine.h"

namespace plush::bench {

const std::vector<std::string>& EngineNames() {
  static const std::vector<std::string> names = {"plush", "rocksdb",
                                                 "rocksdb-sync", "dram"};
  return names;
}

bool IsPersistent(std::string_view name) { return name != "dram"; }

Status OpenEngine(const EngineConfig& config, const std::string& path,
                  bool create, std::unique_ptr<Engine>* engine) {
  if (config.name == "plush") {
    return OpenPlushEngine(config, path, create, engine);
  }
  if (config.name == "rocksdb" || config.name == "rocksdb-sync") {
    return OpenRocksDbEngine(config, path, create,
                             config.name == "rocksdb-sync", engine);
  }
  if (config.name == "dram") return OpenDramEngine(config, engine);
  return Status::InvalidArgument("unknown engine " + config.name);
}

}  // namespace plush::bench
