// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Clang's thread-safety analysis (-Wthread-safety): locking rules written
// as annotations, checked at compile time by the clang build of `make
// test`. With other compilers they expand to nothing.

#ifndef PLUSH_UTIL_THREAD_ANNOTATIONS_H_
#define PLUSH_UTIL_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define PLUSH_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define PLUSH_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) PLUSH_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY PLUSH_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) PLUSH_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) PLUSH_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) PLUSH_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) PLUSH_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRED_BEFORE(...) \
  PLUSH_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRE(...) PLUSH_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) PLUSH_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) \
  PLUSH_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) \
  PLUSH_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  PLUSH_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) PLUSH_THREAD_ANNOTATION(assert_capability(x))
#define NO_THREAD_SAFETY_ANALYSIS \
  PLUSH_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // PLUSH_UTIL_THREAD_ANNOTATIONS_H_
