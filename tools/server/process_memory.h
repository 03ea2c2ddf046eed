// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// This process's resident memory as Linux reports it (/proc/self/status),
// for INFO memory. Anonymous memory is what the process allocated itself:
// the heap, the engine's DRAM level, filters and metadata, the clients'
// buffers. The resident set adds the pages of mapped files that are in
// memory, the pool's among them (on tmpfs, on a disk, or PMem mapped with
// DAX).

#ifndef PLUSH_TOOLS_SERVER_PROCESS_MEMORY_H_
#define PLUSH_TOOLS_SERVER_PROCESS_MEMORY_H_

#include <cstdint>

#include "plush/status.h"

namespace plush::server {

struct ProcessMemory {
  uint64_t anonymous_bytes = 0;  // RssAnon
  uint64_t resident_bytes = 0;   // VmRSS
};

// IOError if /proc/self/status cannot be read or lacks either figure.
Status ReadProcessMemory(ProcessMemory* memory);

}  // namespace plush::server

#endif  // PLUSH_TOOLS_SERVER_PROCESS_MEMORY_H_
