// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Options of the engine that are not part of the public API (options.h):
// the crash simulator, which tests use, and the instrumentation that
// benchmarks use. Code inside the project passes them to OpenDB()
// (db/open_db.h); they are not installed.

#ifndef PLUSH_MEDIA_INTERNAL_OPTIONS_H_
#define PLUSH_MEDIA_INTERNAL_OPTIONS_H_

namespace plush {

struct InternalOptions {
  // The sim back end (media/sim_media.h): the pool is a simulated device
  // in this process's memory, named by the path; crashes are simulated.
  bool simulated = false;
  // File back end: issue the cache-line flushes and fences that the pmem
  // back end would, so that benchmarks compare fairly with PMem data
  // structures run on DRAM. Costs speed; changes no guarantee.
  bool emulate_pmem_costs = false;
  // Feed every flushed line into the model of PMem's write-combining
  // buffer (media/write_amp_probe.h) and report Stats::media_write_amp.
  bool model_media_write_amp = false;
  // A deliberately broken recovery, for the crash tests' control: replays
  // the records of write batches whose commit entry is missing, and the
  // spilled members of a commit that do not match it, which a crash in the
  // middle of a batch must then expose.
  bool replay_uncommitted_batches = false;
};

}  // namespace plush

#endif  // PLUSH_MEDIA_INTERNAL_OPTIONS_H_
