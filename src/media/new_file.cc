// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/new_file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace plush::media {
namespace {

Status Errno(const std::string& what, int err) {
  const std::string msg = what + ": " + std::strerror(err);
  if (err == ENOSPC || err == EFBIG || err == EDQUOT) return Status::NoSpace(msg);
  return Status::IOError(msg);
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "."
         : slash == 0               ? "/"
                                    : path.substr(0, slash);
}

Status SyncDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open directory '" + dir + "'", errno);
  const int rc = fsync(fd);
  const int err = errno;
  close(fd);
  return rc == 0 ? Status::OK() : Errno("fsync of directory '" + dir + "'", err);
}

// Where the kernel cannot copy between the two files itself: through a
// buffer, up to `end`. Returns the bytes copied, or -1 (errno set).
ssize_t CopyThroughBuffer(int src_fd, off_t* in, int dst_fd, off_t* out,
                          off_t end) {
  static constexpr size_t kBuffer = 1 << 20;
  std::unique_ptr<char[]> buffer(new char[kBuffer]);
  ssize_t total = 0;
  while (*in < end) {
    const auto want =
        static_cast<size_t>(std::min<off_t>(end - *in, kBuffer));
    const ssize_t n = pread(src_fd, buffer.get(), want, *in);
    if (n <= 0) return n < 0 ? -1 : total;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = pwrite(dst_fd, buffer.get() + done,
                               static_cast<size_t>(n - done), *out + done);
      if (w < 0) return -1;
      done += w;
    }
    *in += n;
    *out += n;
    total += n;
  }
  return total;
}

}  // namespace

Status WriteNewFile(const std::string& path,
                    const std::function<Status(int fd)>& fill) {
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0)
    return Status::InvalidArgument("'" + path + "' already exists");
  const std::string dir = DirectoryOf(path);
  std::string temp = path + ".partial-XXXXXX";
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return Errno("cannot create a file in '" + dir + "'", errno);
  Status s = fill(fd);
  if (s.ok() && fsync(fd) != 0) s = Errno("fsync of '" + temp + "'", errno);
  close(fd);
  // No overwrite: a destination created meanwhile wins and we fail.
  if (s.ok() &&
      renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(),
                RENAME_NOREPLACE) != 0) {
    s = errno == EEXIST
            ? Status::InvalidArgument("'" + path + "' already exists")
            : Errno("cannot rename '" + temp + "' to '" + path + "'", errno);
  }
  if (!s.ok()) {
    unlink(temp.c_str());
    return s;
  }
  return SyncDirectory(dir);
}

Status CopyFileContents(int src_fd, uint64_t size, int dst_fd) {
  if (ioctl(dst_fd, FICLONE, src_fd) == 0) return Status::OK();
  if (ftruncate(dst_fd, static_cast<off_t>(size)) != 0)
    return Errno("cannot size the copy", errno);
  // Copy the data regions only (SEEK_DATA / SEEK_HOLE), so that holes of
  // the source stay holes.
  off_t at = 0;
  const auto end = static_cast<off_t>(size);
  while (at < end) {
    off_t data = lseek(src_fd, at, SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // no data after `at`
      data = at;                  // no SEEK_DATA: copy everything
    }
    if (data >= end) break;
    off_t hole = lseek(src_fd, data, SEEK_HOLE);
    if (hole < 0 || hole > end) hole = end;
    off_t in = data;
    off_t out = data;
    while (in < hole) {
      ssize_t n = copy_file_range(src_fd, &in, dst_fd, &out,
                                  static_cast<size_t>(hole - in), 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP ||
                    errno == EINVAL)) {
        n = CopyThroughBuffer(src_fd, &in, dst_fd, &out, hole);
      }
      if (n < 0) return Errno("copying the pool", errno);
      if (n == 0) return Status::IOError("copying the pool: unexpected end");
    }
    at = hole;
  }
  return Status::OK();
}

}  // namespace plush::media
