// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#ifndef PLUSH_TOOLS_SERVER_TESTS_SYNCED_POOL_H_
#define PLUSH_TOOLS_SERVER_TESTS_SYNCED_POOL_H_

#include "plush/options.h"

namespace plush::server {

// A pool that takes sync writes, as plush-server --sync-writes opens it;
// of the default sizes, so that no migration adds syncs to those counted.
inline Options SyncedPool() {
  Options o;
  o.power_fail_safe = true;
  return o;
}

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_TESTS_SYNCED_POOL_H_
