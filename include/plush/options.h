// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Options for opening a pool (Options), for reads (ReadOptions) and for
// writes (WriteOptions). Plain structs with documented defaults, in the
// LevelDB tradition: set what you need, leave the rest.
//
// The "creation parameters" below are fixed when a pool is created and are
// recorded in its superblock; when an existing pool is opened, the values in
// the superblock win and the ones passed here are ignored.

#ifndef PLUSH_OPTIONS_H_
#define PLUSH_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plush/export.h"

namespace plush {

// Where persistent bytes live and how they become durable
// (docs/reliability.md).
enum class Backend : uint8_t {
  kAuto = 0,  // pmem if the file can be mapped with MAP_SYNC, else file
  kPmem = 1,  // file on a DAX file system (fsdax) mapped with MAP_SYNC;
              // survives power loss. Open() fails with NotSupported where
              // MAP_SYNC is refused. (devdax is not supported.)
  kFile = 2,  // any file via a shared mapping; survives process crashes,
              // survives power loss only up to the last successful Sync()
  // 3 was kSim, the crash simulator: now internal (not for users).
};

// The store granularity the caller needs (libpmem2's vocabulary). Open()
// fails with NotSupported if the media cannot give at least this.
enum class Granularity : uint8_t {
  kByte = 0,       // stores are durable when globally visible (eADR)
  kCacheLine = 1,  // durable after cache-line flush + fence (ADR PMem)
  kPage = 2,       // durable after msync (ordinary files); accepts anything
};

// How keys are spread over directory entries (creation parameter).
enum class Partitioning : uint8_t {
  kHash = 0,   // by key hash: uniform, skew-resistant, no ordered scans
  kRange = 1,  // by an order-preserving key prefix: enables ordered scans
};

// The time that decides when a record with an expiry expires
// (WriteOptions::expires_at_ms): milliseconds since the Unix epoch. The
// default is the system's wall clock (Options::clock); tests give their
// own. Called from any thread, concurrently.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t NowMs() const = 0;
};

// The system's wall clock (CLOCK_REALTIME), which Options::clock defaults
// to: what a time to live given from now is counted from.
PLUSH_EXPORT const Clock& SystemClock();

struct PLUSH_EXPORT Options {
  // ---- Behaviour -----------------------------------------------------------

  // Create the pool if `path` does not exist.
  bool create_if_missing = true;
  // Fail with InvalidArgument if the pool already exists.
  bool error_if_exists = false;
  // Which back end to use; kAuto detects pmem and falls back to file.
  Backend backend = Backend::kAuto;
  // Open() fails with NotSupported if the media cannot give this guarantee.
  Granularity required_granularity = Granularity::kPage;
  // The file back end on a disk: make every persistence barrier of the
  // engine an msync of the pool (shared by concurrent writers, as sync
  // writes share theirs), so that pages reach the disk in the order the
  // barriers set, as on PMem. Then every acknowledged write survives power
  // failure, and so does everything a sync covered, whatever background
  // work comes after it (Stats::power_fail_durable). Each write costs an
  // msync, shared with the writers waiting for the same one, best with
  // WriteOptions::sync (docs/benchmarks.md, "Power-fail-safe file
  // pools"). The pool remembers it: every later opening is
  // power-fail safe too (plush dump | plush load makes a pool that is
  // not). false, for a pool never opened so: the kernel writes pages back
  // in its own order, and a power failure while it does can lose what a
  // sync covered; WriteOptions::sync is refused. Nothing changes on pmem
  // (ordered by its flushes) or on a file system in memory (nothing
  // survives there).
  bool power_fail_safe = false;
  // What expiry is judged by; null = the wall clock (CLOCK_REALTIME). A
  // record is gone once NowMs() > its expires_at_ms. A clock set back
  // brings back records that expired but were not yet reclaimed
  // (docs/api.md, "Expiry"); reclaimed ones stay gone.
  std::shared_ptr<const Clock> clock;
  // Threads used to replay the recovery logs when opening a pool after a
  // crash; 0 = one per hardware thread.
  unsigned recovery_threads = 0;

  // Threads that migrate DRAM directory entries before they fill, and
  // recycle recovery-log chunks before a log runs out, so that writers
  // rarely do either while holding a lock (the insert tail of the paper's
  // design). 0: writers do that work themselves when they meet it.
  // Started by Open, stopped by Close.
  unsigned background_threads = 1;
  // Range pools: a unit that becomes heavy (more than twice the mean of
  // the units plus one DRAM entry's capacity), or whose keys keep growing
  // (or falling) past the mean plus half an entry, is split as it happens
  // (by the background thread, or the writer whose write fills the unit's
  // DRAM entry to its high-water mark), into free units or units freed by
  // merging light neighbours, so that keys that share a prefix or keep
  // growing spread over the table (docs/operations.md, "Range
  // partitioning"). false: only DB::Rebalance() re-balances. Needs
  // background_threads > 0.
  bool range_rebalance = true;

  // ---- Space ---------------------------------------------------------------

  // Bytes the pool file has when created; it grows on demand afterwards.
  // A lower bound: the file has at least MinimumPoolSize() bytes.
  uint64_t initial_pool_size = 64ull << 20;
  // The pool never grows beyond this; writes that need more space fail with
  // NoSpace (the DB stays readable). Also bounded by the file system.
  uint64_t max_pool_size = 1ull << 40;

  // ---- Creation parameters (recorded in the superblock) --------------------

  // Key distribution over directory entries.
  Partitioning partitioning = Partitioning::kHash;
  // Range pools only: keys like the ones the pool will hold (any order,
  // duplicates allowed; a few per DRAM directory entry or more). The pool
  // starts with its key space split at the sample's quantiles, one part
  // per DRAM entry, so that keys that share their leading bytes
  // (`user:%08d`, big-endian counters, timestamps) spread over the whole
  // table from the first record on; re-balancing (range_rebalance) then
  // follows the keys as they come. Empty (the default): the key space
  // starts split by the keys' leading dram_directory_bits bits, and
  // re-balancing alone adapts it. Used when a pool is created, like the
  // other creation parameters.
  std::vector<std::string> range_key_sample;
  // log2 of the number of directory entries of the DRAM level. Each entry
  // buffers up to 16 * fanout records (4 KiB at fanout 16), so the default
  // 2^14 entries buffer 4 Mi records in 72 MiB of DRAM.
  uint32_t dram_directory_bits = 14;
  // log2 of the fanout of every PMem level after the first (paper: 16).
  // Each directory entry holds up to this many 256-byte buckets. 1..4.
  uint32_t fanout_bits = 4;
  // log2 of the fanout from the DRAM level to the first PMem level. Lets the
  // DRAM budget be tuned independently of the PMem fanout. 0..4.
  uint32_t first_level_fanout_bits = 4;
  // Buckets of the first this-many PMem levels are laid out at computed
  // offsets when the level is created (no bucket references to chase).
  uint32_t preallocated_levels = 0;
  // The filters of the first this-many PMem levels live in DRAM (allocated
  // in full when the pool is opened) and are not written to PMem: lookups
  // test them without touching PMem and migrations flush 4 lines less per
  // child. Costs 256 bytes of DRAM per directory entry of those levels, and
  // Open() rebuilds them by reading every record of those levels (recovery
  // time then grows with their fill). 0..2.
  uint32_t dram_filter_levels = 0;
  // Recovery logs: count (power of two, at most the DRAM directory size),
  // chunk size and chunks per log. Their capacity should exceed the DRAM
  // level's so that log compaction rarely finds a live entry (default:
  // 256 MiB = 11 Mi entries for a DRAM level of 4 Mi records). More logs
  // mean less contention on their slot counters but more write streams:
  // with more than ~16 streams, PMem's write-combining buffer no longer
  // fills whole 256-byte blocks between migrations (the paper's 64 logs
  // suit 24 cores; 16 suit a handful). Chunks are the unit a log grows
  // and recycles by: small ones keep a log whose records are mostly
  // superseded (keys written again) at a few hundred KiB.
  uint32_t log_count = 16;
  uint32_t log_chunk_size = 256u << 10;
  uint32_t log_chunks_per_log = 64;
  // Payload logs hold the records that are not an 8-byte key with an
  // 8-byte value (docs/format.md, "Payload logs"): their count and chunk
  // size. Writers spread over the logs by thread. 0 logs creates a pool
  // restricted to 8/8 records (other sizes: NotSupported). Chunk size: a
  // multiple of 4 KiB in [128 KiB, 4 MiB] (a chunk holds the largest
  // record). Chunks are allocated from the pool on demand; a log whose
  // chunks are full compacts its own chunks before the pool grows for it.
  uint32_t payload_log_count = 4;
  uint32_t payload_chunk_size = 1u << 20;

  // The smallest pool file these creation parameters allow: the recovery
  // logs, the pool's header pages and one 2 MiB growth step of heap.
  // (260 MiB with the defaults, 4 MiB with SmallProfile().)
  uint64_t MinimumPoolSize() const;

  // A profile for tests and small machines: tiny DRAM level, low fanout and
  // small logs so that a few thousand records already create several PMem
  // levels and trigger recursive migrations and log compactions.
  static Options SmallProfile() {
    Options o;
    o.initial_pool_size = 4ull << 20;
    o.dram_directory_bits = 2;
    o.fanout_bits = 1;
    o.first_level_fanout_bits = 1;
    o.log_count = 2;
    o.log_chunk_size = 4096;
    o.log_chunks_per_log = 3;
    o.payload_log_count = 2;
    o.payload_chunk_size = 128u << 10;
    return o;
  }
};

struct ReadOptions {
  // NewIterator only: an exclusive upper bound. The iterator becomes
  // invalid (status OK) at the first key >= the bound, and reads no
  // partition that holds only larger keys, so a bounded scan costs the
  // partitions of its range only. Range-partitioned pools only: on a hash
  // pool the iterator's status is NotSupported. (Copied by NewIterator.)
  std::optional<std::string> iterate_upper_bound;
};

struct WriteOptions {
  // true: the write is appended to the recovery log with one persistence
  // barrier before Put/Delete returns, so it survives a crash as soon as the
  // call returns (within the back end's guarantee).
  // false ("bulk-load write"): the write skips the log. It becomes durable
  // at the next successful Checkpoint() or Close(); a crash before that may
  // lose it — and only it. Logged and unlogged writes may be mixed freely.
  bool log = true;
  // true: the write also survives power failure when the call returns, on
  // every back end. On `file` the pool is synced (msync) after the write;
  // concurrent sync writers share syncs, so that a sync costs each of N
  // writers about 1/N of one (group commit). The pool must have been
  // opened with Options::power_fail_safe (NotSupported otherwise: a power
  // failure while later background work is written back could lose the
  // write). On `pmem` the logged write is already durable, and sync adds
  // nothing. Needs log = true (an unlogged
  // write is durable only from the next Checkpoint()): Put, Delete, Write,
  // Update and Increment return InvalidArgument otherwise; and NotSupported
  // for a pool on a file system in memory (tmpfs, ramfs), which nothing
  // makes survive power loss.
  bool sync = false;
  // true: the caller makes the write durable itself, with a Sync() (or a
  // sync write) before it counts the write as durable, as a server that
  // answers many writes after one shared sync does. In a pool opened with
  // Options::power_fail_safe the write's log append then leaves its
  // persistence barrier to that sync instead of an msync of its own, and
  // until the sync a power failure may lose the write (and only it).
  // Changes nothing elsewhere.
  bool caller_syncs = false;
  // The moment the records written expire, in Unix milliseconds on the
  // DB's Clock (Options::clock); 0 = never. From the first millisecond
  // after it, the record is absent to every read (Get, MultiGet,
  // iterators, GetExpiry), as if deleted, and its space is reclaimed.
  // Put and Write's puts store it (0 removes the key's expiry, as Redis's
  // SET). Update and Increment store it with the new value if it is not
  // 0, and keep the key's current expiry if it is (as Redis's INCR).
  // Ignored by deletes. A time already past writes a record that is
  // absent at once.
  uint64_t expires_at_ms = 0;
};

}  // namespace plush

#endif  // PLUSH_OPTIONS_H_
