// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// DB::Open with the engine's internal options (testing/internal_options.h):
// for tests (the crash simulator, the broken recovery of the crash tests'
// controls) and the benchmark tools (PMem cost emulation, the
// write-amplification model). Part of the testing library, not of
// libplush: neither libplush.a nor libplush.so has it.

#ifndef PLUSH_TESTING_OPEN_DB_H_
#define PLUSH_TESTING_OPEN_DB_H_

#include <memory>
#include <string>

#include "plush/db.h"
#include "testing/internal_options.h"

namespace plush {

// As DB::Open(options, path, db), with `internal` in effect.
Status OpenDB(const Options& options, const InternalOptions& internal,
              const std::string& path, std::unique_ptr<DB>* db);

}  // namespace plush

#endif  // PLUSH_TESTING_OPEN_DB_H_
