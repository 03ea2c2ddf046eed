// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Options of the engine that are not part of the public API (options.h):
// the crash simulator, the broken recovery, the file-system faults and the
// forced hash collisions that tests use, and the instrumentation that
// benchmarks use. Code inside the project passes them to OpenDB()
// (testing/open_db.h). They belong to the testing library (src/testing/),
// which libplush does not contain; not installed.

#ifndef PLUSH_TESTING_INTERNAL_OPTIONS_H_
#define PLUSH_TESTING_INTERNAL_OPTIONS_H_

#include <memory>

#include "media/file_ops.h"
#include "placement/key_hash.h"

namespace plush {

struct InternalOptions {
  // The sim back end (testing/sim_media.h): the pool is a simulated device
  // in this process's memory, named by the path; crashes are simulated.
  bool simulated = false;
  // With `simulated`: the device models a plain file on a disk instead of
  // PMem (SimMedia's file model), so that crash tests can prove the file
  // back end's power-fail guarantee (Options::power_fail_safe).
  bool simulate_file = false;
  // File back end: issue the cache-line flushes and fences that the pmem
  // back end would, so that benchmarks compare fairly with PMem data
  // structures run on DRAM (testing/pmem_cost_emulation.h). Costs speed;
  // changes no guarantee.
  bool emulate_pmem_costs = false;
  // Feed every flushed line into the model of PMem's write-combining
  // buffer (testing/write_amp_probe.h) and report Stats::media_write_amp.
  bool model_media_write_amp = false;
  // A deliberately broken recovery, for the crash tests' control: replays
  // the records of write batches whose commit entry is missing, and the
  // spilled members of a commit that do not match it, which a crash in the
  // middle of a batch must then expose (testing/replay_incomplete_batches.h).
  bool replay_uncommitted_batches = false;
  // File back end: the system calls that size, back and sync the pool
  // file, e.g. a FaultInjectingFileOps (testing/fault_injecting_file_ops.h)
  // that fails them as a full or failing device would. Null: the calls
  // themselves.
  std::shared_ptr<media::FileOps> file_ops;
  // Replaces the hash of keys that are not 8 bytes long, e.g. to force
  // collisions (EngineSeams::key_hash). Null: the on-media format's.
  KeyHashFunction key_hash = nullptr;
};

}  // namespace plush

#endif  // PLUSH_TESTING_INTERNAL_OPTIONS_H_
