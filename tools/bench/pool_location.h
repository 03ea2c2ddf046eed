// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Where an engine keeps its data during a run: the path the user gave, or a
// fresh private directory in /dev/shm (RAM, like the PMem the engines are
// compared on; else $TMPDIR, else /tmp) that disappears with the run.

#ifndef PLUSH_TOOLS_BENCH_POOL_LOCATION_H_
#define PLUSH_TOOLS_BENCH_POOL_LOCATION_H_

#include <memory>
#include <string>
#include <string_view>

#include "plush/status.h"

namespace plush::bench {

class PoolLocation {
 public:
  // With a non-empty `requested` path, uses it as is and never removes it.
  // Otherwise creates a temporary directory and returns a path `leaf` inside
  // it; the directory is removed on destruction unless `keep`.
  static Status Create(const std::string& requested, std::string_view leaf,
                       bool keep, std::unique_ptr<PoolLocation>* location);

  PoolLocation(const PoolLocation&) = delete;
  PoolLocation& operator=(const PoolLocation&) = delete;
  ~PoolLocation();

  const std::string& path() const { return path_; }

 private:
  PoolLocation(std::string path, std::string temp_dir)
      : path_(std::move(path)), temp_dir_(std::move(temp_dir)) {}

  std::string path_;
  std::string temp_dir_;  // empty unless we own (and must remove) it
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_POOL_LOCATION_H_
