// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The MediaFactory of the crash simulator (testing/sim_media.h): a pool's
// path names a simulated device in this process's registry.

#ifndef PLUSH_TESTING_SIM_MEDIA_FACTORY_H_
#define PLUSH_TESTING_SIM_MEDIA_FACTORY_H_

#include <memory>
#include <string>

#include "media/media_factory.h"

namespace plush::media {

class SimMediaFactory final : public MediaFactory {
 public:
  // `file_model`: devices model a plain file on a disk (SimMedia's file
  // model), not PMem.
  explicit SimMediaFactory(bool file_model = false) : file_model_(file_model) {}

  // The largest device the factory creates: a device maps its size twice
  // (live and durable images), whatever max_pool_size says.
  static constexpr uint64_t kMaxDeviceSize = 16ull << 30;

  bool Exists(const std::string& path) const override;
  Status Open(const std::string& path, const FileMediaOptions& options,
              std::shared_ptr<Media>* media) override;
  // The device stays registered: tests own their devices' lifetime
  // (SimMedia::Remove).
  void RemoveFailedCreation(const std::string&) override {}

 private:
  const bool file_model_;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_SIM_MEDIA_FACTORY_H_
