// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// What may be plugged into a DB as it opens, in place of the engine's own
// behaviour: how its pool's media is opened, what recovery does with
// incomplete write batches, and the hash of keys. DB::Open uses the
// defaults; the testing library's OpenDB (testing/open_db.h) plugs in the
// crash simulator, file-system faults, the benchmark instrumentation, the
// crash tests' broken recovery and forced hash collisions, none of which
// libplush contains.

#ifndef PLUSH_DB_ENGINE_SEAMS_H_
#define PLUSH_DB_ENGINE_SEAMS_H_

#include <memory>

#include "log/incomplete_batch_hook.h"
#include "media/media_factory.h"
#include "placement/key_hash.h"

namespace plush {

struct EngineSeams {
  // Opens the pool's media; kept while the DB is open (it may model the
  // device: Stats::media_bytes_written). Default: pmem or file.
  std::shared_ptr<media::MediaFactory> media = media::DefaultMediaFactory();
  // Null: recovery drops incomplete write batches (all or nothing).
  std::shared_ptr<const log::IncompleteBatchHook> incomplete_batches;
  // Replaces KeyHash for keys that are not 8 bytes long (KeyHasher), e.g.
  // to force collisions; a pool written with it is unreadable without it.
  // Null: KeyHash, the on-media format's.
  KeyHashFunction key_hash = nullptr;
};

}  // namespace plush

#endif  // PLUSH_DB_ENGINE_SEAMS_H_
