// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The pmem and file back ends: a pool file mapped at a fixed address.
//
// Back-end detection is libpmem2's: a probe mapping that requires
// cache-line store granularity succeeds only with MAP_SYNC on a DAX file
// system, or on devdax (PMEM2_FORCE_GRANULARITY overrides this for tests);
// otherwise the pool is an ordinary file. libpmem2 also provides the flush
// and drain functions that fit the platform.
//
// The mapping itself covers max_pool_size from the start (beyond the end of
// the file), so that growing the pool is only a posix_fallocate and base()
// never moves. We map with mmap rather than libpmem2 because libpmem2
// 1.12's virtual-memory reservations keep their address space after
// deletion: a process exhausts the 128 TiB user address space after ~126
// open/close cycles of a 1 TiB-capable pool.
//
// The calls that size, back and sync the file go through FileOps
// (media/file_ops.h), so that tests can make them fail as a full or
// failing device would.

#include <fcntl.h>
#include <libpmem2.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "media/file_ops.h"
#include "media/media.h"
#include "media/new_file.h"
#include "media/persist_primitives.h"
#include "util/mutex.h"

namespace plush::media {
namespace {

// The pool files this process holds open, by device and inode, with the
// process that opened them (a forked child inherits the table, not the
// DBs): flock() cannot tell a second open in this process from one in
// another process, but the user fixes them differently.
Mutex open_files_mu;
std::map<std::pair<dev_t, ino_t>, pid_t>& OpenFiles() {
  static auto* files = new std::map<std::pair<dev_t, ino_t>, pid_t>();
  return *files;
}

bool OpenInThisProcess(std::pair<dev_t, ino_t> file) {
  MutexLock lock(&open_files_mu);
  const auto it = OpenFiles().find(file);
  return it != OpenFiles().end() && it->second == getpid();
}

Status ErrnoStatus(const std::string& what, int err) {
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOSPC || err == EFBIG || err == EDQUOT)
    return Status::NoSpace(msg);
  return Status::IOError(msg);
}

// Growing a file past RLIMIT_FSIZE (`ulimit -f`) raises SIGXFSZ, which
// kills the process unless it is ignored: check the limit first, so that a
// library never changes the process's signal handling and a full "disk"
// is always a NoSpace.
Status CheckFileSizeLimit(uint64_t size) {
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      size <= limit.rlim_cur) {
    return Status::OK();
  }
  return Status::NoSpace("a pool file of " + std::to_string(size) +
                         " bytes exceeds the process's file size limit (" +
                         std::to_string(limit.rlim_cur) + " bytes, ulimit -f)");
}

// Makes the directory entry of `path` (created or removed) survive a power
// failure: without this a new pool can vanish after a crash although every
// byte in it was synced.
Status SyncParentDirectory(FileOps& ops, const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open directory '" + dir + "'", errno);
  const int err = ops.SyncFile(fd);
  close(fd);
  if (err != 0) return ErrnoStatus("fsync of directory '" + dir + "'", err);
  return Status::OK();
}

// PMDK's test overrides, which make ordinary files pass for PMem.
bool PmemTestOverrideSet() {
  return std::getenv("PMEM2_FORCE_GRANULARITY") != nullptr ||
         std::getenv("PMEM_IS_PMEM_FORCE") != nullptr;
}

// Whether the file can be mapped with MAP_SYNC, i.e. whether the file
// system makes the metadata of every page fault durable before the
// faulting store proceeds. Without it, stores into unwritten extents of an
// fsdax file are lost at a power failure despite every flush.
int MapSyncError(int fd) {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                 MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
  if (p == MAP_FAILED) return errno;
  munmap(p, 4096);
  return 0;
}

Granularity FromPmem2(pmem2_granularity g) {
  switch (g) {
    case PMEM2_GRANULARITY_BYTE:
      return Granularity::kByte;
    case PMEM2_GRANULARITY_CACHE_LINE:
      return Granularity::kCacheLine;
    case PMEM2_GRANULARITY_PAGE:
      return Granularity::kPage;
  }
  return Granularity::kPage;
}

// The persistence primitives of the file and pmem back ends (PersistOps),
// one set chosen per mapping.

void NoFlush(void*, uintptr_t, uint64_t) noexcept {}
void NoDrain(void*) noexcept {}

// The pmem back end: the flush and drain functions libpmem2 chose for the
// mapping (the context is the function pointers).
struct Pmem2Functions {
  pmem2_flush_fn flush = nullptr;
  pmem2_drain_fn drain = nullptr;
};
void Pmem2Flush(void* context, uintptr_t first_line, uint64_t lines) noexcept {
  static_cast<const Pmem2Functions*>(context)->flush(
      reinterpret_cast<void*>(first_line), lines * kCacheLine);
}
void Pmem2Drain(void* context) noexcept {
  static_cast<const Pmem2Functions*>(context)->drain();
}

bool OnFileSystemInMemory(int fd) {
  struct statfs fs {};
  return fstatfs(fd, &fs) == 0 &&
         (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

class MappedFileMedia final : public Media {
 public:
  MappedFileMedia(MediaKind kind, Granularity granularity, bool test_override,
                  std::shared_ptr<FileOps> ops, int fd,
                  std::pair<dev_t, ino_t> file_id)
      : Media(kind, granularity, test_override),
        ops_(std::move(ops)),
        fd_(fd),
        file_id_(file_id),
        in_memory_(OnFileSystemInMemory(fd)) {}

  ~MappedFileMedia() override {
    if (base_ != nullptr) munmap(base_, max_size_);
    ReleaseLock();
  }

  // The mapping keeps the open file (and so the flock) alive: unlock
  // explicitly. The mapping itself stays valid until destruction.
  void ReleaseLock() override {
    if (fd_ < 0) return;
    {
      MutexLock lock(&open_files_mu);
      OpenFiles().erase(file_id_);
    }
    flock(fd_, LOCK_UN);
    close(fd_);
    fd_ = -1;
  }

  Status CopyTo(const std::string& path) override {
    if (fd_ < 0) return Status::InvalidArgument("the pool is closed");
    return WriteNewFile(path, [&](int fd) {
      return CopyFileContents(fd_, size(), fd);
    });
  }

  // The range is backed a few pages at a time: no read-ahead there. The
  // page cache reads ahead into large folios (Linux 6.x), a write fault
  // then dirties the whole folio, and its write-back allocates blocks for
  // all of it: a store into each 256 KiB log chunk's header took the
  // chunk's blocks whole (230 MiB of a new pool's 260).
  void AdviseSparse(uint64_t offset, uint64_t len) noexcept {
    if (len == 0 || offset >= size()) return;
    (void)madvise(base_ + offset, std::min(len, size() - offset),
                  MADV_RANDOM);
  }

  // MADV_DONTNEED on a shared mapping drops the mapping only: the pages
  // (dirty ones too) stay in the file's page cache, or on the DAX media.
  void ReleasePages(uint64_t offset, uint64_t len) noexcept override {
    const uint64_t first = (offset + 4095) & ~uint64_t{4095};
    const uint64_t end = std::min(offset + len, size()) & ~uint64_t{4095};
    if (end > first) (void)madvise(base_ + first, end - first, MADV_DONTNEED);
  }

  void Prefault(uint64_t offset, uint64_t len) noexcept override {
#ifdef MADV_POPULATE_WRITE
    const uint64_t first = offset & ~uint64_t{4095};
    const uint64_t end = std::min(offset + len, size());
    if (end > first)
      (void)madvise(base_ + first, end - first, MADV_POPULATE_WRITE);
#else
    (void)offset;
    (void)len;
#endif
  }

  Status Init(uint64_t file_size, uint64_t max_size) {
    // Where address space is scarce (sanitizers reserve most of it), settle
    // for a smaller window: the pool then grows only up to what is mapped.
    void* p = MAP_FAILED;
    int err = 0;
    for (max_size_ = std::max(max_size, file_size); p == MAP_FAILED;) {
      p = Map(max_size_);
      err = errno;
      if (p != MAP_FAILED || err != ENOMEM || max_size_ / 2 < file_size) break;
      max_size_ = std::max(max_size_ / 2, file_size);
    }
    if (p == MAP_FAILED) {
      return ErrnoStatus(
          "mapping " + std::to_string(max_size_) + " bytes of the pool file",
          err);
    }
    base_ = static_cast<char*>(p);
    size_.store(file_size, std::memory_order_release);
    return Status::OK();
  }

  // The pmem back end always maps with MAP_SYNC (OpenFileMedia checked that
  // the file accepts it), except under a test override.
  void* Map(uint64_t length) {
    const bool sync = kind() == MediaKind::kPmem && !test_override();
    return mmap(nullptr, length, PROT_READ | PROT_WRITE,
                sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED, fd_, 0);
  }

  Status Grow(uint64_t new_size) override {
    const uint64_t old_size = size();
    if (new_size <= old_size) return Status::OK();
    if (new_size > max_size_) {
      return Status::NoSpace("pool would exceed its maximum size (" +
                             std::to_string(max_size_) + " bytes mapped)");
    }
    Status s = CheckFileSizeLimit(new_size);
    if (!s.ok()) return s.WithContext("growing the pool file");
    // Reserve real blocks first: writing to a hole of a full file system
    // through a mapping would raise SIGBUS instead of returning an error.
    const int err = ops_->Allocate(fd_, old_size, new_size - old_size);
    if (err != 0) return ErrnoStatus("growing the pool file", err);
    size_.store(new_size, std::memory_order_release);
    return Status::OK();
  }

  Status Back(uint64_t offset, uint64_t len) override {
    const int err = ops_->Allocate(fd_, offset, len);
    return err == 0 ? Status::OK()
                    : ErrnoStatus("backing " + std::to_string(len) +
                                      " bytes of the pool file at offset " +
                                      std::to_string(offset),
                                  err);
  }

  uint64_t BackedBytes() const override {
    struct stat st {};
    return fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512
                                : 0;
  }
  bool InMemory() const override { return in_memory_; }
  bool SyncsOrderBarriers() const override {
    return kind() == MediaKind::kFile && !in_memory_;
  }

  // Chooses the persistence primitives: libpmem2's for PMem, none for a
  // plain file or where the platform flushes caches on power loss (byte
  // granularity: eADR).
  void ChoosePersistOps(Pmem2Functions pmem2) {
    pmem2_ = pmem2;
    if (kind() == MediaKind::kPmem && granularity() != Granularity::kByte) {
      set_persist_ops({&pmem2_, Pmem2Flush, Pmem2Drain, StreamNonTemporal});
    } else {
      set_persist_ops({nullptr, NoFlush, NoDrain, StoreWords});
    }
  }

 protected:
  Status SyncMedia() override {
    if (kind() != MediaKind::kFile) return Status::OK();
    if (fd_ < 0) return Status::InvalidArgument("the pool is closed");
    const int err = ops_->SyncMapping(base_, size());
    if (err != 0) return ErrnoStatus("msync of the pool file", err);
    return Status::OK();
  }

 private:
  const std::shared_ptr<FileOps> ops_;
  int fd_;
  const std::pair<dev_t, ino_t> file_id_;
  const bool in_memory_;
  uint64_t max_size_ = 0;
  Pmem2Functions pmem2_;
};

// Tries to map the start of the file with cache-line granularity; if that
// works the file is PMem: reports its granularity and libpmem2's flush and
// drain functions for it.
bool ProbePmem(int fd, uint64_t length, Granularity* granularity,
               Pmem2Functions* functions) {
  pmem2_source* source = nullptr;
  if (pmem2_source_from_fd(&source, fd) != 0) return false;
  pmem2_config* config = nullptr;
  bool ok = false;
  if (pmem2_config_new(&config) == 0) {
    pmem2_config_set_required_store_granularity(config,
                                                PMEM2_GRANULARITY_CACHE_LINE);
    pmem2_config_set_length(config,
                            std::min<uint64_t>(length, Media::kGrowAlignment));
    pmem2_map* map = nullptr;
    if (pmem2_map_new(&map, config, source) == 0) {
      *granularity = FromPmem2(pmem2_map_get_store_granularity(map));
      functions->flush = pmem2_get_flush_fn(map);
      functions->drain = pmem2_get_drain_fn(map);
      pmem2_map_delete(&map);
      ok = true;
    }
    pmem2_config_delete(&config);
  }
  pmem2_source_delete(&source);
  return ok;
}

}  // namespace

Status OpenFileMedia(const std::string& path, const FileMediaOptions& options,
                     std::unique_ptr<Media>* media,
                     const std::shared_ptr<FileOps>& ops) {
  const int flags =
      O_RDWR | O_CLOEXEC | (options.create ? O_CREAT | O_EXCL : 0);
  const int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) {
    return ErrnoStatus(
        "cannot open pool file '" + path + "' for reading and writing", errno);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoStatus("fstat '" + path + "'", err);
  }
  const std::pair<dev_t, ino_t> file_id{st.st_dev, st.st_ino};
  // One lock per open file description: a second open of the same pool,
  // from this process or another, fails here instead of corrupting it.
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(
          "pool '" + path + "' is already open " +
          (OpenInThisProcess(file_id)
               ? "in this process (close the other DB first)"
               : "in another process (it holds the pool file's lock)"));
    }
    return ErrnoStatus("cannot lock pool file '" + path + "'", err);
  }
  {
    MutexLock lock(&open_files_mu);
    OpenFiles()[file_id] = getpid();
  }
  auto forget = [&] {
    MutexLock lock(&open_files_mu);
    OpenFiles().erase(file_id);
  };
  // A pool this call created is removed again if it cannot be used: a
  // refused create must leave nothing behind, also after a power failure.
  auto fail = [&](Status s) {
    forget();
    close(fd);
    if (options.create && unlink(path.c_str()) == 0)
      (void)SyncParentDirectory(*ops, path);
    return s;
  };
  uint64_t file_size = 0;
  if (options.create) {
    Status s = CheckFileSizeLimit(options.create_size);
    if (!s.ok()) return fail(s.WithContext("creating pool '" + path + "'"));
    // Storage for everything but the unbacked range (its owner backs it
    // as it uses it); the file's size covers it all.
    const uint64_t hole_end = options.unbacked_offset + options.unbacked_size;
    int err = ops->Truncate(fd, options.create_size);
    if (err == 0 && options.unbacked_size > 0)
      err = ops->Allocate(fd, 0, options.unbacked_offset);
    const uint64_t from = options.unbacked_size > 0 ? hole_end : 0;
    if (err == 0 && options.create_size > from)
      err = ops->Allocate(fd, from, options.create_size - from);
    if (err != 0) {
      return fail(ErrnoStatus("cannot allocate " +
                                  std::to_string(options.create_size) +
                                  " bytes for pool '" + path + "'",
                              err));
    }
    // The new file's size and its name must survive a power failure
    // before anything in it can.
    err = ops->SyncFile(fd);
    if (err != 0)
      return fail(ErrnoStatus("fsync of new pool '" + path + "'", err));
    s = SyncParentDirectory(*ops, path);
    if (!s.ok()) return fail(s);
    file_size = options.create_size;
  } else {
    file_size = static_cast<uint64_t>(st.st_size);
    if (file_size == 0 || file_size % 4096 != 0) {
      forget();
      close(fd);
      return Status::Corruption("pool file '" + path + "' has size " +
                                std::to_string(file_size) +
                                ", not a positive multiple of 4096");
    }
  }

  Granularity granularity = Granularity::kPage;
  Pmem2Functions pmem2;
  const bool want_pmem = options.backend != Backend::kFile;
  bool is_pmem = want_pmem && ProbePmem(fd, file_size, &granularity, &pmem2);
  // libpmem2's probe accepts a file that its test overrides declare PMem;
  // only MAP_SYNC makes the pmem back end's guarantee true.
  bool test_override = false;
  if (is_pmem) {
    const int err = MapSyncError(fd);
    if (err != 0 && PmemTestOverrideSet()) {
      test_override = true;
    } else if (err != 0 && options.backend == Backend::kPmem) {
      return fail(Status::NotSupported(
          "'" + path + "' cannot be mapped with MAP_SYNC (" +
          std::strerror(err) +
          "): without it writes are not durable across power failure, so "
          "this is not the pmem back end"));
    } else if (err != 0) {
      is_pmem = false;  // kAuto: an ordinary file after all
      granularity = Granularity::kPage;
    }
  }
  if (options.backend == Backend::kPmem && !is_pmem) {
    return fail(Status::NotSupported(
        "'" + path +
        "' cannot be mapped as persistent memory "
        "(no MAP_SYNC: not on a DAX file system)"));
  }
  if (static_cast<int>(granularity) >
      static_cast<int>(options.required_granularity)) {
    return fail(Status::NotSupported(
        std::string(
            "required store granularity not available: the media of '") +
        path + "' only offers " + (is_pmem ? "cache-line" : "page") +
        " granularity"));
  }

  auto mapped = std::make_unique<MappedFileMedia>(
      is_pmem ? MediaKind::kPmem : MediaKind::kFile, granularity,
      test_override, ops, fd, file_id);
  mapped->ChoosePersistOps(pmem2);
  Status s = mapped->Init(file_size, options.max_size);
  if (!s.ok()) {
    mapped.reset();  // closes the file and forgets it
    if (options.create && unlink(path.c_str()) == 0)
      (void)SyncParentDirectory(*ops, path);
    return s;
  }
  mapped->AdviseSparse(options.unbacked_offset, options.unbacked_size);
  *media = std::move(mapped);
  return Status::OK();
}

}  // namespace plush::media
