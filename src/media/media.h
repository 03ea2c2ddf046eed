// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The media layer: the one seam between the engine and persistent bytes.
//
// A Media is a growable mapping of one pool at a fixed virtual address
// (base() never changes while it is open, so lock-free readers may keep
// pointers). The engine addresses it by offsets only, and makes bytes
// durable with three primitives, named after libpmem2's:
//
//   Flush(addr, len)   start writing back the cache lines covering the range
//   Drain()            wait until every earlier Flush/StreamWords of this
//                      thread is durable (a store fence: one "persistence
//                      barrier" in the paper's cost model)
//   StreamWords(...)   store 8-byte words so that they bypass the cache
//                      (non-temporal stores); durable after the next Drain()
//
// Each back end gives these primitives its own meaning (docs/reliability.md):
//
//   pmem  clwb/clflushopt + sfence as libpmem2 chooses for the mapping;
//         nothing at all where the platform flushes caches on power loss
//         (byte granularity, eADR). Survives power failure.
//   file  nothing. Survives process crashes; power failure only up to the
//         last Sync() (msync). (The benchmark tools can make it issue the
//         same instructions as pmem, so that throughput comparisons with
//         PMem structures are fair: testing/pmem_cost_emulation.h.)
//   sim   a crash simulator with a durable shadow image, for the tests
//         (testing/sim_media.h; not part of libplush).
//
// Pools open their media through a MediaFactory (media_factory.h).
//
// The hot-path primitives are noexcept and cannot fail; everything fallible
// (mapping, growing, syncing) returns a Status. Each back end installs its
// primitives (PersistOps) once, when it maps the pool.
//
// Thread safety: all methods may be called concurrently, except that Grow()
// is serialized by the caller (the pool allocator).

#ifndef PLUSH_MEDIA_MEDIA_H_
#define PLUSH_MEDIA_MEDIA_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "media/file_ops.h"
#include "plush/options.h"
#include "plush/status.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush::media {

inline constexpr size_t kCacheLine = 64;

// The back end a Media implements.
enum class MediaKind { kPmem, kFile, kSim };

// The persistence primitives of a mapping, chosen once when it is created
// (libpmem2 style): the hot path makes one indirect call and never asks
// which back end it runs on. `context` is passed back to every function.
struct PersistOps {
  void* context = nullptr;
  // Start writing back `lines` cache lines from the line at `first_line`.
  void (*flush)(void* context, uintptr_t first_line, uint64_t lines) noexcept;
  // Wait until every earlier flush and stream of this thread is durable.
  void (*drain)(void* context) noexcept;
  // Store `n` words (each atomically); durable after the next drain.
  void (*stream)(void* context, uint64_t* dst, const uint64_t* src,
                 size_t n) noexcept;
};

class Media {
 public:
  Media(const Media&) = delete;
  Media& operator=(const Media&) = delete;
  virtual ~Media() = default;

  char* base() const { return base_; }
  // Bytes currently mapped (and backed) starting at base().
  uint64_t size() const { return size_.load(std::memory_order_acquire); }

  template <typename T>
  T* At(uint64_t offset) const {
    return reinterpret_cast<T*>(base_ + offset);
  }

  void Flush(const void* addr, size_t len) noexcept {
    if (len == 0) return;
    const uintptr_t first =
        reinterpret_cast<uintptr_t>(addr) & ~(kCacheLine - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(addr) + len;
    const uint64_t lines = (end - first + kCacheLine - 1) / kCacheLine;
    flushed_lines_.Add(lines);
    ops_.flush(ops_.context, first, lines);
  }

  void Drain() noexcept {
    persist_calls_.Add(1);
    ops_.drain(ops_.context);
    // A failed sync is the media's sticky error, which refuses writes.
    if (ordered_barriers_.load(std::memory_order_relaxed)) (void)Sync();
  }

  // The barrier of an append whose writer calls Sync() before it
  // acknowledges the write (a sync write's log append, with its payload
  // entry; WriteOptions::caller_syncs). With ordered barriers that sync
  // makes it durable, and nothing supersedes the append before (recovery
  // drops it torn, as a write in flight): its Drain() leaves out the
  // sync, so that the writers of a group share one. Elsewhere a Drain().
  void DrainBeforeSync() noexcept {
    persist_calls_.Add(1);
    ops_.drain(ops_.context);
  }

  void Persist(const void* addr, size_t len) noexcept {
    Flush(addr, len);
    Drain();
  }

  // Stores `n` words from `src` to `dst` (8-byte aligned) with non-temporal
  // stores where the back end needs flushes, plain stores otherwise. Each
  // 8-byte store is atomic. Durable after the next Drain().
  void StreamWords(uint64_t* dst, const uint64_t* src, size_t n) noexcept {
    const uintptr_t first =
        reinterpret_cast<uintptr_t>(dst) & ~(kCacheLine - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(dst + n);
    flushed_lines_.Add((end - first + kCacheLine - 1) / kCacheLine);
    ops_.stream(ops_.context, dst, src, n);
  }

  // The primitives in use, and a way to interpose on them (a wrapper in the
  // spirit of LevelDB's EnvWrapper: testing/write_amp_probe.h). Not
  // thread-safe: REQUIRES no concurrent use of the media.
  const PersistOps& persist_ops() const { return ops_; }
  void set_persist_ops(const PersistOps& ops) { ops_ = ops; }

  // Extends the mapping to `new_size` bytes (a multiple of kGrowAlignment),
  // backed by storage. base() stays the same. Returns NoSpace if the media
  // cannot grow.
  virtual Status Grow(uint64_t new_size) = 0;
  // Backs [offset, offset + len), inside size(), with storage where it was
  // left unbacked (FileMediaOptions::unbacked_*): a store into an unbacked
  // block of a mapped file would raise SIGBUS on a full file system
  // instead of returning NoSpace. Idempotent.
  virtual Status Back(uint64_t /*offset*/, uint64_t /*len*/) {
    return Status::OK();
  }
  // Bytes of storage the media holds (a file's allocated blocks).
  virtual uint64_t BackedBytes() const { return size(); }
  // The pool is a file on a file system in memory (tmpfs, ramfs: /dev/shm):
  // it survives process crashes, and nothing of it survives power loss,
  // whatever is synced.
  virtual bool InMemory() const { return false; }
  // Makes everything written before the call durable on this back end's
  // terms (msync for files; nothing for pmem and sim).
  //
  // Concurrent callers share syncs (group commit, as LevelDB's writers
  // share a log sync): a call returns once a sync that began after it was
  // made has ended. A caller that finds a sync running waits (blocked, not
  // spinning) for it to end; then one of the waiters syncs for all of them.
  //
  // A failed sync is sticky (like LevelDB's bg_error_): Linux reports a
  // writeback error once, and the pages it concerned may be gone, so a
  // later sync that returned OK would claim durability that was lost.
  // Every caller the failed sync was to cover gets the failure, so does
  // every later Sync(), and sticky_error() tells the engine to refuse
  // writes, until the pool is opened again.
  Status Sync() EXCLUDES(sync_mu_) { return SyncCall(false); }
  // A writer that will call Sync() once its write is applied announces it
  // first, then calls SyncAnnounced() (or, if the write fails,
  // WithdrawSync()). Unless the previous sync covered a single call (a
  // lone writer never waits), a sync about to begin lets announced writes
  // and new calls join it while they keep coming, for at most half as long
  // as the previous sync took: a write takes microseconds, a sync far
  // longer, and without the wait the writers that a sync's end released
  // would miss the next one (each sync would cover about half of the
  // writers instead of all of them).
  void AnnounceSync() { announced_.fetch_add(1, std::memory_order_acq_rel); }
  void WithdrawSync() { announced_.fetch_sub(1, std::memory_order_acq_rel); }
  Status SyncAnnounced() EXCLUDES(sync_mu_) { return SyncCall(true); }
  // Writes announced and not yet synced or withdrawn (tests).
  uint64_t announced_syncs() const {
    return announced_.load(std::memory_order_acquire);
  }
  // Syncs of the back end made (each covering every Sync() call waiting
  // when it began).
  uint64_t syncs() const { return syncs_.load(std::memory_order_relaxed); }
  // Sync() calls made so far (tests: how many are waiting).
  uint64_t sync_calls() const {
    return sync_calls_.load(std::memory_order_acquire);
  }
  // OK, or the first failed Sync()'s error (see Sync()).
  Status sticky_error() const EXCLUDES(sync_mu_);
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Lets the pool be opened again (by this or another process) while this
  // mapping stays valid until destruction.
  virtual void ReleaseLock() = 0;
  // Writes a copy of the pool's bytes to the new file `path` (new_file.h:
  // all or nothing, InvalidArgument if it exists). The caller keeps the
  // bytes from changing meanwhile.
  virtual Status CopyTo(const std::string& path) = 0;
  // Maps the pages of [offset, offset + len) now, so that the first stores
  // into them take no page faults (logs are pre-faulted, paper §4.3).
  // Contents are unchanged; best effort.
  virtual void Prefault(uint64_t /*offset*/, uint64_t /*len*/) noexcept {}
  // Unmaps the whole pages of [offset, offset + len) from this process:
  // their contents stay (in the file, or its page cache), and the next
  // access maps them again. For a reader done with scattered pages, which
  // would otherwise count in its resident memory. Best effort.
  virtual void ReleasePages(uint64_t /*offset*/, uint64_t /*len*/) noexcept {}

  MediaKind kind() const { return kind_; }
  Granularity granularity() const { return granularity_; }
  // True only for the pmem back end mapped with MAP_SYNC (not when a
  // libpmem2 test override made an ordinary file pass for PMem).
  bool power_fail_durable() const {
    return (kind_ == MediaKind::kPmem && !test_override_) ||
           (kind_ == MediaKind::kFile && ordered_barriers());
  }
  // True when the pmem back end runs on a file that only a libpmem2 test
  // override (PMEM2_FORCE_GRANULARITY, PMEM_IS_PMEM_FORCE) made look like
  // PMem: the flush path of PMem, none of its durability.
  bool test_override() const { return test_override_; }
  // Whether every Drain() is followed by a Sync() (an msync of the pool,
  // shared by concurrent callers), so that pages reach the media in the
  // order the barriers set, as cache lines do on PMem: for a plain file on
  // a disk, whose pages the kernel otherwise writes back in its own order
  // (Options::power_fail_safe).
  bool ordered_barriers() const {
    return ordered_barriers_.load(std::memory_order_relaxed);
  }
  // Orders the barriers from now on where syncs are what orders them
  // (SyncsOrderBarriers()); nothing elsewhere. REQUIRES: no concurrent use
  // of the media.
  void OrderBarriers() {
    if (SyncsOrderBarriers()) ordered_barriers_.store(true);
  }
  // A one-line statement of what an acknowledged write survives.
  std::string Guarantee() const;
  const char* KindName() const;
  const char* GranularityName() const;

  uint64_t persist_calls() const { return persist_calls_.Read(); }
  uint64_t flushed_lines() const { return flushed_lines_.Read(); }

  // Sizes and offsets of growth steps; a multiple of every mapping
  // alignment (4 KiB pages, 2 MiB huge pages).
  static constexpr uint64_t kGrowAlignment = 2ull << 20;

 protected:
  Media(MediaKind kind, Granularity granularity, bool test_override = false)
      : kind_(kind), granularity_(granularity), test_override_(test_override) {}

  // The back end's own sync (Sync() adds the sticky error).
  virtual Status SyncMedia() = 0;
  // Only a sync makes bytes durable, and only one orders them: a plain
  // file on a disk (not pmem, whose flushes order them; not a file system
  // in memory, where nothing survives power loss).
  virtual bool SyncsOrderBarriers() const { return false; }
  // A device that outlives its openings (the sim) starts each unordered.
  void UnorderBarriers() { ordered_barriers_.store(false); }

 private:
  Status SyncCall(bool announced) EXCLUDES(sync_mu_);
  // The leader of a sync: lets joining writes call (AnnounceSync).
  void AwaitJoiningWrites() const;

 protected:
  char* base_ = nullptr;
  std::atomic<uint64_t> size_{0};

 private:
  const MediaKind kind_;
  const Granularity granularity_;
  const bool test_override_;
  std::atomic<bool> ordered_barriers_{false};
  PersistOps ops_;
  ShardedCounter persist_calls_;
  ShardedCounter flushed_lines_;
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> syncs_{0};
  // Sync() calls are numbered from 1; those up to synced_through_ are
  // covered by an ended sync; syncing_: one runs. Its waiters wait for
  // synced_through_ to change (no lock: errors only take sync_mu_).
  std::atomic<uint64_t> sync_calls_{0};
  std::atomic<uint64_t> synced_through_{0};
  std::atomic<bool> syncing_{false};
  std::atomic<uint64_t> announced_{0};
  std::atomic<uint64_t> last_sync_ns_{0};
  std::atomic<uint64_t> last_sync_calls_{0};
  mutable Mutex sync_mu_;
  Status sync_error_ GUARDED_BY(sync_mu_);
};

// How a pool file (or another media: MediaFactory) should be opened.
struct FileMediaOptions {
  Backend backend = Backend::kAuto;
  Granularity required_granularity = Granularity::kPage;
  bool create = false;       // create the file (it must not exist)
  uint64_t create_size = 0;  // initial size when creating
  // [unbacked_offset, unbacked_offset + unbacked_size) is left without
  // storage when creating (a hole), for its owner to Back() as it uses
  // it; mapped without read-ahead (which would back it whole).
  uint64_t unbacked_offset = 0;
  uint64_t unbacked_size = 0;
  uint64_t max_size = 1ull << 40;
};

// Opens (or creates) the pool file at `path`, takes an exclusive lock on it
// (Busy if another process or another Media in this process holds it), and
// maps it with the pmem or file back end. The file's size, storage and
// syncs are asked of `ops`, which the media keeps.
Status OpenFileMedia(const std::string& path, const FileMediaOptions& options,
                     std::unique_ptr<Media>* media,
                     const std::shared_ptr<FileOps>& ops = SystemFileOps());

}  // namespace plush::media

#endif  // PLUSH_MEDIA_MEDIA_H_
