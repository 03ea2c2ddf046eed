// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/open_db.h"

#include "db/db_impl.h"
#include "db/engine_seams.h"
#include "testing/internal_media_factory.h"
#include "testing/replay_incomplete_batches.h"

namespace plush {

Status OpenDB(const Options& options, const InternalOptions& internal,
              const std::string& path, std::unique_ptr<DB>* db) {
  EngineSeams seams;
  seams.media = std::make_shared<media::InternalMediaFactory>(internal);
  seams.key_hash = internal.key_hash;
  if (internal.replay_uncommitted_batches) {
    seams.incomplete_batches =
        std::make_shared<log::ReplayIncompleteBatches>();
  }
  return DBImpl::Open(options, seams, path, db);
}

}  // namespace plush
