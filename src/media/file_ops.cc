// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/file_ops.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace plush::media {
namespace {

class SystemCalls final : public FileOps {
 public:
  int Truncate(int fd, uint64_t size) override {
    return ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
  }
  int Allocate(int fd, uint64_t offset, uint64_t len) override {
    return posix_fallocate(fd, static_cast<off_t>(offset),
                           static_cast<off_t>(len));
  }
  int SyncFile(int fd) override { return fsync(fd) == 0 ? 0 : errno; }
  int SyncMapping(void* addr, uint64_t len) override {
    return msync(addr, len, MS_SYNC) == 0 ? 0 : errno;
  }
};

}  // namespace

const std::shared_ptr<FileOps>& SystemFileOps() {
  static const auto* ops =
      new std::shared_ptr<FileOps>(std::make_shared<SystemCalls>());
  return *ops;
}

}  // namespace plush::media
