// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The payload logs (paper §4.3): where records other than an 8-byte key
// with an 8-byte value live. Layout in payload_format.h.
//
// Appending: a writer reserves space in its log's head chunk with one
// atomic add, copies the entry and flushes it; the caller's recovery-log
// append fences both. Writers spread over the logs by thread. When the
// head chunk is full, the log takes a free chunk or allocates one from the
// heap (pre-faulted before use).
//
// Garbage collection (compaction): when a log rotates to a new head and the
// logs have enough sealed chunks, its writer examines one of them, of any
// log (round robin from the oldest): it walks the entries and asks the
// host whether each is still reachable (a lookup of its key yields a
// reference to this very entry). Any log's: a log written rarely (by a
// background thread) rotates rarely, and its chunks turn into garbage
// while it waits; the writers that fill chunks are the ones that must
// free them.
// If at most half of the chunk is live, the live entries are relocated
// (copied to the head and re-published by the host under the key's lock),
// then the chunk's epoch is bumped and persisted, which makes every
// remaining reference into it dangle, and the chunk is freed. Otherwise the
// chunk stays and the log waits a while before examining the next one.
// Dangling references are skipped by readers (who validate the chunk epoch
// after reading) and dropped by migrations.
//
// Readers read entries lock-free: they check the chunk's epoch before and
// after copying, as a seqlock, and retry their lookup when it changed.

#ifndef PLUSH_PAYLOAD_PAYLOAD_LOGS_H_
#define PLUSH_PAYLOAD_PAYLOAD_LOGS_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "payload/chunk_table.h"
#include "payload/payload_format.h"
#include "placement/key_hasher.h"
#include "plush/options.h"
#include "plush/status.h"
#include "pool/pool.h"
#include "table/payload_resolver.h"
#include "util/mutex.h"
#include "util/sharded_counter.h"
#include "util/thread_annotations.h"

namespace plush::payload {

// What garbage collection needs from the layer that owns the hash table.
class PayloadHost {
 public:
  // kBlocked: the entry cannot be dropped now: it is not the key's newest
  // version, but every newer one is an unlogged write that a crash could
  // lose (the entry would then be the key's current version again).
  enum class Reachability { kReachable, kUnreachable, kBlocked };
  enum class Relocation { kMoved, kUnreachable, kBlocked };
  // Copies the entry being relocated to the head of the payload logs and
  // stores the copy's reference in *moved; NotFound if the entry cannot be
  // read any more.
  using CopyFn = std::function<Status(uint64_t* moved)>;

  // An entry of a chunk being compacted.
  struct Candidate {
    std::string_view key;
    uint64_t key_hash = 0;
    uint64_t ref = 0;
    bool expired = false;  // its record had expired when it was read
    uint64_t expires_at_ms = 0;  // its record's expiry (0 = none)
  };

  virtual ~PayloadHost() = default;
  // Lock-free estimates, out[i] for entries[i]: does a lookup of the
  // entry's key yield its reference? Asked for a whole chunk at once, so
  // that the host can overlap the lookups' cache misses (compaction of an
  // overwritten key space is one lookup per entry written).
  virtual void ClassifyReachability(std::span<const Candidate> entries,
                                    Reachability* out) = 0;
  // Under the key's lock: if a lookup of the entry's key yields its
  // reference, calls `copy` and publishes the copy as the key's newest
  // version (kMoved), or reports why not. An expired entry may instead be
  // made unreachable (kUnreachable): no copy is needed then.
  virtual Status Relocate(const Candidate& entry, const CopyFn& copy,
                          Relocation* result) = 0;
};

class PayloadLogs final : public table::PayloadResolver {
 public:
  // A reservation in a chunk, held from Append until the reference is
  // published (or abandoned): compaction waits for it, and so does
  // Close(). (Releasing it decrements shared counters, which on x86 waits
  // for the entry's flushes: it happens after the caller's fence, not
  // before, so that a write pays one barrier.)
  class Ticket {
   public:
    Ticket() = default;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { Release(); }
    void Release();

   private:
    friend class PayloadLogs;
    std::atomic<int64_t>* pending_ = nullptr;  // the chunk's reservations
    std::atomic<int64_t>* active_ = nullptr;   // the log's appends (Close)
  };

  // While one exists, the calling thread's appends neither compact a
  // chunk nor wait for a compaction (for a thread that appends while it
  // holds DRAM entry locks: compaction takes them).
  class DeferCompaction {
   public:
    DeferCompaction();
    ~DeferCompaction();
    DeferCompaction(const DeferCompaction&) = delete;
    DeferCompaction& operator=(const DeferCompaction&) = delete;
  };

  // Attaches to the payload logs of `pool` (none if the pool has 0 logs).
  // Writes nothing to the pool (a pool that fails to open stays as it was).
  // `clock` (which must outlive the logs) judges expiry.
  static Status Open(pool::Pool* pool, PayloadHost* host, const Clock* clock,
                     std::unique_ptr<PayloadLogs>* logs);
  // Once the DB opened successfully, before the first Append: clears the
  // resume marks that a clean close left.
  void FinishOpen();
  ~PayloadLogs() override;

  bool enabled() const { return !logs_.empty(); }

  // Writes an entry for (key, value) into the calling thread's log and
  // flushes it (no fence). *ref receives its reference; *ticket must live
  // until the reference is published. `key_hash` = the table hash of `key`
  // (KeyHasher::Hash). `sync`: for a write with WriteOptions::sync, into
  // log 0, which every sync writer shares, so that the writers one msync
  // covers share its pages rather than dirty one in each thread's log.
  // `expires_at_ms`: the record's expiry (0 = none: no expiry word).
  Status Append(std::string_view key, uint64_t key_hash, std::string_view value,
                uint64_t expires_at_ms, uint64_t* ref, Ticket* ticket,
                bool sync = false);

  // Copies the key and (if not null) the value and expiry of the entry
  // `ref`; false if `ref` is dangling.
  bool ReadEntry(uint64_t ref, std::string* key, std::string* value,
                 uint64_t* expires_at_ms = nullptr) const;
  // The time on the clock that judges expiry (Unix ms).
  uint64_t NowMs() const { return clock_.NowMs(); }
  // Whether a record with this expiry (0 = none) has expired.
  bool Expired(uint64_t expires_at_ms) const {
    return expires_at_ms != 0 && clock_.NowMs() > expires_at_ms;
  }
  // True iff `ref` points to a complete entry of its chunk's current epoch
  // whose key hashes to `key_hash` (recovery: a log record is replayed only
  // if its entry passed; Verify).
  bool EntryIsIntact(uint64_t ref, uint64_t key_hash,
                     uint64_t hash_mask = ~uint64_t{0}) const override;

  // Holds every log's mutex: no log takes a new chunk (nor allocates one)
  // until ResumeRotations; appends into current chunks go on. Take it
  // after the DRAM entry locks: a relocation rotates under one.
  void PauseRotations() NO_THREAD_SAFETY_ANALYSIS;
  void ResumeRotations() NO_THREAD_SAFETY_ANALYSIS;

  // Stops appends (new ones fail with InvalidArgument), waits for those in
  // flight, and records where each log resumes.
  void Close();

  // Checks the chunk headers; appends one line per problem to *report.
  uint64_t Verify(std::string* report) const;

  // Keeps one free chunk ready (allocated, pre-faulted, registered as
  // free), so that a rotation that needs a chunk does not allocate and
  // pre-fault one while its writer waits. For a background thread; an
  // error is left for the rotation that needs the chunk to report.
  void PrepareFreeChunk() EXCLUDES(chunks_mu_);

  uint64_t chunks() const { return table_.count(); }
  uint64_t chunk_size() const { return chunk_size_; }
  uint64_t gc_runs() const { return gc_runs_.load(std::memory_order_relaxed); }
  uint64_t gc_moved() const { return gc_moved_.Read(); }
  uint64_t gc_skipped() const {
    return gc_skipped_.load(std::memory_order_relaxed);
  }

  // table::PayloadResolver
  table::RefMatch RefHasKey(uint64_t ref, std::string_view key) const override;
  table::RefMatch ReadValue(uint64_t ref, std::string_view key,
                            std::string* value,
                            uint64_t* expires_at_ms = nullptr) const override;
  void PrefetchEntry(uint64_t ref) const override;
  uint64_t chunk_frees_started() const override {
    return frees_started_.load(std::memory_order_acquire);
  }
  bool RefsHaveSameKey(uint64_t a, uint64_t b) const override;
  table::RefState StateOfRef(uint64_t ref,
                             uint64_t* expires_at_ms = nullptr) const override;
  bool ReadKey(uint64_t ref, std::string* key) const override;

 private:
  // DRAM state of one chunk.
  // A line of its own: the head chunks of different logs are written by
  // different threads (tail, pending), and chunks sit side by side in
  // all_chunks_.
  struct alignas(64) PayloadChunk {
    uint32_t id = 0;
    uint64_t offset = 0;
    // Next free byte (reservations; may run past the chunk when full).
    std::atomic<uint64_t> tail{kPayloadChunkHeaderSize};
    // Reservations not yet published or abandoned.
    std::atomic<int64_t> pending{0};
    uint32_t epoch = 0;  // the header's epoch, cached
    uint64_t seq = 0;    // guarded by its Log::mu
    unsigned log = 0;    // the log it belongs to while in use
    // Found too live to compact: not examined again until the chunk of
    // this seq is taken (guarded by gc_mu_).
    uint64_t examine_after = 0;
    // The latest expiry of the entries appended since the chunk was taken
    // (kNoExpiry for one without, or not known: chunks found at Open): once
    // the clock has passed it, every entry in it has expired, and
    // compaction takes it before chunks that may hold live data.
    std::atomic<uint64_t> expiry_bound{kNoExpiry};
    // Counted in expiring_sealed_ when last sealed (guarded by gc_mu_).
    bool expiring = false;
    // Found too live before its expiry bound had passed: once it has, it
    // is worth examining again at once (guarded by gc_mu_).
    bool examined_before_expiry = false;
  };
  static constexpr uint64_t kNoExpiry = std::numeric_limits<uint64_t>::max();
  // A chunk bound that says every entry has an expiry (0: no entry yet).
  static bool Expiring(uint64_t bound) {
    return bound != 0 && bound != kNoExpiry;
  }
  struct Log {
    // Appends running in this log (Close waits for them). Next to `head`:
    // an append touches one line of its log.
    alignas(64) std::atomic<int64_t> active{0};
    std::atomic<PayloadChunk*> head{nullptr};
    // Rotations whose writer held tickets (in a batch, or copying for a
    // re-balance), which must not compact: the log's next appends without
    // one compact for each (PayDeferred). (On the line appends read;
    // written once per such rotation.)
    std::atomic<uint32_t> deferred{0};
    // A line of its own: rotations, and the background thread preparing
    // free chunks, take it while appends read `head` and count `active`.
    alignas(64) Mutex mu;
    // In seq order; the head (if any) last.
    std::vector<PayloadChunk*> chunks GUARDED_BY(mu);
    bool compacting GUARDED_BY(mu) = false;
    // Rotations during the running compaction.
    uint64_t owed GUARDED_BY(mu) = 0;
    CondVar caught_up;  // owed dropped, or compaction ended
  };
  static bool BySeq(const PayloadChunk* a, const PayloadChunk* b) {
    return a->seq < b->seq;
  }
  // A view of an entry: pointers into the mapping.
  struct Entry {
    const char* key = nullptr;
    uint64_t key_len = 0;
    const char* value = nullptr;
    uint64_t value_len = 0;
    uint64_t expires_at_ms = 0;  // 0 = none
  };

  PayloadLogs(pool::Pool* pool, PayloadHost* host, const Clock* clock);
  // Runs alone (before any append): fills the logs' guarded state
  // without their mutexes.
  Status Load() NO_THREAD_SAFETY_ANALYSIS;

  PayloadChunkHeader* HeaderOf(uint64_t chunk_offset) const {
    return media_.At<PayloadChunkHeader>(chunk_offset);
  }
  uint64_t StateOf(uint64_t chunk_offset) const;
  // Resolves `ref` to its entry if its chunk's epoch matches; the caller
  // must re-check the epoch after reading (ValidatedAfterRead).
  bool Locate(const Ref& ref, uint64_t* chunk_offset, Entry* entry) const;
  bool StillValid(uint64_t chunk_offset, const Ref& ref) const;
  Status AppendToLog(unsigned log_index, std::string_view key,
                     uint64_t key_hash, std::string_view value,
                     uint64_t expires_at_ms, uint64_t* ref, Ticket* ticket);

  Status Rotate(unsigned log_index, PayloadChunk* full);
  Status TakeChunk(unsigned log_index, PayloadChunk** chunk)
      EXCLUDES(chunks_mu_);
  // Allocates a chunk from the heap, pre-faults it and adds it to the free
  // chunks.
  Status AddFreeChunk() EXCLUDES(chunks_mu_);
  // Picks the chunk to examine next, of any log, or null; the caller
  // then owns it until Compact returns.
  PayloadChunk* CompactionCandidate() EXCLUDES(gc_mu_);
  // The chunk, a head until now, may be compacted.
  void Seal(PayloadChunk* chunk) EXCLUDES(gc_mu_);
  // Examines a candidate and frees it if that pays off; true if freed.
  bool Compact(PayloadChunk* chunk);
  // Compacts `candidate` (if any; Log::compacting is set for it), then
  // the chunks the log owes meanwhile, and one more while rotations that
  // freed no chunk are unpaid (unpaid_rotations_).
  // REQUIRES: no ticket held.
  void RunCompaction(unsigned log_index, PayloadChunk* candidate);
  // The compactions that rotations with tickets held deferred
  // (Log::deferred), one per rotation, unless others repaid them.
  void PayDeferred(unsigned log_index);
  // Calls fn(offset, key, key_hash, size, expires_at_ms) for every intact
  // entry of the chunk.
  template <typename Fn>
  void ForEachEntry(const PayloadChunk& chunk, Fn fn) const;

  pool::Pool* const pool_;
  media::Media& media_;
  PayloadHost* const host_;
  const Clock& clock_;
  const uint64_t chunk_size_;
  const KeyHasher hasher_;  // the table's: entry checks are seeded with it
  ChunkTable table_;
  std::vector<std::unique_ptr<Log>> logs_;
  std::atomic<bool> closed_{false};
  std::vector<uint64_t*> resume_marks_;  // cleared by FinishOpen()

  Mutex chunks_mu_;
  std::deque<PayloadChunk> all_chunks_ GUARDED_BY(chunks_mu_);  // by id
  std::vector<PayloadChunk*> free_chunks_ GUARDED_BY(chunks_mu_);
  std::atomic<uint64_t> next_seq_{1};

  // Compaction's choice, across the logs. (Taken under a log's mutex,
  // never the other way round.)
  Mutex gc_mu_;
  // The chunks that are no log's head, nor being examined, in seq order.
  std::vector<PayloadChunk*> sealed_ GUARDED_BY(gc_mu_);
  uint64_t rotations_to_wait_ GUARDED_BY(gc_mu_) = 0;
  // Sealed chunks whose entries all had an expiry when sealed, and a time
  // no later than the earliest of their bounds: CompactionCandidate walks
  // the sealed chunks for an expired one only once the clock has passed
  // it (a walk per rotation would cost a large pool's writers dearly).
  uint64_t expiring_sealed_ GUARDED_BY(gc_mu_) = 0;
  uint64_t next_expiry_ms_ GUARDED_BY(gc_mu_) = kNoExpiry;
  // Rotations that freed no chunk: because unlogged versions blocked the
  // one examined (until the next checkpoint), and the rotation that then
  // waited; because the writer held tickets (Log::deferred). Each left
  // the logs a chunk longer for good, unless a later rotation frees one
  // more than it takes.
  uint64_t unpaid_rotations_ GUARDED_BY(gc_mu_) = 0;
  // Takes one unpaid rotation, if any.
  bool TakeUnpaidRotation() EXCLUDES(gc_mu_);

  // Read by every lookup that meets a dangling reference, written once per
  // freed chunk: a line of its own.
  alignas(64) std::atomic<uint64_t> frees_started_{0};
  alignas(64) std::atomic<uint64_t> gc_runs_{0};
  std::atomic<uint64_t> gc_skipped_{0};
  ShardedCounter gc_moved_;
};

}  // namespace plush::payload

#endif  // PLUSH_PAYLOAD_PAYLOAD_LOGS_H_
