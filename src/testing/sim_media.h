// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The sim back end: an in-memory pool with an explicit model of a
// persistence domain, used to prove crash consistency
// (docs/reliability.md §2.1). Part of the testing library, not of
// libplush: pools reach it through SimMediaFactory (sim_media_factory.h).
//
// It keeps two images of the pool:
//
//   live     the bytes the program reads and writes
//   durable  what would survive a power failure right now
//
// Flush(range) and StreamWords() remember the touched cache lines for the
// calling thread; Drain() copies this thread's remembered lines from live to
// durable. This is a persist point. Everything else stays volatile.
//
// A device may instead model a plain file on a disk (`file` model, for the
// file back end's power-fail guarantee), where only an msync makes bytes
// durable, and one writes back every dirty page of the pool, whoever
// dirtied it: no Drain() copies anything (the kernel's write-back order is
// arbitrary), Sync() copies every thread's remembered lines, and with
// ordered barriers (Media::OrderBarriers) every Drain() is followed by a
// Sync(). Each Drain() and Sync() is a persist point: a moment a crash may
// strike.
//
// A crash is simulated at a persist point: ArmCrash(k) makes the k-th
// Drain() (counting from 1 after arming) snapshot the live image *instead
// of* taking effect, and every later Drain() is ignored. CrashImage(seed)
// then builds a post-crash image: the durable image, where every 8-byte word
// whose live content differed at the crash is, by a seeded coin flip, either
// the old (durable) or the new (live) word. This models cache-line evictions
// that happened on their own and torn multi-word writes, at the 8-byte
// atomicity that PMem guarantees. Restore(image) makes an image the device's
// content again, ready for the engine to recover from it.
//
// Devices live in a process-wide registry keyed by the pool "path", so that
// OpenDB with InternalOptions::simulated (or a pool opened through
// SimMediaFactory) can reopen the same device after a close or a simulated
// crash. Like a pool file, a device may be open only once at a
// time (a second open returns Busy).
//
// Thread safety: the Media primitives are thread-safe; the crash-control
// methods must not race with Drain() unless stated.

#ifndef PLUSH_TESTING_SIM_MEDIA_H_
#define PLUSH_TESTING_SIM_MEDIA_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "media/media.h"
#include "util/mutex.h"
#include "util/thread_annotations.h"

namespace plush::media {

class SimMedia final : public Media {
 public:
  // What persists a device's bytes (see above).
  enum class Model { kPmem, kFile };

  // A device of `size` bytes (zeroed) that may grow to `max_size`.
  SimMedia(uint64_t size, uint64_t max_size);
  ~SimMedia() override;

  Status Grow(uint64_t new_size) override;

  // ---- Crash control -------------------------------------------------------

  // Persist points (Drain calls) counted since construction or Restore().
  uint64_t persist_points() const { return persist_points_.load(); }
  // Crash at the k-th persist point from now (k >= 1).
  void ArmCrash(uint64_t k);
  // Crash right now (at no particular persist point).
  void CrashNow();
  // Calls `observer` after every persist point (null: none), in the thread
  // that drained; lets tests watch what the engine publishes. REQUIRES: no
  // thread is using the device.
  void SetPersistObserver(std::function<void()> observer) {
    observer_ = std::move(observer);
  }
  bool crashed() const { return crashed_.load(std::memory_order_acquire); }

  // The post-crash image described above. REQUIRES: crashed().
  std::vector<uint64_t> CrashImage(uint64_t seed) const;
  // The same into *image, whose capacity is reused (a crash test that
  // builds an image per crash state saves the allocation's page faults).
  void CrashImage(uint64_t seed, std::vector<uint64_t>* image) const;
  // Restore(CrashImage(seed)), built in place. REQUIRES: crashed(), and no
  // thread is using the device.
  void RestoreCrashImage(uint64_t seed);
  // The durable image alone (what a crash with no lucky evictions leaves).
  std::vector<uint64_t> DurableImage() const;
  // The live image: what the program sees now.
  std::vector<uint64_t> LiveImage() const;
  // A 128-bit digest of the live and the durable image together: tells
  // whether anything wrote to the device without copying it. REQUIRES: no
  // thread is using the device.
  std::pair<uint64_t, uint64_t> ImagesDigest() const;
  // Makes `image` both the live and the durable content, drops every
  // remembered line, disarms the crash and resets the persist-point count.
  // REQUIRES: no thread is using the device.
  void Restore(const std::vector<uint64_t>& image);

  // ---- Registry ------------------------------------------------------------

  // Opens the device named `path`: creates it if `create` (it must not
  // exist), else finds it. Busy if it is open already; InvalidArgument if it
  // does not exist. The device stays registered after ReleaseLock().
  static Status Open(const std::string& path, bool create, uint64_t size,
                     uint64_t max_size, std::shared_ptr<SimMedia>* device);
  // The model of the device from now on (kPmem when created), its barriers
  // unordered. REQUIRES: no thread is using the device.
  void set_model(Model model);
  // Marks the device closed so that it can be opened again.
  void ReleaseLock() override { open_.store(false); }
  // Writes the live image to a pool file (which the file back end opens).
  Status CopyTo(const std::string& path) override;
  // The registered device named `path`, or null.
  static std::shared_ptr<SimMedia> Find(const std::string& path);
  // Forgets the device named `path` (like deleting a pool file).
  static void Remove(const std::string& path);

 protected:
  // The file model's msync; nothing on kPmem (drains persisted it all).
  Status SyncMedia() override;
  bool SyncsOrderBarriers() const override { return model_ == Model::kFile; }

 private:
  // Whose remembered lines a persist point copies to the durable image.
  enum class Persists { kThisThread, kEveryThread, kNothing };
  // The PersistOps of the simulator (the context is the SimMedia).
  static void FlushLines(void* sim, uintptr_t first_line,
                         uint64_t count) noexcept;
  static void Fence(void* sim) noexcept;
  static void Stream(void* sim, uint64_t* dst, const uint64_t* src,
                     size_t n) noexcept;

  void Remember(uintptr_t first_line, uint64_t count) EXCLUDES(mu_);
  // The effect of a persist point (or the crash it was armed for).
  void PersistLines(Persists which) EXCLUDES(mu_);
  void CopyToDurableLocked(const std::vector<uintptr_t>& lines)
      REQUIRES(mu_);
  // Records what a crash now would leave to chance, and marks the crash.
  void SnapshotCrashLocked() REQUIRES(mu_);
  // Drops every remembered line, the crash and the persist-point count.
  void ResetLocked() REQUIRES(mu_);

  const uint64_t max_size_;
  Model model_ = Model::kPmem;
  char* durable_ = nullptr;
  std::atomic<bool> open_{false};

  mutable Mutex mu_;
  // Lines flushed by each thread and not yet drained.
  std::unordered_map<std::thread::id, std::vector<uintptr_t>> pending_
      GUARDED_BY(mu_);
  std::atomic<uint64_t> persist_points_{0};
  std::atomic<uint64_t> crash_at_{0};  // 0 = disarmed
  std::atomic<bool> crashed_{false};
  // The words whose live content differed from the durable one at the
  // crash (word index, live word): the only words a crash image draws a
  // coin for. Kept sparse because they are a few of the device's words.
  std::vector<std::pair<uint64_t, uint64_t>> unpersisted_at_crash_
      GUARDED_BY(mu_);
  std::function<void()> observer_;
};

}  // namespace plush::media

#endif  // PLUSH_TESTING_SIM_MEDIA_H_
