// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Opening DBs and pools on the crash simulator (testing/sim_media.h), for
// the tests and the fuzzer. Free of gtest: the fuzzer links it too.

#ifndef PLUSH_TESTS_SIM_POOL_H_
#define PLUSH_TESTS_SIM_POOL_H_

#include <memory>
#include <string>

#include "testing/open_db.h"
#include "testing/sim_media_factory.h"

namespace plush::test {

// The internal options that put a pool on the crash simulator.
inline InternalOptions Simulated() {
  InternalOptions o;
  o.simulated = true;
  return o;
}

// The factory of simulated devices, for tests that open a pool::Pool.
inline media::MediaFactory& SimDevices() {
  static media::SimMediaFactory factory;
  return factory;
}

// Opens (or creates) the simulated device `device`.
inline Status OpenSim(const Options& options, const std::string& device,
                      std::unique_ptr<DB>* db) {
  return OpenDB(options, Simulated(), device, db);
}

}  // namespace plush::test

#endif  // PLUSH_TESTS_SIM_POOL_H_
