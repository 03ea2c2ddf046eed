// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A mutex that clang's thread-safety analysis knows (std::mutex is not
// annotated in libstdc++), its scoped lock, and a condition variable that
// waits on it. Debug builds also check AssertHeld() at run time.

#ifndef PLUSH_UTIL_MUTEX_H_
#define PLUSH_UTIL_MUTEX_H_

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "util/thread_annotations.h"

namespace plush {

class CAPABILITY("mutex") Mutex {
 public:
  void Lock() ACQUIRE() {
    mu_.lock();
#ifndef NDEBUG
    owner_ = std::this_thread::get_id();
#endif
  }
  void Unlock() RELEASE() {
#ifndef NDEBUG
    owner_ = std::thread::id();
#endif
    mu_.unlock();
  }
  // Tells the analysis (and, in debug builds, checks) that the calling
  // thread holds the mutex.
  void AssertHeld() const ASSERT_CAPABILITY(this) {
#ifndef NDEBUG
    assert(owner_ == std::this_thread::get_id());
#endif
  }

  // For std::condition_variable_any.
  void lock() ACQUIRE() { Lock(); }
  void unlock() RELEASE() { Unlock(); }

 private:
  std::mutex mu_;
#ifndef NDEBUG
  std::thread::id owner_;
#endif
};

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(*mu) { mu_.Lock(); }
  ~MutexLock() RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// Waits on a Mutex the caller holds.
class CondVar {
 public:
  template <typename Predicate>
  void Wait(Mutex* mu, Predicate done) REQUIRES(mu) {
    // condition_variable_any unlocks and relocks `mu` itself, which the
    // analysis cannot follow; it holds it again when Wait returns.
    cv_.wait(*mu, [&]() NO_THREAD_SAFETY_ANALYSIS { return done(); });
  }
  // Wait, for at most `timeout`; returns done().
  template <typename Predicate, typename Rep, typename Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout,
               Predicate done) REQUIRES(mu) {
    return cv_.wait_for(*mu, timeout,
                        [&]() NO_THREAD_SAFETY_ANALYSIS { return done(); });
  }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace plush

#endif  // PLUSH_UTIL_MUTEX_H_
