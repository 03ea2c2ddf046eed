// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// How a pool finds and opens its Media: the seam between the pool and the
// back ends. libplush's own factory, DefaultMediaFactory(), opens the pmem
// and file back ends (OpenFileMedia) and is what DB::Open uses. The
// factories of the tests and benchmark tools (the crash simulator, PMem
// cost emulation, the write-amplification model) live in the testing
// library (src/testing/), which libplush does not contain.
//
// The factory is called only while a pool opens; the hot-path primitives
// of the media it returns are its own (PersistOps), with no call through
// the factory.

#ifndef PLUSH_MEDIA_MEDIA_FACTORY_H_
#define PLUSH_MEDIA_MEDIA_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "media/media.h"
#include "plush/status.h"

namespace plush::media {

class MediaFactory {
 public:
  MediaFactory() = default;
  MediaFactory(const MediaFactory&) = delete;
  MediaFactory& operator=(const MediaFactory&) = delete;
  virtual ~MediaFactory() = default;

  // Whether a pool exists at `path`.
  virtual bool Exists(const std::string& path) const = 0;
  // Opens the pool at `path`, or creates it (options.create), as
  // OpenFileMedia does for files: locked against a second open.
  virtual Status Open(const std::string& path, const FileMediaOptions& options,
                      std::shared_ptr<Media>* media) = 0;
  // Removes what a creation of `path` left when formatting the new pool
  // failed (it has no superblock: no pool to keep). REQUIRES: the media
  // Open returned is destroyed.
  virtual void RemoveFailedCreation(const std::string& path) = 0;
  // Bytes the device wrote according to a model of it that this factory
  // attached to the media it opened (Stats::media_bytes_written); 0 when
  // nothing models the device, as in libplush's factory.
  virtual uint64_t ModeledMediaBytes() const { return 0; }
};

// The pmem and file back ends; one factory, shared by every pool.
const std::shared_ptr<MediaFactory>& DefaultMediaFactory();
// The same back ends, with their files sized, backed and synced through
// `ops` (media/file_ops.h) instead of SystemFileOps().
std::shared_ptr<MediaFactory> NewFileMediaFactory(
    std::shared_ptr<FileOps> ops);

}  // namespace plush::media

#endif  // PLUSH_MEDIA_MEDIA_FACTORY_H_
