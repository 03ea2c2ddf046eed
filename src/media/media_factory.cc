// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/media_factory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace plush::media {
namespace {

class FileMediaFactory final : public MediaFactory {
 public:
  explicit FileMediaFactory(std::shared_ptr<FileOps> ops)
      : ops_(std::move(ops)) {}

  bool Exists(const std::string& path) const override {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
  }

  Status Open(const std::string& path, const FileMediaOptions& options,
              std::shared_ptr<Media>* media) override {
    std::unique_ptr<Media> file;
    Status s = OpenFileMedia(path, options, &file, ops_);
    if (s.ok()) *media = std::move(file);
    return s;
  }

  void RemoveFailedCreation(const std::string& path) override {
    unlink(path.c_str());
  }

 private:
  const std::shared_ptr<FileOps> ops_;
};

}  // namespace

const std::shared_ptr<MediaFactory>& DefaultMediaFactory() {
  static const auto* factory =
      new std::shared_ptr<MediaFactory>(NewFileMediaFactory(SystemFileOps()));
  return *factory;
}

std::shared_ptr<MediaFactory> NewFileMediaFactory(
    std::shared_ptr<FileOps> ops) {
  return std::make_shared<FileMediaFactory>(std::move(ops));
}

}  // namespace plush::media
