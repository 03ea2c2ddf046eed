// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/media_factory.h"

#include <sys/stat.h>
#include <unistd.h>

namespace plush::media {
namespace {

class FileMediaFactory final : public MediaFactory {
 public:
  bool Exists(const std::string& path) const override {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
  }

  Status Open(const std::string& path, const FileMediaOptions& options,
              std::shared_ptr<Media>* media) override {
    std::unique_ptr<Media> file;
    Status s = OpenFileMedia(path, options, &file);
    if (s.ok()) *media = std::move(file);
    return s;
  }

  void RemoveFailedCreation(const std::string& path) override {
    unlink(path.c_str());
  }
};

}  // namespace

const std::shared_ptr<MediaFactory>& DefaultMediaFactory() {
  static const auto* factory =
      new std::shared_ptr<MediaFactory>(std::make_shared<FileMediaFactory>());
  return *factory;
}

}  // namespace plush::media
