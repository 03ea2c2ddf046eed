// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Benchmark instrumentation (InternalOptions::model_media_write_amp):
// feeds every line a Media flushes or streams into the model of PMem's
// write-combining buffer (write_amp_model.h). Part of the testing library,
// not of libplush: InternalMediaFactory attaches it when it opens a pool's
// media, and reports what it counted (Stats::media_bytes_written).
//
// A wrapper in the spirit of LevelDB's EnvWrapper: it takes the media's
// persistence primitives, installs its own in their place, and forwards to
// the originals after recording. Media without a probe pay nothing for it.

#ifndef PLUSH_TESTING_WRITE_AMP_PROBE_H_
#define PLUSH_TESTING_WRITE_AMP_PROBE_H_

#include <cstdint>

#include "media/media.h"
#include "testing/write_amp_model.h"

namespace plush::media {

class WriteAmpProbe {
 public:
  // Interposes on `media`. REQUIRES: no concurrent use of the media; the
  // probe outlives every later flush of the media.
  explicit WriteAmpProbe(Media* media);
  WriteAmpProbe(const WriteAmpProbe&) = delete;
  WriteAmpProbe& operator=(const WriteAmpProbe&) = delete;

  // Bytes the modeled media wrote (WriteAmpModel::MediaBytes).
  uint64_t MediaBytes() const { return model_.MediaBytes(); }

 private:
  static void Flush(void* probe, uintptr_t first_line, uint64_t lines) noexcept;
  static void Drain(void* probe) noexcept;
  static void Stream(void* probe, uint64_t* dst, const uint64_t* src,
                     size_t n) noexcept;
  void Record(uintptr_t first_line, uint64_t lines) noexcept;

  const uintptr_t base_;
  const PersistOps inner_;
  WriteAmpModel model_;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_WRITE_AMP_PROBE_H_
