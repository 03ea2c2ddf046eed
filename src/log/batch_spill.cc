// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "log/batch_spill.h"

#include <algorithm>
#include <atomic>
#include <bit>

#include "util/hash.h"

namespace plush::log {
namespace {

// The root word: the area's offset (4 KiB aligned) | log2 of its capacity
// in entries.
constexpr uint64_t kCapacityMask = 0x3F;
constexpr unsigned kMinCapacityBits = 10;
constexpr unsigned kMaxCapacityBits = 24;

// The checksum a spilled commit holds (DO NOT CHANGE: persisted): the
// XXH64 of the members' words as stored, with this seed, and their count.
constexpr uint64_t kChecksumSeed = 0;
uint64_t MembersChecksum(uint64_t words_xxh64, uint64_t n) {
  return (words_xxh64 ^ n) & kLow62;
}

}  // namespace

void BatchSpill::Lease::Release() {
  if (spill_ == nullptr) return;
  spill_->mu_.Unlock();
  spill_ = nullptr;
}

Status BatchSpill::Decode(uint64_t word, Area* area) const {
  *area = {};
  if (word == 0) return Status::OK();
  const uint64_t offset = word & ~uint64_t{4095};
  const unsigned bits = static_cast<unsigned>(word & kCapacityMask);
  const uint64_t mark = pool_.allocated_end();
  if ((word & 4095 & ~kCapacityMask) != 0 || bits < kMinCapacityBits ||
      bits > kMaxCapacityBits || offset < pool_.heap_offset() ||
      offset > mark || (mark - offset) / kEntrySize < (uint64_t{1} << bits)) {
    return Status::Corruption("batch spill area word " + std::to_string(word) +
                              " does not describe an area inside the heap");
  }
  *area = {offset, uint64_t{1} << bits};
  return Status::OK();
}

Status BatchSpill::Load() {
  return Decode(pool_.root()->batch_spill, &area_);
}

Status BatchSpill::Acquire(uint64_t n, Lease* lease) {
  mu_.Lock();
  Status s = closed_ ? Status::InvalidArgument("the DB is closed")
                     : MigrateHeld();
  if (s.ok() && area_.capacity < n) s = Grow(n);
  if (!s.ok()) {
    mu_.Unlock();
    return s;
  }
  lease->spill_ = this;
  return Status::OK();
}

Status BatchSpill::Grow(uint64_t n) {
  const unsigned bits = std::max<unsigned>(
      kMinCapacityBits, static_cast<unsigned>(std::bit_width(n - 1)));
  if (bits > kMaxCapacityBits) {
    return Status::InvalidArgument("batch of " + std::to_string(n) +
                                   " records is too large to spill");
  }
  const uint64_t capacity = uint64_t{1} << bits;
  uint64_t offset = 0;
  Status s =
      pool_.allocator().Allocate(capacity * kEntrySize, 4096, &offset);
  if (!s.ok()) return s.WithContext("growing the batch spill area");
  // Fresh heap space is zero: nothing to persist before the word names it.
  uint64_t& word = pool_.root()->batch_spill;
  std::atomic_ref<uint64_t>(word).store(offset | bits,
                                        std::memory_order_release);
  pool_.media().Persist(&word, sizeof(word));
  area_ = {offset, capacity};
  return Status::OK();
}

uint64_t BatchSpill::Write(const Lease& lease, const LogRecord* records,
                           size_t n) {
  (void)lease;
  constexpr size_t kPiece = 256;  // entries encoded at a time
  uint64_t words[kPiece * kEntryWords];
  XXH64_state_t checksum;
  XXH64_reset(&checksum, kChecksumSeed);
  media::Media& media = pool_.media();
  auto* at = media.At<uint64_t>(area_.offset);
  for (size_t first = 0; first < n; first += kPiece) {
    const size_t count = std::min(kPiece, n - first);
    for (size_t i = 0; i < count; ++i) {
      LogRecord member = records[first + i];
      member.type = EntryType::kMember;
      EncodeEntry(member, /*check=*/1, &words[i * kEntryWords]);
    }
    media.StreamWords(at + first * kEntryWords, words, count * kEntryWords);
    XXH64_update(&checksum, words, count * kEntrySize);
  }
  return MembersChecksum(XXH64_digest(&checksum), n);
}

void BatchSpill::Hold(const Lease& lease, uint64_t n, uint64_t checksum) {
  (void)lease;
  mu_.AssertHeld();
  held_members_ = n;
  held_checksum_ = checksum;
}

Status BatchSpill::MigrateHeld() {
  for (uint64_t i = 0; i < held_members_; ++i) {
    LogRecord r;
    DecodeEntry(EntryAt(i), /*check=*/1, &r);
    if (r.epoch < host_.DramEpochOf(r)) continue;  // on PMem already
    forced_migrations_.Add(1);
    Status s = host_.MigrateIfUnmigrated(r);
    if (!s.ok()) return s.WithContext("freeing the batch spill area");
  }
  held_members_ = 0;
  return Status::OK();
}

Status BatchSpill::MigrateIfHeld(uint64_t n, uint64_t checksum) {
  MutexLock lock(&mu_);
  if (held_members_ != n || held_checksum_ != checksum) return Status::OK();
  return MigrateHeld();
}

bool BatchSpill::ReadBatch(uint64_t n, uint64_t checksum,
                           std::vector<LogRecord>* members) const {
  members->clear();
  const uint64_t readable = std::min(n, area_.capacity);
  for (uint64_t i = 0; i < readable; ++i) {
    LogRecord r;
    if (!DecodeEntry(EntryAt(i), /*check=*/1, &r) ||
        r.type != EntryType::kMember) {
      continue;
    }
    members->push_back(r);
  }
  return members->size() == n &&
         MembersChecksum(XXH64(EntryAt(0), n * kEntrySize, kChecksumSeed), n) ==
             checksum;
}

void BatchSpill::NoteRecovered(uint64_t n, uint64_t checksum) {
  MutexLock lock(&mu_);
  held_members_ = n;
  held_checksum_ = checksum;
}

void BatchSpill::Close() {
  MutexLock lock(&mu_);
  closed_ = true;
}

uint64_t BatchSpill::Verify(std::string* report) const {
  Area area;
  const Status s = Decode(
      std::atomic_ref<uint64_t>(pool_.root()->batch_spill)
          .load(std::memory_order_acquire),
      &area);
  if (s.ok()) return 0;
  if (report != nullptr) *report += std::string(s.message()) + "\n";
  return 1;
}

}  // namespace plush::log
