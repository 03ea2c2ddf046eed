// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/sim_media.h"

#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include "media/new_file.h"

namespace plush::media {
namespace {

char* MapZeroed(uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

// Mappings of removed devices, kept for the next device of the same
// maximum size. Crash tests create a device for every crash state they
// explore; a fresh mapping costs a page fault per page the engine touches
// (two per page it reads first), which made the kernel's page handling
// most of the time a crash state took.
struct SpareMapping {
  uint64_t max_size;
  char* base;
  char* durable;
  uint64_t used;  // the bytes that may be non-zero
};
constexpr size_t kMaxSpareMappings = 4;
Mutex spares_mu;
std::vector<SpareMapping>& Spares() {
  static auto* spares = new std::vector<SpareMapping>();
  return *spares;
}

// Takes a spare mapping of `max_size` bytes, zeroing what its last device
// used; false if there is none.
bool TakeSpare(uint64_t max_size, char** base, char** durable) {
  SpareMapping spare;
  {
    MutexLock lock(&spares_mu);
    auto& spares = Spares();
    auto it = std::find_if(spares.begin(), spares.end(), [&](const auto& m) {
      return m.max_size == max_size;
    });
    if (it == spares.end()) return false;
    spare = *it;
    spares.erase(it);
  }
  std::memset(spare.base, 0, spare.used);
  std::memset(spare.durable, 0, spare.used);
  *base = spare.base;
  *durable = spare.durable;
  return true;
}

void GiveBack(const SpareMapping& mapping) {
  {
    MutexLock lock(&spares_mu);
    if (Spares().size() < kMaxSpareMappings) {
      Spares().push_back(mapping);
      return;
    }
  }
  munmap(mapping.base, mapping.max_size);
  munmap(mapping.durable, mapping.max_size);
}

uint64_t LoadWord(const char* p) {
  return std::atomic_ref<uint64_t>(
             *reinterpret_cast<uint64_t*>(const_cast<char*>(p)))
      .load(std::memory_order_relaxed);
}

void StoreWord(char* p, uint64_t v) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(p))
      .store(v, std::memory_order_relaxed);
}

Mutex registry_mu;
std::unordered_map<std::string, std::shared_ptr<SimMedia>>& Registry() {
  static auto* registry =
      new std::unordered_map<std::string, std::shared_ptr<SimMedia>>();
  return *registry;
}

}  // namespace

SimMedia::SimMedia(uint64_t size, uint64_t max_size)
    : Media(MediaKind::kSim, Granularity::kCacheLine), max_size_(max_size) {
  set_persist_ops({this, FlushLines, Fence, Stream});
  if (!TakeSpare(max_size, &base_, &durable_)) {
    base_ = MapZeroed(max_size);
    durable_ = MapZeroed(max_size);
  }
  size_.store(base_ != nullptr && durable_ != nullptr ? size : 0);
}

SimMedia::~SimMedia() {
  if (base_ != nullptr && durable_ != nullptr) {
    GiveBack({max_size_, base_, durable_, size()});
    return;
  }
  if (base_ != nullptr) munmap(base_, max_size_);
  if (durable_ != nullptr) munmap(durable_, max_size_);
}

Status SimMedia::Grow(uint64_t new_size) {
  if (new_size > max_size_) {
    return Status::NoSpace("simulated device is full (" +
                           std::to_string(max_size_) + " bytes)");
  }
  if (new_size > size()) size_.store(new_size, std::memory_order_release);
  return Status::OK();
}

void SimMedia::Remember(uintptr_t first_line, uint64_t count) {
  MutexLock lock(&mu_);
  std::vector<uintptr_t>& lines = pending_[std::this_thread::get_id()];
  for (uint64_t i = 0; i < count; ++i)
    lines.push_back(first_line + i * kCacheLine);
}

void SimMedia::FlushLines(void* sim, uintptr_t first_line,
                          uint64_t count) noexcept {
  static_cast<SimMedia*>(sim)->Remember(first_line, count);
}

void SimMedia::Stream(void* sim, uint64_t* dst, const uint64_t* src,
                      size_t n) noexcept {
  for (size_t i = 0; i < n; ++i)
    StoreWord(reinterpret_cast<char*>(dst + i), src[i]);
  const uintptr_t first = reinterpret_cast<uintptr_t>(dst) & ~(kCacheLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(dst + n);
  static_cast<SimMedia*>(sim)->Remember(
      first, (end - first + kCacheLine - 1) / kCacheLine);
}

void SimMedia::set_model(Model model) {
  model_ = model;
  UnorderBarriers();
}

void SimMedia::Fence(void* sim) noexcept {
  auto* self = static_cast<SimMedia*>(sim);
  self->PersistLines(self->model_ == Model::kPmem ? Persists::kThisThread
                                                  : Persists::kNothing);
  if (self->observer_) self->observer_();
}

Status SimMedia::SyncMedia() {
  if (model_ == Model::kFile) PersistLines(Persists::kEveryThread);
  return Status::OK();
}

void SimMedia::PersistLines(Persists which) {
  MutexLock lock(&mu_);
  const uint64_t point = persist_points_.fetch_add(1) + 1;
  if (crashed_.load(std::memory_order_relaxed)) return;
  if (point == crash_at_.load()) {
    SnapshotCrashLocked();
    return;
  }
  switch (which) {
    case Persists::kThisThread: {
      std::vector<uintptr_t> lines;
      lines.swap(pending_[std::this_thread::get_id()]);
      CopyToDurableLocked(lines);
      break;
    }
    case Persists::kEveryThread:
      for (auto& [thread, lines] : pending_) {
        CopyToDurableLocked(lines);
        lines.clear();
      }
      break;
    case Persists::kNothing:
      break;
  }
}

void SimMedia::CopyToDurableLocked(const std::vector<uintptr_t>& lines) {
  for (uintptr_t line : lines) {
    const uint64_t offset = line - reinterpret_cast<uintptr_t>(base_);
    for (uint64_t w = 0; w < kCacheLine; w += 8) {
      StoreWord(durable_ + offset + w, LoadWord(base_ + offset + w));
    }
  }
}

void SimMedia::ArmCrash(uint64_t k) {
  crash_at_.store(persist_points_.load() + k);
}

void SimMedia::CrashNow() {
  MutexLock lock(&mu_);
  if (!crashed_.load()) SnapshotCrashLocked();
}

void SimMedia::SnapshotCrashLocked() {
  unpersisted_at_crash_.clear();
  const uint64_t words = size() / 8;
  for (uint64_t line = 0; line < words; line += kCacheLine / 8) {
    // Most lines are the same in both images: one branch per line. (Word
    // loads, not memcmp: other threads may still be writing the device.)
    const uint64_t end = std::min(words, line + kCacheLine / 8);
    uint64_t differ = 0;
    for (uint64_t i = line; i < end; ++i)
      differ |= LoadWord(base_ + i * 8) ^ LoadWord(durable_ + i * 8);
    if (differ == 0) continue;
    for (uint64_t i = line; i < end; ++i) {
      const uint64_t live = LoadWord(base_ + i * 8);
      if (live != LoadWord(durable_ + i * 8))
        unpersisted_at_crash_.push_back({i, live});
    }
  }
  crashed_.store(true, std::memory_order_release);
}

std::vector<uint64_t> SimMedia::DurableImage() const {
  // Constructed from the range: no zeroing pass before the copy.
  const auto* words = reinterpret_cast<const uint64_t*>(durable_);
  return std::vector<uint64_t>(words, words + size() / 8);
}

std::vector<uint64_t> SimMedia::LiveImage() const {
  std::vector<uint64_t> image(size() / 8);
  for (uint64_t i = 0; i < image.size(); ++i) image[i] = LoadWord(base_ + i * 8);
  return image;
}

std::pair<uint64_t, uint64_t> SimMedia::ImagesDigest() const {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  XXH3_128bits_update(state, base_, size());
  XXH3_128bits_update(state, durable_, size());
  const XXH128_hash_t digest = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return {digest.low64, digest.high64};
}

std::vector<uint64_t> SimMedia::CrashImage(uint64_t seed) const {
  std::vector<uint64_t> image;
  CrashImage(seed, &image);
  return image;
}

void SimMedia::CrashImage(uint64_t seed, std::vector<uint64_t>* image) const {
  const auto* words = reinterpret_cast<const uint64_t*>(durable_);
  image->assign(words, words + size() / 8);
  MutexLock lock(&mu_);
  std::mt19937_64 coin(seed);
  for (const auto& [index, live] : unpersisted_at_crash_) {
    if (coin() & 1) (*image)[index] = live;
  }
}

void SimMedia::RestoreCrashImage(uint64_t seed) {
  MutexLock lock(&mu_);
  std::mt19937_64 coin(seed);
  for (const auto& [index, live] : unpersisted_at_crash_) {
    if (coin() & 1) StoreWord(durable_ + index * 8, live);
  }
  std::memcpy(base_, durable_, size());
  ResetLocked();
}

Status SimMedia::CopyTo(const std::string& path) {
  const std::vector<uint64_t> image = LiveImage();
  return WriteNewFile(path, [&](int fd) -> Status {
    const char* bytes = reinterpret_cast<const char*>(image.data());
    const size_t size = image.size() * 8;
    for (size_t done = 0; done < size;) {
      const ssize_t n = write(fd, bytes + done, size - done);
      if (n < 0) return Status::IOError("writing the copy of a sim device");
      done += static_cast<size_t>(n);
    }
    return Status::OK();
  });
}

void SimMedia::Restore(const std::vector<uint64_t>& image) {
  MutexLock lock(&mu_);
  const uint64_t bytes = image.size() * 8;
  if (bytes > size()) size_.store(bytes);
  std::memcpy(base_, image.data(), bytes);
  std::memcpy(durable_, image.data(), bytes);
  std::memset(base_ + bytes, 0, size() - bytes);
  std::memset(durable_ + bytes, 0, size() - bytes);
  ResetLocked();
}

void SimMedia::ResetLocked() {
  pending_.clear();
  unpersisted_at_crash_.clear();
  persist_points_.store(0);
  crash_at_.store(0);
  crashed_.store(false);
}

Status SimMedia::Open(const std::string& path, bool create, uint64_t size,
                      uint64_t max_size, std::shared_ptr<SimMedia>* device) {
  MutexLock lock(&registry_mu);
  auto it = Registry().find(path);
  if (create) {
    if (it != Registry().end()) {
      return Status::InvalidArgument("simulated device '" + path +
                                     "' already exists");
    }
    auto created = std::make_shared<SimMedia>(size, max_size);
    if (created->size() == 0) {
      return Status::IOError("cannot reserve memory for simulated device '" +
                             path + "'");
    }
    it = Registry().emplace(path, std::move(created)).first;
  } else if (it == Registry().end()) {
    return Status::InvalidArgument("simulated device '" + path +
                                   "' does not exist");
  }
  bool expected = false;
  if (!it->second->open_.compare_exchange_strong(expected, true)) {
    return Status::Busy("simulated device '" + path + "' is already open");
  }
  *device = it->second;
  return Status::OK();
}

std::shared_ptr<SimMedia> SimMedia::Find(const std::string& path) {
  MutexLock lock(&registry_mu);
  auto it = Registry().find(path);
  return it == Registry().end() ? nullptr : it->second;
}

void SimMedia::Remove(const std::string& path) {
  MutexLock lock(&registry_mu);
  Registry().erase(path);
}

}  // namespace plush::media
