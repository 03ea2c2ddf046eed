// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The recovery logs (paper §4.2): write-ahead logs of the records that are
// in the DRAM level only. A key always goes to the same log (its DRAM entry
// index modulo the log count), so the order of a key's updates is the order
// of its log. On-media layout: log_format.h.
//
// Appending takes one persistence barrier: the entry is streamed with
// non-temporal stores and fenced; its check bits make it self-validating.
// Slots are handed out by an atomic counter per log.
//
// A chunk's storage is backed as the chunk fills (Provision): the log
// region of a new pool is a hole, and a log that is barely written takes
// a few pages, not its chunks' size. An append that would pass the backed
// slots fails like one that finds the chunk full, and Rotate() backs more
// (twice as much each time, up to the chunk) before the appender retries;
// the slots such an append reserved stay zero, which reads as invalid.
//
// Each log owns a fixed number of chunks: one is current, the others hold
// older entries or are free. When the current chunk is full, Rotate()
// activates a free chunk (one whose storage is backed, if any); if none is
// free, it first recycles the oldest chunk. Instead of copying the oldest
// chunk's live entries (which would reorder a key's updates), it migrates
// the DRAM entries they belong to: afterwards every entry of the chunk is
// on PMem and the chunk can be freed by advancing its check. A chunk whose
// highest epoch is below the lowest DRAM epoch of its log is recycled
// without being read.
//
// Recycling ahead (RecycleAhead, in the background) keeps a free chunk
// for the next rotation: it frees the oldest chunk when no chunk is free,
// and also, rather than let the next rotation take new storage, once most
// of the oldest chunk's records are superseded (their keys written again),
// as every rotation does too. The entries they belong to are
// then rewritten in DRAM without their superseded versions, whose
// survivors go to the current chunk again, one batch per entry (LogHost::
// Retire). So writes that replace
// records keep the logs at a few chunks where they would fill them all,
// and keep the DRAM level from filling with old versions.
//
// A write batch is one run of entries of one chunk (its members, then its
// commit), or, if it does not fit a chunk, its commit alone, whose members
// are in the batch spill area (batch_spill.h).
//
// Concurrency: TryAppend() may be called by any number of threads, each
// holding the lock of the DRAM entry the record belongs to. Rotate() must
// be called WITHOUT holding any DRAM entry lock (it may take them to
// migrate). Recover() runs before any other call.

#ifndef PLUSH_LOG_RECOVERY_LOG_H_
#define PLUSH_LOG_RECOVERY_LOG_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "log/batch_spill.h"
#include "log/incomplete_batch_hook.h"
#include "log/log_format.h"
#include "log/log_host.h"
#include "plush/status.h"
#include "pool/pool.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush::log {

class RecoveryLogs {
 public:
  // `incomplete_batches`: what is done with the members of incomplete
  // write batches instead of dropping them (null: they are dropped, the
  // engine's behaviour; incomplete_batch_hook.h); outlives the logs.
  RecoveryLogs(pool::Pool* pool, LogHost* host,
               const IncompleteBatchHook* incomplete_batches = nullptr);
  ~RecoveryLogs();

  // Formats the log region of a new pool: every chunk free, check 1
  // (flushed, not fenced; a pool::Pool::FormatFn).
  static Status Format(pool::Pool& pool);

  unsigned log_count() const { return static_cast<unsigned>(logs_.size()); }
  // The log of a DRAM entry's records (the log count is a power of two).
  unsigned LogOf(uint64_t dram_index) const {
    return static_cast<unsigned>(dram_index & (logs_.size() - 1));
  }

  // The log of the records of sync writes (WriteOptions::sync), whatever
  // their DRAM entries. A sync writes back every page written since the
  // last one: the writers that share a sync then share this log's current
  // page, where with the log of each one's entry they would dirty a page
  // per log.
  static constexpr unsigned kSyncLog = 0;

  // Appends `record` to `log` with one persistence barrier. Returns false if
  // the log has no room: the caller must drop its DRAM lock, call Rotate()
  // with the returned `chunk_seen`, and try again. `foreign`: the record's
  // DRAM entry is not one of `log`'s (LogOf); the caller holds that
  // entry's lock, which the log's recycling does not wait for, so the
  // append takes the log's foreign-append lock, which it does.
  // `writer_syncs`: the writer syncs the pool before it acknowledges the
  // write, and the barrier may be left to that sync
  // (Media::DrainBeforeSync).
  bool TryAppend(unsigned log, const LogRecord& record, bool foreign,
                 uint32_t* chunk_seen, bool writer_syncs = false);
  // Appends a write batch: `n` records (typed kMember here) and their
  // commit entry, with one persistence barrier; a crash leaves all of them
  // replayable or none (log_format.h). A batch that fits one chunk
  // (FitsOneChunk) is one run of slots; a larger one writes its members to
  // the spill area, which `spill` must hold (spill().Acquire for n), and
  // its commit to the log. Returns false like TryAppend. REQUIRES: the
  // caller holds the lock of a DRAM entry of `log` (WaitForAppends relies
  // on it), or `foreign` (as for TryAppend).
  bool TryAppendBatch(unsigned log, const LogRecord* records, size_t n,
                      const BatchSpill::Lease& spill, bool foreign,
                      uint32_t* chunk_seen, bool writer_syncs = false);
  // Whether a batch of `n` records and its commit fit one chunk.
  bool FitsOneChunk(uint64_t n) const { return n < entries_per_chunk_; }
  // Where batches that do not fit one chunk keep their members.
  BatchSpill& spill() { return spill_; }
  // Gives `log` a fresh current chunk if `chunk_seen` is still current and
  // full (else another thread already rotated). May migrate or rewrite
  // DRAM entries.
  Status Rotate(unsigned log, uint32_t chunk_seen);
  // Recycles the oldest chunk of `log` so that its next Rotate() need not,
  // if it has no free chunk, or if its free chunks have no storage yet and
  // most of the oldest chunk's records are superseded. Logs of two chunks
  // are left alone: their oldest chunk is the one just filled, whose
  // records would nearly all have to be migrated at once. Same locking
  // rules as Rotate(), which does the second after it activates a chunk.
  Status RecycleAhead(unsigned log);

  // Replays every record of every log (records on their own, and the
  // members of complete batches), oldest first within a log, calling
  // `replay(log, record)`; logs are processed by up to `threads` threads in
  // parallel (each log by one thread), and restores the logs' DRAM state.
  // Records of one DRAM entry may come from several logs (batches): their
  // (epoch, position) orders them. Writes nothing to the pool: a pool
  // whose recovery fails stays as it was.
  using ReplayFn = std::function<Status(unsigned log, const LogRecord&)>;
  Status Recover(unsigned threads, const ReplayFn& replay, uint64_t* replayed);
  // After a successful Recover(), before the first append: zeroes every
  // invalid slot of the chunks in use (log_format.h explains why).
  void ZeroInvalidSlots();

  // Waits until no rotation and no spilled batch is in progress; every
  // later Rotate() and spill().Acquire() fails with InvalidArgument
  // (DBImpl::Close).
  void Close();
  // Holds every log's rotation mutex and the spill area (rotations and
  // spilled batches wait) until ResumeRotations (DBImpl::Backup). Take it
  // before any DRAM entry lock: rotations take those.
  void PauseRotations() NO_THREAD_SAFETY_ANALYSIS;
  void ResumeRotations() NO_THREAD_SAFETY_ANALYSIS;

  // Checks every chunk header; appends problems to *report; returns count.
  uint64_t Verify(std::string* report) const;

  uint64_t compactions() const { return compactions_.Read(); }
  uint64_t forced_migrations() const {
    return forced_migrations_.Read() + spill_.forced_migrations();
  }
  // Bytes of the logs' chunks backed with storage since the pool was
  // opened (a chunk's header page counts from its creation): what the logs
  // take on disk, with the pages a previous opening backed not counted
  // until used again.
  uint64_t backed_bytes() const;

 private:
  static constexpr uint32_t kNoChunk = 0xFFFFFFFF;
  static constexpr unsigned kAsksPerJudgement = 2;
  static constexpr uint64_t kForeign = ~uint64_t{0};

  // DRAM state of one chunk.
  struct LogChunk {
    uint64_t offset = 0;          // of the chunk in the pool
    uint64_t* state = nullptr;    // header word on media
    uint64_t* entries = nullptr;  // first entry on media
    // Slots [0, backed) have storage; written under Log::rotate_mu.
    std::atomic<uint64_t> backed{0};
    LogChunkState header;  // mirror of *state; guarded by its Log::rotate_mu
    // The largest epoch of a record appended on its own; kForeign once a
    // batch (whose records may belong to other logs' DRAM entries, whose
    // epochs are not comparable) was appended.
    std::atomic<uint64_t> max_epoch{0};
    // Recovery: runs [first, first + count) of invalid, non-zero slots,
    // zeroed by ZeroInvalidSlots().
    std::vector<std::pair<uint64_t, uint64_t>> invalid_runs;
  };
  struct Log {
    // (chunk index << 32) | next slot; chunk kNoChunk means "none yet".
    alignas(64) std::atomic<uint64_t> cursor{uint64_t{kNoChunk} << 32};
    alignas(64) Mutex rotate_mu;
    // Held by foreign appends (TryAppend) while they write: recycling
    // passes through it to wait for them.
    Mutex foreign_append_mu;
    std::unique_ptr<LogChunk[]> chunks;
    uint64_t next_seq GUARDED_BY(rotate_mu) = 1;
    // Chunks not in use (changed under rotate_mu), and the chunks that
    // were half written (Reserve).
    std::atomic<unsigned> free_chunks{0};
    std::atomic<uint64_t> halves{0};
    // RecyclingPays(): the oldest chunk it last found not worth
    // recycling, and how often it was asked since.
    uint64_t judged_seq GUARDED_BY(rotate_mu) = 0;
    unsigned asked_since_judged GUARDED_BY(rotate_mu) = 0;
    // The most slots an append found unbacked asked for: Rotate() backs
    // at least that many past the cursor.
    std::atomic<uint64_t> wanted{0};
  };

  // Runs alone (before any append): touches the log's guarded state
  // without its mutex.
  Status RecoverLog(unsigned log, const ReplayFn& replay, uint64_t* replayed)
      NO_THREAD_SAFETY_ANALYSIS;
  // RecycleAhead() under the rotation mutex; `when_none_is_free`: also
  // when no chunk is free.
  Status RecycleAheadLocked(unsigned log, Log& lg, bool when_none_is_free)
      REQUIRES(lg.rotate_mu);
  // Frees the oldest chunk of `log`: every record in it that recovery
  // still needs is retired first (LogHost::Retire, as `by` allows; a
  // record that it leaves keeps the chunk in use).
  Status RecycleOldest(unsigned log, Log& lg, LogHost::RetireBy by)
      REQUIRES(lg.rotate_mu);
  // The most entries whose rewrites share their barriers, where barriers
  // are msyncs.
  static constexpr size_t kRewriteGroup = 64;
  // Leaves one of `records` per DRAM entry, in entry order: the order
  // RetireAll() takes them in (a group's locks, as write batches do).
  void PutInRetirementOrder(std::vector<LogRecord>* records) const;
  // Retires `records` (in retirement order, kRewriteGroup at most) as `by`
  // allows; *left: a record
  // was left where it is (kRewritingOnly); *no_room: a rewrite found no
  // room, and no free chunk to go on in, and the rest was left.
  Status RetireAll(Log& lg, std::span<const LogRecord> records,
                   LogHost::RetireBy by, bool* left, bool* no_room)
      REQUIRES(lg.rotate_mu);
  // Makes free chunk `free` the log's current chunk, its first `slots`
  // slots backed.
  Status Activate(Log& lg, unsigned free, uint64_t slots)
      REQUIRES(lg.rotate_mu);
  // The free chunk with the most storage backed; the chunk count if none
  // is free.
  unsigned FreeChunk(const Log& lg) const REQUIRES(lg.rotate_mu);
  LogChunk* OldestChunk(Log& lg) const REQUIRES(lg.rotate_mu);
  // Calls fn(record) for every 32nd slot's record that is still in DRAM
  // only, while it returns true.
  template <typename Fn>
  void SampleRecordsInDram(const LogChunk& chunk, Fn fn) const;
  // Whether at least half of a sample of the chunk's records (every 32nd
  // slot) that are still in DRAM only are superseded there
  // (LogHost::Superseded).
  bool MostlySuperseded(const LogChunk& chunk) const;
  // Whether the log has an oldest chunk and a sample of its records still
  // in DRAM (as MostlySuperseded's) finds each one's entry expired whole
  // (LogHost::EntryExpired): a cache's keys that moved on. A sample that
  // finds none in DRAM says yes as well: every record is on PMem, and the
  // chunk is freed without being read.
  bool OldestOfExpiredEntries(Log& lg) const REQUIRES(lg.rotate_mu);
  // Whether a free chunk has storage (a chunk of one page has its storage
  // from the start: its header's).
  bool HasStorage(const LogChunk& c) const;
  // Whether the log has a chunk besides the current one and its oldest
  // is MostlySuperseded: recycling it then costs less than new storage.
  bool RecyclingPays(unsigned log, Log& lg) const REQUIRES(lg.rotate_mu);
  // TryAppend and TryAppendBatch once the caller's locks allow the append;
  // `chunk_epoch`: what the record raises its chunk's max_epoch to.
  bool AppendOne(unsigned log, const LogRecord& record, uint64_t chunk_epoch,
                 uint32_t* chunk_seen, bool writer_syncs);
  bool AppendBatch(unsigned log, const LogRecord* records, size_t n,
                   const BatchSpill::Lease& spill, uint32_t* chunk_seen,
                   bool writer_syncs);
  // The barrier of an append (TryAppend's `writer_syncs`).
  void DrainAppend(bool writer_syncs) {
    if (writer_syncs) {
      media_.DrainBeforeSync();
    } else {
      media_.Drain();
    }
  }
  // Backs the chunk's storage up to slot `slots` (at most the chunk), in
  // steps that double; pre-faults what it backs (paper §4.3).
  Status Provision(Log& lg, LogChunk& chunk, uint64_t slots)
      REQUIRES(lg.rotate_mu);
  // Reserves `n` consecutive slots of the log's current chunk; false (and
  // *chunk_seen) if it has no room for all of them.
  bool Reserve(unsigned log, uint64_t n, LogChunk** chunk, uint64_t* slot,
               uint32_t* chunk_seen);
  // Zeroes (durably) slots [from, to) of `chunk`, which no run writes in
  // this generation: the rest of a chunk after a run that did not fit, the
  // backed part of a run that found its slots unbacked, and slots as they
  // are backed. Every slot of a chunk is then written or zeroed in each of
  // its generations, so none still holds words of the generation three
  // before, whose check bits equal the current ones (log_format.h).
  // Called by the owner of those slots (the run's writer, or Provision
  // under the rotation mutex).
  void ZeroSlots(LogChunk& chunk, uint64_t from, uint64_t to);
  void RaiseMaxEpoch(LogChunk& c, uint64_t epoch);
  // Calls on_record(record) for each record of the chunk that recovery
  // would replay, in slot order (records on their own and the members of
  // complete batches in the chunk), on_spilled(commit, slot) for each
  // commit of spilled members, and on_invalid(slot) for each non-zero slot
  // that holds nothing to replay (torn, stale, or part of a batch without
  // its commit, unless incomplete_batches_ takes the batch's members).
  // Stops at the first error of on_record or on_spilled.
  template <typename OnRecord, typename OnSpilled, typename OnInvalid>
  Status ScanChunk(const LogChunk& chunk, OnRecord on_record,
                   OnSpilled on_spilled, OnInvalid on_invalid) const;
  void SetState(LogChunk& c, const LogChunkState& s);

  media::Media& media_;
  LogHost* const host_;
  const uint64_t entries_per_chunk_;
  const unsigned chunks_per_log_;
  std::vector<std::unique_ptr<Log>> logs_;
  BatchSpill spill_;
  std::atomic<bool> closed_{false};
  const IncompleteBatchHook* const incomplete_batches_;
  ShardedCounter compactions_;
  ShardedCounter forced_migrations_;
};

}  // namespace plush::log

#endif  // PLUSH_LOG_RECOVERY_LOG_H_
