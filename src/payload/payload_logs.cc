// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "payload/payload_logs.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "plush/limits.h"
#include "util/atomic_word.h"
#include "util/thread_index.h"

namespace plush::payload {
namespace {

static_assert(EntrySize(kMaxKeySize, kMaxValueSize, /*expires=*/true) +
                      kPayloadChunkHeaderSize <=
                  (128u << 10),
              "the smallest payload chunk must hold the largest record");

// The logs need this many sealed chunks before one is compacted:
// compaction pays off only once the oldest chunks had time to turn into
// garbage.
constexpr size_t kMinSealedChunks = 4;
// Rotations a running compaction may fall behind before writers wait.
constexpr uint64_t kMaxOwedChunks = 2;

// Copies between DRAM and the mapping. Readers may read an entry while a
// compaction reuses its chunk (they notice by the epoch and discard what
// they read, like a seqlock); under ThreadSanitizer both sides use atomic
// words so that this intended race is not reported.
#if defined(__SANITIZE_THREAD__)
void StoreToMedia(char* dst, const char* src, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w;
    std::memcpy(&w, src + i, 8);
    StoreRelaxed(*reinterpret_cast<uint64_t*>(dst + i), w);
  }
}
void LoadFromMedia(const char* src, size_t n, char* dst) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(src) & ~uintptr_t{7};
  const uintptr_t end = reinterpret_cast<uintptr_t>(src) + n;
  for (uintptr_t a = first; a < end; a += 8) {
    const uint64_t w = LoadRelaxed(*reinterpret_cast<const uint64_t*>(a));
    const uintptr_t from = std::max(a, reinterpret_cast<uintptr_t>(src));
    const uintptr_t to = std::min(a + 8, end);
    std::memcpy(dst + (from - reinterpret_cast<uintptr_t>(src)),
                reinterpret_cast<const char*>(&w) + (from - a), to - from);
  }
}
#else
void StoreToMedia(char* dst, const char* src, size_t n) {
  std::memcpy(dst, src, n);
}
// Keys and small values are copied word by word: a memcpy of a size
// unknown at compile time became `rep movsq`, whose start-up cost
// dominated the copy of a 13-byte key (perf, scans of a range pool). The
// last bytes go as one word that overlaps the one before it: a scan reads
// the copied key back as words (util/key_prefix.h), and a word read from
// bytes stored one by one waits for all of them to be written (a load is
// forwarded from a single store only).
void LoadFromMedia(const char* src, size_t n, char* dst) {
  if (n > 64) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) std::memcpy(dst + i, src + i, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}
#endif

bool MediaEquals(const char* media, std::string_view bytes) {
  char buffer[kMaxKeySize];
  if (bytes.size() > sizeof(buffer)) return false;
  LoadFromMedia(media, bytes.size(), buffer);
  return std::equal(bytes.begin(), bytes.end(), buffer);
}

// A chunk state word as written: well formed, epoch never 0, a chunk in
// use belongs to one of the `logs` logs.
bool StateIsValid(uint64_t word, uint64_t logs) {
  const PayloadChunkState st = PayloadChunkState::Decode(word);
  return PayloadChunkState::WellFormed(word) && st.epoch != 0 &&
         (!st.in_use || st.log < logs);
}

}  // namespace

namespace {

// Reservations the calling thread holds unpublished (a write batch holds
// one per record until it commits). Such a thread must not compact, nor
// wait for a compaction: compaction waits for every reservation in the
// chunk it examines, its own included.
thread_local unsigned tickets_held = 0;
// The compactor's own appends (relocations) rotate too; they neither start
// a compaction nor wait for one.
thread_local bool compacting_here = false;

}  // namespace

// A thread that appends under DRAM entry locks (a re-balance) must not
// compact either: compaction relocates under those locks.
PayloadLogs::DeferCompaction::DeferCompaction() { ++tickets_held; }
PayloadLogs::DeferCompaction::~DeferCompaction() { --tickets_held; }

void PayloadLogs::Ticket::Release() {
  if (pending_ == nullptr) return;
  pending_->fetch_sub(1, std::memory_order_seq_cst);
  active_->fetch_sub(1, std::memory_order_seq_cst);
  pending_ = nullptr;
  active_ = nullptr;
  --tickets_held;
}

PayloadLogs::PayloadLogs(pool::Pool* pool, PayloadHost* host,
                         const Clock* clock)
    : pool_(pool),
      media_(pool->media()),
      host_(host),
      clock_(*clock),
      chunk_size_(pool->params().payload_chunk_size),
      hasher_(pool->key_hasher()),
      table_(pool, pool->params().payload_chunk_size) {}

PayloadLogs::~PayloadLogs() = default;

Status PayloadLogs::Open(pool::Pool* pool, PayloadHost* host,
                         const Clock* clock,
                         std::unique_ptr<PayloadLogs>* logs) {
  std::unique_ptr<PayloadLogs> p(new PayloadLogs(pool, host, clock));
  Status s = p->Load();
  if (!s.ok()) return s;
  *logs = std::move(p);
  return Status::OK();
}

Status PayloadLogs::Load() {
  const unsigned n = pool_->params().payload_log_count;
  if (n == 0) return Status::OK();
  for (unsigned i = 0; i < n; ++i) logs_.push_back(std::make_unique<Log>());
  Status s = table_.Load();
  if (!s.ok()) return s;
  uint64_t max_seq = 0;
  for (uint64_t id = 0; id < table_.count(); ++id) {
    const uint64_t offset = table_.OffsetOf(id);
    const PayloadChunkHeader* h = HeaderOf(offset);
    const PayloadChunkState st = PayloadChunkState::Decode(h->state);
    const std::string where =
        "payload chunk " + std::to_string(id) + " @" + std::to_string(offset);
    if (!StateIsValid(h->state, n)) {
      return Status::Corruption(where + ": bad state word " +
                                std::to_string(h->state));
    }
    PayloadChunk& c = all_chunks_.emplace_back();
    c.id = static_cast<uint32_t>(id);
    c.offset = offset;
    c.epoch = st.epoch;
    c.seq = h->seq;
    c.log = st.log;
    max_seq = std::max(max_seq, h->seq);
    if (st.in_use) {
      logs_[st.log]->chunks.push_back(&c);
    } else {
      free_chunks_.push_back(&c);
    }
  }
  next_seq_.store(max_seq + 1, std::memory_order_relaxed);
  for (auto& log : logs_) {
    std::sort(log->chunks.begin(), log->chunks.end(), BySeq);
    for (PayloadChunk* c : log->chunks) {
      PayloadChunkHeader* h = HeaderOf(c->offset);
      const uint64_t resume = h->resume;
      if (resume == 0) continue;
      // Only the newest chunk of a cleanly closed log resumes; the mark is
      // cleared before anything is appended (FinishOpen), so that a crash
      // later cannot leave a stale one.
      if (c == log->chunks.back()) {
        if (resume < kPayloadChunkHeaderSize || resume % 8 != 0 ||
            resume > chunk_size_) {
          return Status::Corruption("payload chunk " + std::to_string(c->id) +
                                    ": resume offset " +
                                    std::to_string(resume) + " out of range");
        }
        c->tail.store(resume, std::memory_order_relaxed);
        log->head.store(c, std::memory_order_release);
      }
      resume_marks_.push_back(&h->resume);
    }
    for (PayloadChunk* c : log->chunks) {
      if (c != log->head.load(std::memory_order_relaxed)) sealed_.push_back(c);
    }
  }
  std::sort(sealed_.begin(), sealed_.end(), BySeq);
  return Status::OK();
}

void PayloadLogs::FinishOpen() {
  for (uint64_t* mark : resume_marks_) {
    *mark = 0;
    media_.Flush(mark, sizeof(*mark));
  }
  if (!resume_marks_.empty()) media_.Drain();
  resume_marks_.clear();
}

uint64_t PayloadLogs::StateOf(uint64_t chunk_offset) const {
  return LoadAcquire(HeaderOf(chunk_offset)->state);
}

bool PayloadLogs::Locate(const Ref& ref, uint64_t* chunk_offset,
                         Entry* entry) const {
  const uint64_t offset = table_.OffsetOf(ref.chunk);
  if (offset == 0) return false;
  if (ref.offset < kPayloadChunkHeaderSize || ref.offset + 8 > chunk_size_)
    return false;
  // Two independent misses (header, entry): start both.
  const char* at = media_.At<char>(offset + ref.offset);
  __builtin_prefetch(at);
  const PayloadChunkState st = PayloadChunkState::Decode(StateOf(offset));
  if (!st.in_use || Ref::EpochBits(st.epoch) != ref.epoch) return false;
  const EntryLayout e =
      EntryLayout::Decode(LoadRelaxed(*reinterpret_cast<const uint64_t*>(at)));
  if (!EntryLayout::EpochMatches(e.epoch_bits, st.epoch) ||
      e.key_len > kMaxKeySize || e.value_len > kMaxValueSize ||
      ref.offset + e.size() > chunk_size_) {
    return false;
  }
  *chunk_offset = offset;
  const char* key = at + e.key_offset();
  *entry = {key, e.key_len, key + e.key_len, e.value_len,
            e.expires ? LoadRelaxed(*reinterpret_cast<const uint64_t*>(at + 8))
                      : 0};
  return true;
}

void PayloadLogs::PrefetchEntry(uint64_t ref) const {
  const Ref r = Ref::Decode(ref);
  const uint64_t offset = table_.OffsetOf(r.chunk);
  if (offset == 0 || r.offset + 8 > chunk_size_) return;
  __builtin_prefetch(HeaderOf(offset));
  __builtin_prefetch(media_.At<char>(offset + r.offset));
}

bool PayloadLogs::StillValid(uint64_t chunk_offset, const Ref& ref) const {
  const PayloadChunkState st = PayloadChunkState::Decode(
      ReloadAfterReads(HeaderOf(chunk_offset)->state));
  return st.in_use && Ref::EpochBits(st.epoch) == ref.epoch;
}

table::RefMatch PayloadLogs::ReadValue(uint64_t ref, std::string_view key,
                                       std::string* value,
                                       uint64_t* expires_at_ms) const {
  const Ref r = Ref::Decode(ref);
  uint64_t chunk = 0;
  Entry e;
  if (!Locate(r, &chunk, &e)) return table::RefMatch::kDangling;
  const bool match = e.key_len == key.size() && MediaEquals(e.key, key);
  const bool expired = Expired(e.expires_at_ms);
  if (match && !expired) {
    value->resize(e.value_len);
    LoadFromMedia(e.value, e.value_len, value->data());
    if (expires_at_ms != nullptr) *expires_at_ms = e.expires_at_ms;
  }
  if (!StillValid(chunk, r)) return table::RefMatch::kDangling;
  if (!match) return table::RefMatch::kNo;
  return expired ? table::RefMatch::kExpired : table::RefMatch::kYes;
}

table::RefMatch PayloadLogs::RefHasKey(uint64_t ref,
                                       std::string_view key) const {
  const Ref r = Ref::Decode(ref);
  uint64_t chunk = 0;
  Entry e;
  if (!Locate(r, &chunk, &e)) return table::RefMatch::kDangling;
  const bool match = e.key_len == key.size() && MediaEquals(e.key, key);
  if (!StillValid(chunk, r)) return table::RefMatch::kDangling;
  return match ? table::RefMatch::kYes : table::RefMatch::kNo;
}

bool PayloadLogs::ReadEntry(uint64_t ref, std::string* key,
                            std::string* value,
                            uint64_t* expires_at_ms) const {
  const Ref r = Ref::Decode(ref);
  uint64_t chunk = 0;
  Entry e;
  if (!Locate(r, &chunk, &e)) return false;
  key->resize(e.key_len);
  LoadFromMedia(e.key, e.key_len, key->data());
  if (value != nullptr) {
    value->resize(e.value_len);
    LoadFromMedia(e.value, e.value_len, value->data());
  }
  if (expires_at_ms != nullptr) *expires_at_ms = e.expires_at_ms;
  return StillValid(chunk, r);
}

bool PayloadLogs::ReadKey(uint64_t ref, std::string* key) const {
  return ReadEntry(ref, key, nullptr, nullptr);
}

bool PayloadLogs::RefsHaveSameKey(uint64_t a, uint64_t b) const {
  std::string key;
  return ReadKey(a, &key) && RefHasKey(b, key) == table::RefMatch::kYes;
}

table::RefState PayloadLogs::StateOfRef(uint64_t ref,
                                        uint64_t* expires_at_ms) const {
  const Ref r = Ref::Decode(ref);
  uint64_t chunk = 0;
  Entry e;
  if (!Locate(r, &chunk, &e)) return table::RefState::kDangling;
  if (expires_at_ms != nullptr) *expires_at_ms = e.expires_at_ms;
  return Expired(e.expires_at_ms) ? table::RefState::kExpired
                                  : table::RefState::kLive;
}

bool PayloadLogs::EntryIsIntact(uint64_t ref, uint64_t key_hash,
                                uint64_t hash_mask) const {
  const Ref r = Ref::Decode(ref);
  uint64_t chunk = 0;
  Entry e;
  if (!Locate(r, &chunk, &e)) return false;
  std::string bytes(e.key_len + e.value_len, '\0');
  LoadFromMedia(e.key, bytes.size(), bytes.data());
  const std::string_view key(bytes.data(), e.key_len);
  const std::string_view value(bytes.data() + e.key_len, e.value_len);
  const uint32_t epoch = PayloadChunkState::Decode(StateOf(chunk)).epoch;
  const uint64_t header =
      EntryHeader(key_hash, key, value, epoch, r.offset, e.expires_at_ms);
  const uint64_t stored = LoadRelaxed(*media_.At<uint64_t>(chunk + r.offset));
  return ((hasher_.Hash(key) ^ key_hash) & hash_mask) == 0 &&
         header == stored && StillValid(chunk, r);
}

Status PayloadLogs::Append(std::string_view key, uint64_t key_hash,
                           std::string_view value, uint64_t expires_at_ms,
                           uint64_t* ref, Ticket* ticket, bool sync) {
  if (!enabled()) {
    return Status::NotSupported(
        "this pool was created without payload logs (payload_log_count = "
        "0): it stores 8-byte keys with 8-byte values only");
  }
  // Concurrent writers hold different thread indexes: they rarely share a
  // log's head line.
  const unsigned index = sync ? 0 : ThreadIndex() % logs_.size();
  Log& log = *logs_[index];
  // Close() sets closed_, then waits for `active` to drop to 0: either it
  // sees this append or this append sees the flag (both seq_cst). A
  // successful append passes its count to the ticket.
  log.active.fetch_add(1, std::memory_order_seq_cst);
  Status s = closed_.load(std::memory_order_seq_cst)
                 ? Status::InvalidArgument("the DB is closed")
                 : AppendToLog(index, key, key_hash, value, expires_at_ms,
                               ref, ticket);
  if (s.ok()) {
    ticket->active_ = &log.active;
  } else {
    log.active.fetch_sub(1, std::memory_order_seq_cst);
  }
  return s;
}

Status PayloadLogs::AppendToLog(unsigned index, std::string_view key,
                                uint64_t key_hash, std::string_view value,
                                uint64_t expires_at_ms, uint64_t* ref,
                                Ticket* ticket) {
  Log& log = *logs_[index];
  if (tickets_held == 0 && !compacting_here &&
      log.deferred.load(std::memory_order_relaxed) != 0) {
    PayDeferred(index);
  }
  const bool expires = expires_at_ms != 0;
  const uint64_t size = EntrySize(key.size(), value.size(), expires);
  const ptrdiff_t key_at = expires ? 16 : 8;
  for (;;) {
    PayloadChunk* c = log.head.load(std::memory_order_acquire);
    if (c != nullptr) {
      // Pending before reserving: a compaction that sees no pending
      // reservation on a sealed chunk sees every reservation in it.
      c->pending.fetch_add(1, std::memory_order_seq_cst);
      const uint64_t offset =
          c->tail.fetch_add(size, std::memory_order_seq_cst);
      if (offset + size <= chunk_size_) {
        thread_local std::string staging;
        staging.assign(size, '\0');
        const uint64_t header = EntryHeader(key_hash, key, value, c->epoch,
                                            offset, expires_at_ms);
        std::memcpy(staging.data(), &header, 8);
        if (expires) std::memcpy(staging.data() + 8, &expires_at_ms, 8);
        // std::copy: an empty key or value may have a null data().
        std::copy(key.begin(), key.end(), staging.begin() + key_at);
        std::copy(
            value.begin(), value.end(),
            staging.begin() + key_at + static_cast<ptrdiff_t>(key.size()));
        char* dst = media_.At<char>(c->offset + offset);
        StoreToMedia(dst, staging.data(), size);
        media_.Flush(dst, size);
        // Raised before the reservation is published: a compaction, which
        // waits for every pending one, sees it.
        const uint64_t expiry = expires ? expires_at_ms : kNoExpiry;
        uint64_t bound = c->expiry_bound.load(std::memory_order_relaxed);
        while (bound < expiry &&
               !c->expiry_bound.compare_exchange_weak(
                   bound, expiry, std::memory_order_relaxed)) {
        }
        *ref =
            Ref{c->id, Ref::EpochBits(c->epoch), static_cast<uint32_t>(offset)}
                .Encode();
        ticket->Release();
        ticket->pending_ = &c->pending;
        ++tickets_held;
        return Status::OK();
      }
      c->pending.fetch_sub(1, std::memory_order_seq_cst);
    }
    Status s = Rotate(index, c);
    if (!s.ok()) return s;
  }
}

Status PayloadLogs::Rotate(unsigned index, PayloadChunk* full) {
  Log& log = *logs_[index];
  PayloadChunk* candidate = nullptr;
  {
    MutexLock lock(&log.mu);
    if (log.head.load(std::memory_order_relaxed) != full) return Status::OK();
    PayloadChunk* fresh = nullptr;
    Status s = TakeChunk(index, &fresh);
    if (!s.ok()) return s;
    log.chunks.push_back(fresh);
    log.head.store(fresh, std::memory_order_release);
    if (full != nullptr) Seal(full);
    if (compacting_here) return Status::OK();
    if (tickets_held > 0) {
      // A writer in the middle of a batch, or copying a re-balance's
      // records: the log's next append without a ticket compacts instead
      // (most rotations of a batch load happen in the middle of a batch,
      // and a re-balance copies a unit's records at once).
      log.deferred.fetch_add(1, std::memory_order_relaxed);
      MutexLock gc(&gc_mu_);
      ++unpaid_rotations_;
      return Status::OK();
    }
    if (log.compacting) {
      // The running compaction frees a chunk for this rotation too. If it
      // falls behind, writers wait for it: many writers must not grow the
      // log faster than its one compactor shrinks it.
      ++log.owed;
      log.caught_up.Wait(&log.mu, [&]() REQUIRES(log.mu) {
        return !log.compacting || log.owed <= kMaxOwedChunks;
      });
      return Status::OK();
    }
    candidate = CompactionCandidate();
    log.compacting = candidate != nullptr;
  }
  RunCompaction(index, candidate);
  return Status::OK();
}

void PayloadLogs::PayDeferred(unsigned index) {
  Log& log = *logs_[index];
  for (;;) {
    PayloadChunk* candidate = nullptr;
    {
      MutexLock lock(&log.mu);
      // A running compaction: this append pays after it.
      if (log.compacting || log.deferred.load(std::memory_order_relaxed) == 0)
        return;
      if (!TakeUnpaidRotation()) {
        // Other rotations freed a chunk more for each.
        log.deferred.store(0, std::memory_order_relaxed);
        return;
      }
      log.deferred.fetch_sub(1, std::memory_order_relaxed);
      candidate = CompactionCandidate();
      log.compacting = candidate != nullptr;
    }
    if (candidate == nullptr) return;
    RunCompaction(index, candidate);
  }
}

void PayloadLogs::RunCompaction(unsigned index, PayloadChunk* candidate) {
  Log& log = *logs_[index];
  compacting_here = true;
  bool repaid = false;  // the one chunk more of this rotation
  while (candidate != nullptr) {
    const bool freed = Compact(candidate);
    MutexLock lock(&log.mu);
    candidate = nullptr;
    if (!freed) {
      log.owed = 0;  // the live data grows: so may the log
    } else if (log.owed > 0) {
      --log.owed;
      candidate = CompactionCandidate();
    } else if (!repaid && TakeUnpaidRotation()) {
      repaid = true;
      candidate = CompactionCandidate();
    }
    log.compacting = candidate != nullptr;
    log.caught_up.NotifyAll();
  }
  compacting_here = false;
}

Status PayloadLogs::TakeChunk(unsigned index, PayloadChunk** out) {
  PayloadChunk* c = nullptr;
  while (c == nullptr) {
    {
      MutexLock lock(&chunks_mu_);
      if (!free_chunks_.empty()) {
        c = free_chunks_.back();
        free_chunks_.pop_back();
      }
    }
    if (c == nullptr) {
      Status s = AddFreeChunk();
      if (!s.ok()) return s;
    }
  }
  const uint64_t seq = next_seq_.fetch_add(1, std::memory_order_relaxed);
  PayloadChunkHeader* h = HeaderOf(c->offset);
  h->seq = seq;
  h->resume = 0;
  StoreRelease(h->state, PayloadChunkState{c->epoch, index, true}.Encode());
  media_.Persist(h, sizeof(PayloadChunkHeader));
  c->seq = seq;
  c->log = index;
  c->expiry_bound.store(0, std::memory_order_relaxed);
  c->tail.store(kPayloadChunkHeaderSize, std::memory_order_relaxed);
  *out = c;
  return Status::OK();
}

// Written as free before it is registered: a crash in between leaks the
// space (below the allocation mark) and nothing else.
Status PayloadLogs::AddFreeChunk() {
  uint64_t offset = 0;
  Status s = pool_->allocator().Allocate(chunk_size_, 4096, &offset);
  if (!s.ok()) return s;
  media_.Prefault(offset, chunk_size_);
  PayloadChunkHeader* h = HeaderOf(offset);
  h->seq = 0;
  h->resume = 0;
  StoreRelease(h->state, PayloadChunkState{1, 0, false}.Encode());
  media_.Persist(h, sizeof(PayloadChunkHeader));
  MutexLock lock(&chunks_mu_);
  uint32_t id = 0;
  s = table_.Add(offset, &id);  // ids follow all_chunks_'s order
  if (!s.ok()) return s;
  PayloadChunk* c = &all_chunks_.emplace_back();
  c->id = id;
  c->offset = offset;
  c->epoch = 1;
  free_chunks_.push_back(c);
  return Status::OK();
}

void PayloadLogs::PrepareFreeChunk() {
  if (!enabled() || closed_.load(std::memory_order_acquire)) return;
  // Under a log's mutex, like a rotation's chunk: PauseRotations (a
  // backup copying the pool) then holds it off too.
  MutexLock rotation(&logs_[0]->mu);
  {
    MutexLock lock(&chunks_mu_);
    if (!free_chunks_.empty()) return;
  }
  (void)AddFreeChunk();
}

PayloadLogs::PayloadChunk* PayloadLogs::CompactionCandidate() {
  MutexLock lock(&gc_mu_);
  if (sealed_.size() < kMinSealedChunks) return nullptr;
  const uint64_t taken = next_seq_.load(std::memory_order_relaxed);
  auto examinable = [&](const PayloadChunk* c) REQUIRES(gc_mu_) {
    return c->examine_after < taken;
  };
  // First the oldest chunk whose entries have all expired (a cache's
  // keys that moved on): garbage, but for the keys whose newest version
  // it still holds, and not worth waiting for as a chunk of live data is.
  auto next = sealed_.end();
  const uint64_t now = clock_.NowMs();
  if (expiring_sealed_ > 0 && now > next_expiry_ms_) {
    uint64_t earliest = kNoExpiry;
    for (auto it = sealed_.begin(); it != sealed_.end(); ++it) {
      if (!(*it)->expiring) continue;
      const uint64_t bound =
          (*it)->expiry_bound.load(std::memory_order_relaxed);
      if (now <= bound) {
        earliest = std::min(earliest, bound);
      } else if (examinable(*it) || (*it)->examined_before_expiry) {
        next = it;
        break;
      }
    }
    if (next == sealed_.end()) next_expiry_ms_ = earliest;
  }
  if (next == sealed_.end()) {
    if (rotations_to_wait_ > 0) {
      --rotations_to_wait_;
      return nullptr;
    }
    // The oldest, but not one found too live in the last round. (Not a
    // cursor over the seqs: the logs seal their chunks out of seq order.)
    next = std::find_if(sealed_.begin(), sealed_.end(), examinable);
  }
  if (next == sealed_.end()) return nullptr;
  PayloadChunk* chunk = *next;
  if (chunk->expiring) --expiring_sealed_;
  chunk->examined_before_expiry = false;
  sealed_.erase(next);
  return chunk;
}

void PayloadLogs::Seal(PayloadChunk* chunk) {
  MutexLock lock(&gc_mu_);
  const auto at =
      std::upper_bound(sealed_.begin(), sealed_.end(), chunk, BySeq);
  sealed_.insert(at, chunk);
  const uint64_t bound = chunk->expiry_bound.load(std::memory_order_relaxed);
  chunk->expiring = Expiring(bound);
  if (chunk->expiring) {
    ++expiring_sealed_;
    next_expiry_ms_ = std::min(next_expiry_ms_, bound);
  }
}

template <typename Fn>
void PayloadLogs::ForEachEntry(const PayloadChunk& chunk, Fn fn) const {
  const char* base = media_.At<char>(chunk.offset);
  // Entries are contiguous, except where a crash left a reservation
  // unwritten: such gaps are skipped word by word until the next entry
  // that passes its check.
  for (uint64_t offset = kPayloadChunkHeaderSize; offset + 8 <= chunk_size_;) {
    const uint64_t header = *reinterpret_cast<const uint64_t*>(base + offset);
    const EntryLayout e = EntryLayout::Decode(header);
    const uint64_t size = e.size();
    if (header != 0 && EntryLayout::EpochMatches(e.epoch_bits, chunk.epoch) &&
        e.key_len <= kMaxKeySize && e.value_len <= kMaxValueSize &&
        offset + size <= chunk_size_) {
      const char* at = base + offset;
      const uint64_t expires_at_ms =
          e.expires ? *reinterpret_cast<const uint64_t*>(at + 8) : 0;
      const std::string_view key(at + e.key_offset(), e.key_len);
      const std::string_view value(key.data() + e.key_len, e.value_len);
      const uint64_t key_hash = hasher_.Hash(key);
      if (EntryHeader(key_hash, key, value, chunk.epoch, offset,
                      expires_at_ms) == header) {
        fn(offset, key, key_hash, size, expires_at_ms);
        offset += size;
        continue;
      }
    }
    offset += 8;
  }
}

bool PayloadLogs::TakeUnpaidRotation() {
  MutexLock lock(&gc_mu_);
  if (unpaid_rotations_ == 0) return false;
  --unpaid_rotations_;
  return true;
}

bool PayloadLogs::Compact(PayloadChunk* chunk) {
  // Reservations made while the chunk was the head must be published (or
  // abandoned) before reachability means anything.
  while (chunk->pending.load(std::memory_order_seq_cst) != 0)
    std::this_thread::yield();

  std::vector<PayloadHost::Candidate> entries;
  std::vector<uint64_t> sizes;
  ForEachEntry(*chunk, [&](uint64_t offset, std::string_view key,
                           uint64_t key_hash, uint64_t size,
                           uint64_t expires_at_ms) {
    const bool expired = Expired(expires_at_ms);
    entries.push_back({key, key_hash,
                       Ref{chunk->id, Ref::EpochBits(chunk->epoch),
                           static_cast<uint32_t>(offset)}
                           .Encode(),
                       expired, expires_at_ms});
    // An expired record moves without its value (below).
    sizes.push_back(expired ? EntrySize(key.size(), 0, /*expires=*/true)
                            : size);
  });
  std::vector<PayloadHost::Reachability> reachability(entries.size());
  host_->ClassifyReachability(entries, reachability.data());
  std::vector<const PayloadHost::Candidate*> live;
  uint64_t live_bytes = 0;
  bool blocked = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    switch (reachability[i]) {
      case PayloadHost::Reachability::kReachable:
        live.push_back(&entries[i]);
        live_bytes += sizes[i];
        break;
      case PayloadHost::Reachability::kBlocked:
        blocked = true;
        break;
      case PayloadHost::Reachability::kUnreachable:
        break;
    }
  }
  bool freed =
      !blocked && live_bytes * 2 <= chunk_size_ - kPayloadChunkHeaderSize;
  uint64_t moved = 0;
  for (size_t i = 0; freed && i < live.size(); ++i) {
    const PayloadHost::Candidate& entry = *live[i];
    Ticket ticket;  // until the host published the copy
    auto copy = [&](uint64_t* copy_ref) -> Status {
      std::string value;
      uint64_t expires_at_ms = 0;
      switch (ReadValue(entry.ref, entry.key, &value, &expires_at_ms)) {
        case table::RefMatch::kYes:
          break;
        case table::RefMatch::kExpired:
          // Still the key's newest version, so that it keeps hiding the
          // older ones; its value is garbage, and stays so whatever the
          // clock does later.
          value.clear();
          expires_at_ms = kExpiredLongAgo;
          break;
        default:
          return Status::NotFound("payload entry changed");
      }
      return Append(entry.key, entry.key_hash, value, expires_at_ms,
                    copy_ref, &ticket);
    };
    PayloadHost::Relocation r = PayloadHost::Relocation::kUnreachable;
    const Status s = host_->Relocate(entry, copy, &r);
    if (!s.ok() || r == PayloadHost::Relocation::kBlocked) freed = false;
    if (r == PayloadHost::Relocation::kMoved) ++moved;
  }
  gc_moved_.Add(moved);
  if (freed) {
    // Every reachable entry has a newer copy now. Bumping the epoch makes
    // all references into the chunk dangle; it is persisted before the
    // chunk can be reused.
    const uint32_t epoch = chunk->epoch + 1 == 0 ? 1 : chunk->epoch + 1;
    PayloadChunkHeader* h = HeaderOf(chunk->offset);
    // What left an entry unreachable (a newer version, a relocation's
    // copy) must reach the media before the free can: a sync write's log
    // append waits for its writer's sync (Media::DrainBeforeSync), and on
    // a power-fail-safe file this barrier is a sync of the pool.
    media_.Drain();
    // Counted before the epoch changes: a lookup that sees the new epoch
    // then also sees the count move (table::PayloadResolver).
    frees_started_.fetch_add(1, std::memory_order_seq_cst);
    StoreRelease(h->state,
                 PayloadChunkState{epoch, chunk->log, false}.Encode());
    media_.Persist(&h->state, sizeof(h->state));
    chunk->epoch = epoch;
  }
  if (!freed) {
    MutexLock lock(&gc_mu_);
    // A chunk too live to pay off: examined again once as many chunks
    // were taken as are sealed now (the others had their turn), and
    // wait a few rotations (an eighth of the sealed chunks, at most 16)
    // before examining the next one, so that growing live data costs at
    // most one examined chunk per 16 written, while garbage is still
    // found soon once it appears. A block by unlogged writes ends with
    // the next checkpoint: retry soon.
    chunk->examine_after = next_seq_.load(std::memory_order_relaxed) +
                           (blocked ? 0 : sealed_.size());
    const uint64_t bound = chunk->expiry_bound.load(std::memory_order_relaxed);
    chunk->examined_before_expiry =
        Expiring(bound) && clock_.NowMs() <= bound;
    rotations_to_wait_ =
        blocked ? 1 : std::clamp<size_t>(sealed_.size() / 8, 1, 16);
    if (blocked) unpaid_rotations_ += 2;  // this rotation and the wait
  }
  if (freed) {
    Log& log = *logs_[chunk->log];
    {
      MutexLock lock(&log.mu);
      log.chunks.erase(std::find(log.chunks.begin(), log.chunks.end(), chunk));
    }
    MutexLock lock(&chunks_mu_);
    free_chunks_.push_back(chunk);
    gc_runs_.fetch_add(1, std::memory_order_relaxed);
  } else {
    Seal(chunk);
    gc_skipped_.fetch_add(1, std::memory_order_relaxed);
  }
  return freed;
}

void PayloadLogs::PauseRotations() {
  for (auto& log : logs_) log->mu.Lock();
}

void PayloadLogs::ResumeRotations() {
  for (auto& log : logs_) log->mu.Unlock();
}

void PayloadLogs::Close() {
  closed_.store(true, std::memory_order_seq_cst);
  for (auto& log : logs_) {
    while (log->active.load(std::memory_order_seq_cst) != 0)
      std::this_thread::yield();
  }
  for (auto& log : logs_) {
    PayloadChunk* head = log->head.load(std::memory_order_acquire);
    if (head == nullptr) continue;
    PayloadChunkHeader* h = HeaderOf(head->offset);
    h->resume =
        std::min(head->tail.load(std::memory_order_relaxed), chunk_size_);
    media_.Persist(&h->resume, sizeof(h->resume));
  }
}

uint64_t PayloadLogs::Verify(std::string* report) const {
  uint64_t problems = 0;
  const uint64_t logs = logs_.size();
  for (uint64_t id = 0; id < table_.count(); ++id) {
    const uint64_t offset = table_.OffsetOf(id);
    const uint64_t word = StateOf(offset);
    if (!StateIsValid(word, logs)) {
      ++problems;
      if (report != nullptr) {
        *report += "payload chunk " + std::to_string(id) + " @" +
                   std::to_string(offset) + ": bad state word " +
                   std::to_string(word) + "\n";
      }
    }
  }
  return problems;
}

}  // namespace plush::payload
