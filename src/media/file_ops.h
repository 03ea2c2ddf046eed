// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The operating-system calls of the file back end whose failures decide
// what a pool may acknowledge: giving the pool file size and storage, and
// making it durable. The back end (OpenFileMedia) makes them through this
// interface; SystemFileOps() makes the calls themselves, and the testing
// library's FaultInjectingFileOps (src/testing/) fails or delays them on
// demand, as a full or failing device would, which a healthy machine
// cannot be made to do.
//
// Every call returns 0 or an errno value; a failed call may have changed
// nothing or part of what it was asked, as the system call's may.

#ifndef PLUSH_MEDIA_FILE_OPS_H_
#define PLUSH_MEDIA_FILE_OPS_H_

#include <cstdint>
#include <memory>

namespace plush::media {

class FileOps {
 public:
  FileOps() = default;
  FileOps(const FileOps&) = delete;
  FileOps& operator=(const FileOps&) = delete;
  virtual ~FileOps() = default;

  // ftruncate(fd, size): a new pool file's size.
  virtual int Truncate(int fd, uint64_t size) = 0;
  // posix_fallocate(fd, offset, len): storage for a range of the file, so
  // that a store through the mapping never meets a full file system.
  virtual int Allocate(int fd, uint64_t offset, uint64_t len) = 0;
  // fsync(fd): a new pool file, or the directory that names it.
  virtual int SyncFile(int fd) = 0;
  // msync(addr, len, MS_SYNC): the stores into a mapping of the file.
  virtual int SyncMapping(void* addr, uint64_t len) = 0;
};

// The calls themselves; one instance, shared by every pool.
const std::shared_ptr<FileOps>& SystemFileOps();

}  // namespace plush::media

#endif  // PLUSH_MEDIA_FILE_OPS_H_
