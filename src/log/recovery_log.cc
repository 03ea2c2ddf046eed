// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "log/recovery_log.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <thread>

namespace plush::log {
namespace {

// What a chunk's first provision backs: a log that holds a few records
// takes a few pages.
constexpr uint64_t kFirstProvisionBytes = 64 << 10;
constexpr uint64_t kPageBytes = 4096;

bool IsZero(const uint64_t* words) {
  return (words[0] | words[1] | words[2]) == 0;
}

}  // namespace

RecoveryLogs::RecoveryLogs(pool::Pool* pool, LogHost* host,
                           const IncompleteBatchHook* incomplete_batches)
    : media_(pool->media()),
      host_(host),
      entries_per_chunk_(EntriesPerChunk(pool->params().log_chunk_size)),
      chunks_per_log_(pool->params().log_chunks_per_log),
      spill_(pool, host),
      incomplete_batches_(incomplete_batches) {
  const pool::PoolParams& p = pool->params();
  for (unsigned l = 0; l < p.log_count; ++l) {
    auto log = std::make_unique<Log>();
    log->chunks = std::make_unique<LogChunk[]>(chunks_per_log_);
    log->free_chunks.store(chunks_per_log_, std::memory_order_relaxed);
    for (unsigned c = 0; c < chunks_per_log_; ++c) {
      const uint64_t offset =
          pool::kLogRegionOffset +
          (uint64_t{l} * chunks_per_log_ + c) * p.log_chunk_size;
      LogChunk& chunk = log->chunks[c];
      chunk.offset = offset;
      chunk.state = media_.At<uint64_t>(offset);
      chunk.entries = media_.At<uint64_t>(offset + kLogChunkHeaderSize);
      chunk.header = LogChunkState::Decode(*chunk.state);
    }
    logs_.push_back(std::move(log));
  }
}

RecoveryLogs::~RecoveryLogs() = default;

Status RecoveryLogs::Format(pool::Pool& pool) {
  const pool::PoolParams& p = pool.params();
  media::Media& media = pool.media();
  const uint64_t chunks = uint64_t{p.log_count} * p.log_chunks_per_log;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t offset = pool::kLogRegionOffset + c * p.log_chunk_size;
    // The region is a hole: back the page of the state word first.
    Status s = media.Back(offset, kPageBytes);
    if (!s.ok()) return s.WithContext("formatting the recovery logs");
    auto* state = media.At<uint64_t>(offset);
    *state = LogChunkState{}.Encode();
    media.Flush(state, sizeof(uint64_t));
  }
  return Status::OK();
}

Status RecoveryLogs::Provision(Log& lg, LogChunk& chunk, uint64_t slots) {
  lg.rotate_mu.AssertHeld();
  const uint64_t backed = chunk.backed.load(std::memory_order_relaxed);
  if (slots <= backed) return Status::OK();
  const uint64_t chunk_size = kLogChunkHeaderSize + entries_per_chunk_ * kEntrySize;
  const uint64_t from = kLogChunkHeaderSize + backed * kEntrySize;
  const uint64_t step = std::max(kFirstProvisionBytes, from);
  uint64_t to = std::max(from + step, kLogChunkHeaderSize + slots * kEntrySize);
  to = std::min((to + kPageBytes - 1) / kPageBytes * kPageBytes, chunk_size);
  const uint64_t first_page = from / kPageBytes * kPageBytes;
  Status s = media_.Back(chunk.offset + first_page, to - first_page);
  if (!s.ok()) return s.WithContext("growing a recovery-log chunk");
  media_.Prefault(chunk.offset + first_page, to - first_page);
  // Slots backed before this opening of the pool may hold any older
  // generation: zeroed like every slot no run writes (ZeroSlots).
  const uint64_t now_backed =
      std::min(entries_per_chunk_, (to - kLogChunkHeaderSize) / kEntrySize);
  ZeroSlots(chunk, backed, now_backed);
  chunk.backed.store(now_backed, std::memory_order_release);
  return Status::OK();
}

void RecoveryLogs::SetState(LogChunk& c, const LogChunkState& s) {
  c.header = s;
  std::atomic_ref<uint64_t>(*c.state).store(s.Encode(),
                                            std::memory_order_relaxed);
  media_.Persist(c.state, sizeof(uint64_t));
}

bool RecoveryLogs::Reserve(unsigned log, uint64_t n, LogChunk** chunk,
                           uint64_t* slot, uint32_t* chunk_seen) {
  Log& lg = *logs_[log];
  const uint64_t cursor = lg.cursor.fetch_add(n, std::memory_order_acq_rel);
  const auto index = static_cast<uint32_t>(cursor >> 32);
  *slot = cursor & 0xFFFFFFFF;
  *chunk_seen = index;
  // A run that does not fit leaves the chunk full: the caller rotates.
  if (index == kNoChunk || *slot + n > entries_per_chunk_) {
    if (index != kNoChunk && *slot < entries_per_chunk_) {
      LogChunk& full = lg.chunks[index];
      ZeroSlots(full, *slot,
                std::min(full.backed.load(std::memory_order_acquire),
                         entries_per_chunk_));
    }
    return false;
  }
  *chunk = &lg.chunks[index];
  // So does a run past the backed slots, and the caller's Rotate() backs
  // more.
  const uint64_t backed = (*chunk)->backed.load(std::memory_order_acquire);
  if (*slot + n > backed) {
    if (*slot < backed) ZeroSlots(**chunk, *slot, backed);
    uint64_t wanted = lg.wanted.load(std::memory_order_relaxed);
    while (n > wanted &&
           !lg.wanted.compare_exchange_weak(wanted, n,
                                            std::memory_order_relaxed)) {
    }
    return false;
  }
  // Recycling ahead is due once no chunk is free; before that, only
  // whether rewrites would pay is, which every fourth chunk asks (and
  // every rotation): waking the background threads costs the writers
  // CPU on a small machine.
  const uint64_t half = entries_per_chunk_ / 2;
  if (*slot <= half && half < *slot + n &&
      (lg.free_chunks.load(std::memory_order_relaxed) == 0 ||
       lg.halves.fetch_add(1, std::memory_order_relaxed) % 4 == 0)) {
    host_->ChunkHalfWritten(log);
  }
  return true;
}

void RecoveryLogs::ZeroSlots(LogChunk& chunk, uint64_t from, uint64_t to) {
  if (from >= to) return;
  // Streamed word by word, as appends write: a reader sampling the chunk
  // (MostlySuperseded) may be reading these slots.
  static constexpr uint64_t kZeros[kEntryWords * 64] = {};
  for (uint64_t slot = from; slot < to; slot += 64) {
    const uint64_t n = std::min<uint64_t>(64, to - slot);
    media_.StreamWords(chunk.entries + slot * kEntryWords, kZeros,
                       n * kEntryWords);
  }
  media_.Drain();
}

void RecoveryLogs::RaiseMaxEpoch(LogChunk& c, uint64_t epoch) {
  uint64_t max = c.max_epoch.load(std::memory_order_relaxed);
  while (epoch > max && !c.max_epoch.compare_exchange_weak(
                            max, epoch, std::memory_order_relaxed)) {
  }
}

bool RecoveryLogs::TryAppend(unsigned log, const LogRecord& record,
                             bool foreign, uint32_t* chunk_seen,
                             bool writer_syncs) {
  if (!foreign) {
    return AppendOne(log, record, record.epoch, chunk_seen, writer_syncs);
  }
  // The record's epoch is its own entry's, not comparable with those of
  // the log's entries (RecycleOldest).
  MutexLock lock(&logs_[log]->foreign_append_mu);
  return AppendOne(log, record, kForeign, chunk_seen, writer_syncs);
}

bool RecoveryLogs::AppendOne(unsigned log, const LogRecord& record,
                             uint64_t chunk_epoch, uint32_t* chunk_seen,
                             bool writer_syncs) {
  LogChunk* c = nullptr;
  uint64_t slot = 0;
  if (!Reserve(log, 1, &c, &slot, chunk_seen)) return false;
  uint64_t words[kEntryWords];
  EncodeEntry(record, c->header.check, words);
  media_.StreamWords(c->entries + slot * kEntryWords, words, kEntryWords);
  DrainAppend(writer_syncs);
  RaiseMaxEpoch(*c, chunk_epoch);
  return true;
}

bool RecoveryLogs::TryAppendBatch(unsigned log, const LogRecord* records,
                                  size_t n, const BatchSpill::Lease& spill,
                                  bool foreign, uint32_t* chunk_seen,
                                  bool writer_syncs) {
  if (!foreign) {
    return AppendBatch(log, records, n, spill, chunk_seen, writer_syncs);
  }
  MutexLock lock(&logs_[log]->foreign_append_mu);
  return AppendBatch(log, records, n, spill, chunk_seen, writer_syncs);
}

bool RecoveryLogs::AppendBatch(unsigned log, const LogRecord* records,
                               size_t n, const BatchSpill::Lease& spill,
                               uint32_t* chunk_seen, bool writer_syncs) {
  const bool spilled = !FitsOneChunk(n);
  LogChunk* c = nullptr;
  uint64_t slot = 0;
  if (!Reserve(log, spilled ? 1 : n + 1, &c, &slot, chunk_seen)) return false;
  uint64_t* at = c->entries + slot * kEntryWords;
  uint64_t words[kEntryWords];
  LogRecord commit;
  commit.key = n;
  commit.type = EntryType::kCommit;
  if (spilled) {
    commit.value = spill_.Write(spill, records, n);
    commit.position = kSpilledCommit;
  } else {
    for (size_t i = 0; i < n; ++i, at += kEntryWords) {
      LogRecord member = records[i];
      member.type = EntryType::kMember;
      EncodeEntry(member, c->header.check, words);
      media_.StreamWords(at, words, kEntryWords);
    }
  }
  EncodeEntry(commit, c->header.check, words);
  media_.StreamWords(at, words, kEntryWords);
  DrainAppend(writer_syncs);
  if (spilled) spill_.Hold(spill, n, commit.value);
  RaiseMaxEpoch(*c, kForeign);
  return true;
}

template <typename OnRecord, typename OnSpilled, typename OnInvalid>
Status RecoveryLogs::ScanChunk(const LogChunk& chunk, OnRecord on_record,
                               OnSpilled on_spilled,
                               OnInvalid on_invalid) const {
  // The members of the batch being read, and where they started.
  thread_local std::vector<LogRecord> members;
  members.clear();
  uint64_t first_member = 0;
  Status error;
  auto abandon_batch = [&] {
    if (members.empty()) return;
    if (incomplete_batches_ != nullptr && error.ok()) {
      error = incomplete_batches_->OnIncompleteBatch(members, on_record);
    } else {
      for (uint64_t i = 0; i < members.size(); ++i)
        on_invalid(first_member + i);
    }
    members.clear();
  };
  for (uint64_t slot = 0; slot < entries_per_chunk_; ++slot) {
    const uint64_t* words = chunk.entries + slot * kEntryWords;
    LogRecord r;
    if (!DecodeEntry(words, chunk.header.check, &r)) {
      abandon_batch();
      if (!IsZero(words)) on_invalid(slot);
      continue;
    }
    switch (r.type) {
      case EntryType::kRecord: {
        abandon_batch();
        Status s = on_record(r);
        if (!s.ok()) return s;
        break;
      }
      case EntryType::kMember:
        if (members.empty()) first_member = slot;
        members.push_back(r);
        break;
      case EntryType::kCommit:
        if (r.position == kSpilledCommit) {
          abandon_batch();  // members of a torn batch before it
          Status s = on_spilled(r, slot);
          if (!s.ok()) return s;
          break;
        }
        if (r.position != 0 || members.size() != r.key) {
          abandon_batch();
          on_invalid(slot);
          break;
        }
        for (const LogRecord& m : members) {
          Status s = on_record(m);
          if (!s.ok()) return s;
        }
        members.clear();
        break;
    }
  }
  abandon_batch();  // a run of members never spans chunks
  return error;
}

Status RecoveryLogs::Rotate(unsigned log, uint32_t chunk_seen) {
  Log& lg = *logs_[log];
  MutexLock lock(&lg.rotate_mu);
  // Close() takes every rotation mutex after setting the flag.
  if (closed_.load()) return Status::InvalidArgument("the DB is closed");
  // Rotate only if the chunk the caller saw is still current *and* full. The
  // fullness test matters: the chunk may have been recycled and activated
  // again since (same index, fresh slots), and must not be abandoned half
  // empty: RecycleOldest waits for every slot of a chunk to be written.
  const uint64_t cursor = lg.cursor.load(std::memory_order_acquire);
  if (static_cast<uint32_t>(cursor >> 32) != chunk_seen) return Status::OK();
  const uint64_t next_slot = cursor & 0xFFFFFFFF;
  if (chunk_seen != kNoChunk && next_slot < entries_per_chunk_) {
    // Not full: the append that failed wanted slots not backed yet.
    return Provision(lg, lg.chunks[chunk_seen],
                     next_slot + lg.wanted.load(std::memory_order_relaxed));
  }
  unsigned free = FreeChunk(lg);
  if (free == chunks_per_log_) {
    // The current chunk is full: a rewrite's survivors would find no room.
    Status s = RecycleOldest(log, lg, LogHost::RetireBy::kMigrating);
    if (!s.ok()) return s;
    free = FreeChunk(lg);
  } else if (!HasStorage(lg.chunks[free]) && OldestOfExpiredEntries(lg)) {
    // Rather than new storage, the oldest chunk if its entries expired (a
    // cache's writes after a quiet spell in which its keys expired, which
    // RecyclingPays judged still needed at its last look): their rewrites
    // drop every record and need no room in the full current chunk.
    Status s = RecycleOldest(log, lg, LogHost::RetireBy::kRewritingOnly);
    if (!s.ok()) return s;
    // A rewrite that did need room went on in a free chunk, which is
    // current now (RetireAll); or it stopped the recycling, and the
    // rotation takes the storage after all.
    if (static_cast<uint32_t>(lg.cursor.load(std::memory_order_acquire) >>
                              32) != chunk_seen) {
      return Status::OK();
    }
    free = FreeChunk(lg);
  }
  Status s = Activate(
      lg, free, std::max<uint64_t>(1, lg.wanted.load(std::memory_order_relaxed)));
  if (!s.ok()) return s;
  // Rather than let the next rotation take new storage, free the oldest
  // chunk now if rewrites pay (the background threads, if any, have not).
  // Its error (a migration finding the pool full) fails no write yet: the
  // rotation that needs a chunk meets it again. A log without a free chunk
  // is left to that rotation.
  (void)RecycleAheadLocked(log, lg, /*when_none_is_free=*/false);
  return Status::OK();
}

bool RecoveryLogs::RecyclingPays(unsigned log, Log& lg) const {
  unsigned in_use = 0;
  for (unsigned c = 0; c < chunks_per_log_; ++c)
    in_use += lg.chunks[c].header.in_use ? 1 : 0;
  if (in_use < 2) return false;
  // A log that keeps growing past the same oldest chunk (records still
  // needed: inserts) asks again only every few times: asking reads a
  // sample of the chunk and every DRAM entry's epoch.
  const LogChunk& oldest = *OldestChunk(lg);
  if (oldest.header.log_seq == lg.judged_seq &&
      ++lg.asked_since_judged < kAsksPerJudgement) {
    return false;
  }
  // A chunk whose records are all on PMem (or rewritten) costs nothing to
  // free: it is not even read.
  const bool pays = oldest.max_epoch.load(std::memory_order_relaxed) <
                        host_->MinDramEpoch(log) ||
                    MostlySuperseded(oldest);
  // Only a "no" is remembered: a chunk worth freeing that the rewrites
  // could not free whole (their survivors did not all fit in the current
  // chunk) is asked about again at the next rotation, before the log
  // takes storage for another chunk.
  lg.judged_seq = pays ? 0 : oldest.header.log_seq;
  lg.asked_since_judged = 0;
  return pays;
}

Status RecoveryLogs::Activate(Log& lg, unsigned free, uint64_t slots) {
  LogChunk& c = lg.chunks[free];
  Status s = Provision(lg, c, slots);
  if (!s.ok()) return s;
  c.max_epoch.store(0, std::memory_order_relaxed);
  SetState(c, LogChunkState{lg.next_seq++, true, c.header.check});
  lg.free_chunks.fetch_sub(1, std::memory_order_relaxed);
  lg.cursor.store(uint64_t{free} << 32, std::memory_order_release);
  return Status::OK();
}

uint64_t RecoveryLogs::backed_bytes() const {
  uint64_t bytes = 0;
  for (const auto& lg : logs_) {
    for (unsigned c = 0; c < chunks_per_log_; ++c) {
      const uint64_t end =
          kLogChunkHeaderSize +
          lg->chunks[c].backed.load(std::memory_order_relaxed) * kEntrySize;
      bytes += (end + kPageBytes - 1) / kPageBytes * kPageBytes;
    }
  }
  return bytes;
}

unsigned RecoveryLogs::FreeChunk(const Log& lg) const {
  unsigned free = chunks_per_log_;
  for (unsigned c = 0; c < chunks_per_log_; ++c) {
    const LogChunk& chunk = lg.chunks[c];
    if (!chunk.header.in_use &&
        (free == chunks_per_log_ ||
         chunk.backed.load(std::memory_order_relaxed) >
             lg.chunks[free].backed.load(std::memory_order_relaxed))) {
      free = c;
    }
  }
  return free;
}

RecoveryLogs::LogChunk* RecoveryLogs::OldestChunk(Log& lg) const {
  LogChunk* oldest = nullptr;
  for (unsigned c = 0; c < chunks_per_log_; ++c) {
    LogChunk& chunk = lg.chunks[c];
    if (chunk.header.in_use &&
        (oldest == nullptr || chunk.header.log_seq < oldest->header.log_seq)) {
      oldest = &chunk;
    }
  }
  return oldest;
}

template <typename Fn>
void RecoveryLogs::SampleRecordsInDram(const LogChunk& chunk, Fn fn) const {
  // Every 32nd slot decides, read on its own (no batch checked: a slot
  // whose batch is incomplete only blurs an estimate): a chunk's records
  // come in runs of rounds of writes, which a sample that sparse still
  // sees, and a rotation that samples costs its writer a few µs.
  constexpr uint64_t kStride = 32;
  const uint64_t slots =
      std::min(chunk.backed.load(std::memory_order_relaxed), entries_per_chunk_);
  for (uint64_t slot = 0; slot < slots; slot += kStride) {
    uint64_t* words = chunk.entries + slot * kEntryWords;
    uint64_t in[kEntryWords];
    for (uint64_t w = 0; w < kEntryWords; ++w)
      in[w] = std::atomic_ref<uint64_t>(words[w]).load(
          std::memory_order_relaxed);
    LogRecord r;
    // Records on PMem already cost nothing to recycle and count neither
    // way.
    if (!DecodeEntry(in, chunk.header.check, &r) ||
        r.type == EntryType::kCommit || r.epoch < host_->DramEpochOf(r)) {
      continue;
    }
    if (!fn(r)) return;
  }
}

bool RecoveryLogs::MostlySuperseded(const LogChunk& chunk) const {
  // (A chunk of records on PMem and of records still needed is worth
  // growing past, as one of records mostly superseded is not.)
  uint64_t sampled = 0;
  uint64_t superseded = 0;
  SampleRecordsInDram(chunk, [&](const LogRecord& r) {
    ++sampled;
    superseded += host_->Superseded(r) ? 1 : 0;
    return true;
  });
  return 2 * superseded >= sampled;
}

bool RecoveryLogs::OldestOfExpiredEntries(Log& lg) const {
  const LogChunk* oldest = OldestChunk(lg);
  if (oldest == nullptr) return false;
  bool expired = true;
  SampleRecordsInDram(*oldest, [&](const LogRecord& r) {
    expired = host_->EntryExpired(r);
    return expired;
  });
  return expired;
}

bool RecoveryLogs::HasStorage(const LogChunk& c) const {
  return c.backed.load(std::memory_order_relaxed) > 0 ||
         kLogChunkHeaderSize + entries_per_chunk_ * kEntrySize <= kPageBytes;
}

Status RecoveryLogs::RecycleAhead(unsigned log) {
  Log& lg = *logs_[log];
  MutexLock lock(&lg.rotate_mu);
  if (closed_.load()) return Status::InvalidArgument("the DB is closed");
  return RecycleAheadLocked(log, lg, /*when_none_is_free=*/true);
}

Status RecoveryLogs::RecycleAheadLocked(unsigned log, Log& lg,
                                        bool when_none_is_free) {
  if (chunks_per_log_ <= 2) return Status::OK();
  const unsigned free = FreeChunk(lg);
  if (free == chunks_per_log_ && !when_none_is_free) return Status::OK();
  // A free chunk with storage: the next rotation reuses it.
  if (free != chunks_per_log_ && HasStorage(lg.chunks[free])) {
    return Status::OK();
  }
  if (free == chunks_per_log_) {
    return RecycleOldest(log, lg,
                         RecyclingPays(log, lg)
                             ? LogHost::RetireBy::kRewritingOrMigrating
                             : LogHost::RetireBy::kMigrating);
  }
  // A free chunk would take new storage: worth it while the oldest chunk
  // still holds mostly records that recovery needs; once most are
  // superseded (keys written again, or expired), rewriting their entries
  // frees it for a fraction of a chunk of appends, and the logs stop
  // growing with writes that replace records. Entries whose records are
  // mostly live stay as they are: migrating them would spread their units
  // below the DRAM level to save a chunk.
  // Up to two chunks at once: a log that grew while its oldest chunk was
  // still needed shrinks back.
  for (int freed = 0; freed < 2 && RecyclingPays(log, lg); ++freed) {
    const uint64_t before = compactions_.Read();
    Status s = RecycleOldest(log, lg, LogHost::RetireBy::kRewritingOnly);
    if (!s.ok() || compactions_.Read() == before) return s;
  }
  return Status::OK();
}

void RecoveryLogs::PutInRetirementOrder(std::vector<LogRecord>* records) const {
  if (records->size() < 2) return;
  auto entry = [&](const LogRecord& r) { return host_->DramIndexOf(r); };
  std::sort(records->begin(), records->end(),
            [&](const LogRecord& a, const LogRecord& b) {
              return entry(a) < entry(b);
            });
  records->erase(std::unique(records->begin(), records->end(),
                             [&](const LogRecord& a, const LogRecord& b) {
                               return entry(a) == entry(b);
                             }),
                 records->end());
}

// A group of rewrites shares its two barriers (LogHost::RewriteAll). An
// entry a rewrite would not pay for is then migrated, if `by` allows it.
Status RecoveryLogs::RetireAll(Log& lg, std::span<const LogRecord> records,
                               LogHost::RetireBy by, bool* left,
                               bool* no_room) {
  lg.rotate_mu.AssertHeld();
  assert(records.size() <= kRewriteGroup);
  std::array<LogHost::Retired, kRewriteGroup> how;
  for (size_t first = 0; first < records.size();) {
    size_t n = records.size() - first;
    const std::span<const LogRecord> some = records.subspan(first, n);
    std::fill(how.begin(), how.begin() + n, LogHost::Retired::kLeft);
    if (by != LogHost::RetireBy::kMigrating) {
      host_->RewriteAll(some, {how.data(), n});
    }
    for (size_t i = 0; i < n; ++i) {
      if (how[i] == LogHost::Retired::kNoRoom) {
        // A rewrite that filled this log's current chunk goes on in a free
        // one (backed whole: rewrites append runs).
        if ((lg.cursor.load(std::memory_order_acquire) & 0xFFFFFFFF) <
                entries_per_chunk_ ||
            FreeChunk(lg) == chunks_per_log_) {
          *no_room = true;
          return Status::OK();
        }
        Status s = Activate(lg, FreeChunk(lg), entries_per_chunk_);
        if (!s.ok()) return s;
        n = i;  // the rest again, from this one
        break;
      }
      if (how[i] != LogHost::Retired::kLeft) continue;
      if (by == LogHost::RetireBy::kRewritingOnly) {
        *left = true;
        continue;
      }
      LogHost::Retired migrated = LogHost::Retired::kAlready;
      Status s = host_->Retire(some[i], LogHost::RetireBy::kMigrating,
                               &migrated);
      if (!s.ok()) return s;
      if (migrated == LogHost::Retired::kMigrated) forced_migrations_.Add(1);
    }
    first += n;
  }
  return Status::OK();
}

Status RecoveryLogs::RecycleOldest(unsigned log, Log& lg,
                                   LogHost::RetireBy by) {
  lg.rotate_mu.AssertHeld();
  LogChunk* oldest = OldestChunk(lg);
  // Survivors of a rewrite go to the current chunk (never the one freed),
  // all of whose storage they may need.
  const auto current =
      static_cast<uint32_t>(lg.cursor.load(std::memory_order_acquire) >> 32);
  if (by != LogHost::RetireBy::kMigrating &&
      (current == kNoChunk || &lg.chunks[current] == oldest ||
       !Provision(lg, lg.chunks[current], entries_per_chunk_).ok())) {
    if (by == LogHost::RetireBy::kRewritingOnly) return Status::OK();
    by = LogHost::RetireBy::kMigrating;
  }
  // A writer that reserved a slot of this chunk long ago may still be
  // writing it: let every append in progress finish first.
  host_->WaitForAppends(log);
  { MutexLock foreign_appends(&lg.foreign_append_mu); }
  if (oldest->max_epoch.load(std::memory_order_relaxed) >=
      host_->MinDramEpoch(log)) {
    // A rewrite that finds no room (a full log, or another log's current
    // chunk full) stops the recycling, and a record left where it is
    // (kRewritingOnly) keeps the chunk: it stays in use; what was
    // rewritten no longer needs it, and the next recycling goes on from
    // there. The records still needed are retired as the scan meets
    // them, in groups where a barrier is an msync (kRewriteGroup entries
    // share two: LogHost::RewriteAll), one at a time elsewhere, so that
    // writers do not wait for the locks of a whole group.
    const size_t group = media_.ordered_barriers() ? kRewriteGroup : 1;
    bool left = false;
    bool no_room = false;
    std::vector<LogRecord> pending;
    auto retire_pending = [&] {
      lg.rotate_mu.AssertHeld();  // (held by the caller of the scan)
      PutInRetirementOrder(&pending);
      const Status s = RetireAll(lg, pending, by, &left, &no_room);
      pending.clear();
      return s;
    };
    Status s = ScanChunk(
        *oldest,
        [&](const LogRecord& r) {
          if (r.epoch < host_->DramEpochOf(r)) return Status::OK();  // on PMem
          pending.push_back(r);
          if (pending.size() < group) return Status::OK();
          const Status retired = retire_pending();
          return retired.ok() && no_room ? Status::Busy("no room") : retired;
        },
        [&](const LogRecord& commit, uint64_t) {
          return spill_.MigrateIfHeld(commit.key, commit.value);
        },
        [](uint64_t) {});
    if (s.ok() && !pending.empty()) s = retire_pending();
    if (no_room) return Status::OK();
    if (!s.ok()) return s.WithContext("recycling a recovery-log chunk");
    if (left) return Status::OK();
  }
  lg.free_chunks.fetch_add(1, std::memory_order_relaxed);
  SetState(*oldest, LogChunkState{oldest->header.log_seq, false,
                               LogChunkState::NextCheck(oldest->header.check)});
  compactions_.Add(1);
  return Status::OK();
}

Status RecoveryLogs::Recover(unsigned threads, const ReplayFn& replay,
                             uint64_t* replayed) {
  Status loaded = spill_.Load();
  if (!loaded.ok()) return loaded;
  std::atomic<unsigned> next{0};
  std::atomic<uint64_t> count{0};
  std::vector<Status> errors(std::max(1u, threads));
  auto worker = [&](unsigned id) {
    for (unsigned l = next.fetch_add(1); l < log_count();
         l = next.fetch_add(1)) {
      uint64_t n = 0;
      Status s = RecoverLog(l, replay, &n);
      count.fetch_add(n);
      if (!s.ok()) {
        errors[id] = s;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < errors.size(); ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& t : pool) t.join();
  for (Status& s : errors) {
    if (!s.ok()) return s;
  }
  *replayed = count.load();
  return Status::OK();
}

Status RecoveryLogs::RecoverLog(unsigned log, const ReplayFn& replay,
                                uint64_t* replayed) {
  Log& lg = *logs_[log];
  std::vector<LogChunk*> in_use;
  for (unsigned c = 0; c < chunks_per_log_; ++c) {
    LogChunk& chunk = lg.chunks[c];
    chunk.header = LogChunkState::Decode(*chunk.state);
    if (chunk.header.check == 0 ||
        (chunk.header.in_use && chunk.header.log_seq == 0)) {
      return Status::Corruption("recovery log " + std::to_string(log) +
                                " chunk " + std::to_string(c) +
                                ": damaged state word");
    }
    lg.next_seq = std::max(lg.next_seq, chunk.header.log_seq + 1);
    if (chunk.header.in_use) in_use.push_back(&chunk);
  }
  lg.free_chunks.store(chunks_per_log_ - static_cast<unsigned>(in_use.size()),
                       std::memory_order_relaxed);
  // A free chunk's header page was read for its generation only: out of
  // the process's resident memory until the chunk is used (a new pool's
  // 1,024 of them are 4 MiB).
  for (unsigned c = 0; c < chunks_per_log_; ++c) {
    if (!lg.chunks[c].header.in_use)
      media_.ReleasePages(lg.chunks[c].offset, kPageBytes);
  }
  std::sort(in_use.begin(), in_use.end(), [](const LogChunk* a, const LogChunk* b) {
    return a->header.log_seq < b->header.log_seq;
  });
  std::vector<LogRecord> spilled;
  for (LogChunk* chunk : in_use) {
    uint64_t max_epoch = 0;
    auto& runs = chunk->invalid_runs;
    runs.clear();
    auto on_record = [&](const LogRecord& r) {
      // A batch member may belong to another log's DRAM entry.
      max_epoch = r.type == EntryType::kMember ? kForeign
                                               : std::max(max_epoch, r.epoch);
      ++*replayed;
      return replay(log, r);
    };
    // Torn, stale or uncommitted: zeroed once recovery succeeded.
    auto on_invalid = [&](uint64_t slot) {
      if (!runs.empty() && runs.back().first + runs.back().second == slot) {
        ++runs.back().second;
      } else {
        runs.emplace_back(slot, 1);
      }
    };
    // A spilled commit whose members the area no longer matches is torn,
    // or its batch reached PMem before the area was reused: nothing to
    // replay either way.
    auto on_spilled = [&](const LogRecord& commit, uint64_t slot) {
      const bool whole = spill_.ReadBatch(commit.key, commit.value, &spilled);
      if (whole) spill_.NoteRecovered(commit.key, commit.value);
      if (!whole) {
        on_invalid(slot);
        return incomplete_batches_ == nullptr
                   ? Status::OK()
                   : incomplete_batches_->OnIncompleteBatch(spilled, on_record);
      }
      for (const LogRecord& m : spilled) {
        Status s = on_record(m);
        if (!s.ok()) return s;
      }
      return Status::OK();
    };
    Status s = ScanChunk(*chunk, on_record, on_spilled, on_invalid);
    if (!s.ok()) return s;
    // The sync log may hold any entry's records (kSyncLog).
    chunk->max_epoch.store(log == kSyncLog ? kForeign : max_epoch);
  }
  lg.cursor.store(uint64_t{kNoChunk} << 32);
  return Status::OK();
}

// Zeroing torn and stale slots ensures that no later generation of a chunk
// can mistake a mix of old and new words for an entry (log_format.h).
void RecoveryLogs::ZeroInvalidSlots() {
  const uint64_t zero[kEntryWords] = {0, 0, 0};
  for (auto& log : logs_) {
    for (unsigned c = 0; c < chunks_per_log_; ++c) {
      LogChunk& chunk = log->chunks[c];
      for (const auto& [first, count] : chunk.invalid_runs) {
        for (uint64_t slot = first; slot < first + count; ++slot)
          media_.StreamWords(chunk.entries + slot * kEntryWords, zero,
                             kEntryWords);
      }
      chunk.invalid_runs.clear();
      chunk.invalid_runs.shrink_to_fit();
    }
  }
  media_.Drain();
}

void RecoveryLogs::PauseRotations() {
  for (auto& log : logs_) log->rotate_mu.Lock();
  spill_.Pause();
}

void RecoveryLogs::ResumeRotations() {
  spill_.Resume();
  for (auto& log : logs_) log->rotate_mu.Unlock();
}

void RecoveryLogs::Close() {
  closed_.store(true);
  for (auto& log : logs_) MutexLock lock(&log->rotate_mu);
  spill_.Close();
}

uint64_t RecoveryLogs::Verify(std::string* report) const {
  uint64_t problems = spill_.Verify(report);
  for (unsigned l = 0; l < log_count(); ++l) {
    // Online: a log's chunks change state under its rotation mutex.
    MutexLock lock(&logs_[l]->rotate_mu);
    std::vector<uint64_t> seqs;
    for (unsigned c = 0; c < chunks_per_log_; ++c) {
      const LogChunkState s = LogChunkState::Decode(
          std::atomic_ref<uint64_t>(*logs_[l]->chunks[c].state)
              .load(std::memory_order_relaxed));
      const std::string where =
          "recovery log " + std::to_string(l) + " chunk " + std::to_string(c);
      if (s.check == 0) {
        ++problems;
        if (report != nullptr) *report += where + ": check bits are 0\n";
      }
      if (s.in_use) {
        if (std::find(seqs.begin(), seqs.end(), s.log_seq) != seqs.end() ||
            s.log_seq == 0) {
          ++problems;
          if (report != nullptr) {
            *report += where + ": sequence number " +
                       std::to_string(s.log_seq) + " is zero or used twice\n";
          }
        }
        seqs.push_back(s.log_seq);
      }
    }
  }
  return problems;
}

}  // namespace plush::log
