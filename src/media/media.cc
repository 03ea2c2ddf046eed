// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "media/media.h"

namespace plush::media {

const char* Media::BackendName() const {
  switch (backend_) {
    case Backend::kPmem:
      return "pmem";
    case Backend::kFile:
      return "file";
    case Backend::kSim:
      return "sim";
    case Backend::kAuto:
      break;
  }
  return "unknown";
}

const char* Media::GranularityName() const {
  switch (granularity_) {
    case Granularity::kByte:
      return "byte";
    case Granularity::kCacheLine:
      return "cache-line";
    case Granularity::kPage:
      return "page";
  }
  return "unknown";
}

std::string Media::Guarantee() const {
  switch (backend_) {
    case Backend::kPmem:
      return "acknowledged writes survive power failure";
    case Backend::kFile:
      return "acknowledged writes survive process crashes; power failure only "
             "up to the last successful Sync()";
    case Backend::kSim:
      return "simulated persistence domain (tests): acknowledged writes "
             "survive "
             "simulated power failure";
    case Backend::kAuto:
      break;
  }
  return "unknown";
}

}  // namespace plush::media
