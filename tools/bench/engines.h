// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The openers of the individual engines, for the factory in engine.cc. Same
// contract as OpenEngine().

#ifndef PLUSH_TOOLS_BENCH_ENGINES_H_
#define PLUSH_TOOLS_BENCH_ENGINES_H_

#include <memory>
#include <string>

#include "engine.h"

namespace plush::bench {

Status OpenPlushEngine(const EngineConfig& config, const std::string& path,
                       bool create, std::unique_ptr<Engine>* engine);
// `sync`: every write waits for the WAL to be fsynced.
Status OpenRocksDbEngine(const EngineConfig& config, const std::string& path,
                         bool create, bool sync,
                         std::unique_ptr<Engine>* engine);
Status OpenDramEngine(const EngineConfig& config,
                      std::unique_ptr<Engine>* engine);

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_ENGINES_H_
