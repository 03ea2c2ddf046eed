// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Opening DBs on the crash simulator (media/sim_media.h), for the tests and
// the fuzzer. Free of gtest: the fuzzer links it too.

#ifndef PLUSH_TESTS_SIM_POOL_H_
#define PLUSH_TESTS_SIM_POOL_H_

#include <memory>
#include <string>

#include "db/open_db.h"

namespace plush::test {

// The internal options that put a pool on the crash simulator.
inline InternalOptions Simulated() {
  InternalOptions o;
  o.simulated = true;
  return o;
}

// Opens (or creates) the simulated device `device`.
inline Status OpenSim(const Options& options, const std::string& device,
                      std::unique_ptr<DB>* db) {
  return OpenDB(options, Simulated(), device, db);
}

}  // namespace plush::test

#endif  // PLUSH_TESTS_SIM_POOL_H_
