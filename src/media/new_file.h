// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Writing a new file all or nothing: a temporary file in the destination's
// directory is filled, synced, and renamed to the destination only if that
// name is still free; its directory is synced too. A failure (or a
// destination that exists) leaves nothing behind.

#ifndef PLUSH_MEDIA_NEW_FILE_H_
#define PLUSH_MEDIA_NEW_FILE_H_

#include <functional>
#include <string>

#include "plush/status.h"

namespace plush::media {

// Creates `path`, which must not exist (InvalidArgument if it does), with
// the contents `fill(fd)` writes through the file descriptor it is given.
Status WriteNewFile(const std::string& path,
                    const std::function<Status(int fd)>& fill);

// Copies `size` bytes from the start of `src_fd` into `dst_fd` (empty):
// a reflink (FICLONE) where the file system shares blocks, else
// copy_file_range, which skips the kernel-user copy; holes stay holes.
Status CopyFileContents(int src_fd, uint64_t size, int dst_fd);

}  // namespace plush::media

#endif  // PLUSH_MEDIA_NEW_FILE_H_
