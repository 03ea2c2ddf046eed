// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/internal_media_factory.h"

#include "testing/pmem_cost_emulation.h"

namespace plush::media {

Status InternalMediaFactory::Open(const std::string& path,
                                  const FileMediaOptions& options,
                                  std::shared_ptr<Media>* media) {
  Status s = back_end_->Open(path, options, media);
  if (!s.ok()) return s;
  if (internal_.emulate_pmem_costs) EmulatePmemCosts(media->get());
  // Last: the probe forwards to the primitives it finds.
  if (internal_.model_media_write_amp)
    probe_ = std::make_unique<WriteAmpProbe>(media->get());
  return Status::OK();
}

}  // namespace plush::media
