// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The MediaFactory that gives a pool the media InternalOptions ask for:
// the crash simulator or the file and pmem back ends (their system calls
// through InternalOptions::file_ops if set), with PMem costs emulated and
// the write-amplification model attached if asked.
//
// One factory per DB (OpenDB makes one, and the DB keeps it while open):
// it holds the write-amplification probe of the media it opened.

#ifndef PLUSH_TESTING_INTERNAL_MEDIA_FACTORY_H_
#define PLUSH_TESTING_INTERNAL_MEDIA_FACTORY_H_

#include <memory>
#include <string>

#include "media/media_factory.h"
#include "testing/internal_options.h"
#include "testing/sim_media_factory.h"
#include "testing/write_amp_probe.h"

namespace plush::media {

class InternalMediaFactory final : public MediaFactory {
 public:
  explicit InternalMediaFactory(const InternalOptions& internal)
      : internal_(internal),
        sim_(internal.simulate_file),
        files_(internal.file_ops != nullptr
                   ? NewFileMediaFactory(internal.file_ops)
                   : DefaultMediaFactory()),
        back_end_(internal.simulated ? &sim_ : files_.get()) {}

  bool Exists(const std::string& path) const override {
    return back_end_->Exists(path);
  }
  Status Open(const std::string& path, const FileMediaOptions& options,
              std::shared_ptr<Media>* media) override;
  void RemoveFailedCreation(const std::string& path) override {
    back_end_->RemoveFailedCreation(path);
  }
  uint64_t ModeledMediaBytes() const override {
    return probe_ != nullptr ? probe_->MediaBytes() : 0;
  }

 private:
  const InternalOptions internal_;
  SimMediaFactory sim_;
  // libplush's pmem and file back ends, through internal_.file_ops if set.
  const std::shared_ptr<MediaFactory> files_;
  // sim_ or files_.
  MediaFactory* const back_end_;
  std::unique_ptr<WriteAmpProbe> probe_;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_INTERNAL_MEDIA_FACTORY_H_
