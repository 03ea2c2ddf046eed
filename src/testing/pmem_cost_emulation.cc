// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/pmem_cost_emulation.h"

#include <libpmem.h>

#include "media/persist_primitives.h"

namespace plush::media {
namespace {

// libpmem's CPU flush (clwb or clflushopt, as the CPU offers) and fence.
void EmulatedFlush(void*, uintptr_t first_line, uint64_t lines) noexcept {
  pmem_flush(reinterpret_cast<void*>(first_line), lines * kCacheLine);
}
void EmulatedDrain(void*) noexcept { pmem_drain(); }

}  // namespace

void EmulatePmemCosts(Media* media) {
  if (media->kind() != MediaKind::kFile) return;
  media->set_persist_ops(
      {nullptr, EmulatedFlush, EmulatedDrain, StreamNonTemporal});
}

}  // namespace plush::media
