// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DB::Open with the engine's internal options (media/internal_options.h):
// for tests (the crash simulator) and the benchmark tools (PMem cost
// emulation, the write-amplification model). Not installed, and not
// exported from libplush.so: only libplush.a has it.

#ifndef PLUSH_DB_OPEN_DB_H_
#define PLUSH_DB_OPEN_DB_H_

#include <memory>
#include <string>

#include "media/internal_options.h"
#include "plush/db.h"

namespace plush {

// As DB::Open(options, path, db), with `internal` in effect.
Status OpenDB(const Options& options, const InternalOptions& internal,
              const std::string& path, std::unique_ptr<DB>* db);

}  // namespace plush

#endif  // PLUSH_DB_OPEN_DB_H_
