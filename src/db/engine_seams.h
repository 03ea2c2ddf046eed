// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What may be plugged into a DB as it opens, in place of the engine's own
// behaviour: how its pool's media is opened, and what recovery does with
// incomplete write batches. DB::Open uses the defaults; the testing
// library's OpenDB (testing/open_db.h) plugs in the crash simulator, the
// benchmark instrumentation and the crash tests' broken recovery, none of
// which libplush contains.

#ifndef PLUSH_DB_ENGINE_SEAMS_H_
#define PLUSH_DB_ENGINE_SEAMS_H_

#include <memory>

#include "log/incomplete_batch_hook.h"
#include "media/media_factory.h"

namespace plush {

struct EngineSeams {
  // Opens the pool's media; kept while the DB is open (it may model the
  // device: Stats::media_bytes_written). Default: pmem or file.
  std::shared_ptr<media::MediaFactory> media = media::DefaultMediaFactory();
  // Null: recovery drops incomplete write batches (all or nothing).
  std::shared_ptr<const log::IncompleteBatchHook> incomplete_batches;
};

}  // namespace plush

#endif  // PLUSH_DB_ENGINE_SEAMS_H_
