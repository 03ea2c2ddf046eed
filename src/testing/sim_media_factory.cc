// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/sim_media_factory.h"

#include <algorithm>

#include "testing/sim_media.h"

namespace plush::media {

bool SimMediaFactory::Exists(const std::string& path) const {
  return SimMedia::Find(path) != nullptr;
}

Status SimMediaFactory::Open(const std::string& path,
                             const FileMediaOptions& options,
                             std::shared_ptr<Media>* media) {
  std::shared_ptr<SimMedia> device;
  Status s = SimMedia::Open(path, options.create, options.create_size,
                            std::min(options.max_size, kMaxDeviceSize),
                            &device);
  if (!s.ok()) return s;
  device->set_model(file_model_ ? SimMedia::Model::kFile
                                : SimMedia::Model::kPmem);
  *media = std::move(device);
  return Status::OK();
}

}  // namespace plush::media
