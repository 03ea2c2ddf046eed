// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/write_amp_probe.h"

namespace plush::media {

WriteAmpProbe::WriteAmpProbe(Media* media)
    : base_(reinterpret_cast<uintptr_t>(media->base())),
      inner_(media->persist_ops()) {
  media->set_persist_ops({this, Flush, Drain, Stream});
}

void WriteAmpProbe::Record(uintptr_t first_line, uint64_t lines) noexcept {
  model_.RecordLines(first_line - base_, lines);
}

void WriteAmpProbe::Flush(void* probe, uintptr_t first_line,
                          uint64_t lines) noexcept {
  auto* self = static_cast<WriteAmpProbe*>(probe);
  self->Record(first_line, lines);
  self->inner_.flush(self->inner_.context, first_line, lines);
}

void WriteAmpProbe::Drain(void* probe) noexcept {
  auto* self = static_cast<WriteAmpProbe*>(probe);
  self->inner_.drain(self->inner_.context);
}

void WriteAmpProbe::Stream(void* probe, uint64_t* dst, const uint64_t* src,
                           size_t n) noexcept {
  auto* self = static_cast<WriteAmpProbe*>(probe);
  const uintptr_t first = reinterpret_cast<uintptr_t>(dst) & ~(kCacheLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(dst + n);
  self->Record(first, (end - first + kCacheLine - 1) / kCacheLine);
  self->inner_.stream(self->inner_.context, dst, src, n);
}

}  // namespace plush::media
