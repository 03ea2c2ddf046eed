// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A standard allocator that maps large blocks (2 MiB and more) on their own
// with transparent huge pages, as plush does for its DRAM level: random
// probes into a table of hundreds of MiB would otherwise miss the TLB on
// nearly every access, and the DRAM peer would pay a cost plush does not.
// Smaller blocks come from std::allocator.

#ifndef PLUSH_TOOLS_BENCH_HUGE_PAGE_ALLOCATOR_H_
#define PLUSH_TOOLS_BENCH_HUGE_PAGE_ALLOCATOR_H_

#include <sys/mman.h>

#include <cstddef>
#include <memory>
#include <new>

namespace plush::bench {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  // Implicit, as containers rebinding their allocator expect.
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT

  T* allocate(size_t n) {
    if (!IsLarge(n)) return std::allocator<T>().allocate(n);
    // Advised before the first touch, the mapping is faulted in as 2 MiB
    // pages wherever it covers an aligned 2 MiB stretch.
    void* memory = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    madvise(memory, n * sizeof(T), MADV_HUGEPAGE);
    return static_cast<T*>(memory);
  }

  void deallocate(T* p, size_t n) {
    if (IsLarge(n)) {
      munmap(p, n * sizeof(T));
    } else {
      std::allocator<T>().deallocate(p, n);
    }
  }

  // Stateless: memory from one instance may be freed by any other.
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }

 private:
  static constexpr size_t kHugePage = size_t{2} << 20;

  static bool IsLarge(size_t n) { return n * sizeof(T) >= kHugePage; }
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_HUGE_PAGE_ALLOCATOR_H_
