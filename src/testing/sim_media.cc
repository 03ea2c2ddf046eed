// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "testing/sim_media.h"

#include <sys/mman.h>
#include <unistd.h>

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
  base_ = MapZeroed(max_size);
  durable_ = MapZeroed(max_size);
  size_.store(base_ != nullptr && durable_ != nullptr ? size : 0);
}

SimMedia::~SimMedia() {
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

void SimMedia::Fence(void* sim) noexcept {
  auto* self = static_cast<SimMedia*>(sim);
  self->PersistLines();
  if (self->observer_) self->observer_();
}

void SimMedia::PersistLines() {
  MutexLock lock(&mu_);
  std::vector<uintptr_t> lines;
  lines.swap(pending_[std::this_thread::get_id()]);
  const uint64_t point = persist_points_.fetch_add(1) + 1;
  if (crashed_.load(std::memory_order_relaxed)) return;
  if (point == crash_at_.load()) {
    live_at_crash_.resize(size() / 8);
    for (uint64_t i = 0; i < live_at_crash_.size(); ++i) {
      live_at_crash_[i] = LoadWord(base_ + i * 8);
    }
    crashed_.store(true, std::memory_order_release);
    return;
  }
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
  if (crashed_.load()) return;
  live_at_crash_.resize(size() / 8);
  for (uint64_t i = 0; i < live_at_crash_.size(); ++i) {
    live_at_crash_[i] = LoadWord(base_ + i * 8);
  }
  crashed_.store(true, std::memory_order_release);
}

std::vector<uint64_t> SimMedia::DurableImage() const {
  std::vector<uint64_t> image(size() / 8);
  std::memcpy(image.data(), durable_, image.size() * 8);
  return image;
}

std::vector<uint64_t> SimMedia::LiveImage() const {
  std::vector<uint64_t> image(size() / 8);
  for (uint64_t i = 0; i < image.size(); ++i) image[i] = LoadWord(base_ + i * 8);
  return image;
}

std::vector<uint64_t> SimMedia::CrashImage(uint64_t seed) const {
  std::vector<uint64_t> image = DurableImage();
  MutexLock lock(&mu_);
  std::mt19937_64 coin(seed);
  const uint64_t words = std::min(image.size(), live_at_crash_.size());
  for (uint64_t i = 0; i < words; ++i) {
    if (live_at_crash_[i] != image[i] && (coin() & 1))
      image[i] = live_at_crash_[i];
  }
  return image;
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
  std::memset(base_, 0, size());
  std::memset(durable_, 0, size());
  std::memcpy(base_, image.data(), bytes);
  std::memcpy(durable_, image.data(), bytes);
  pending_.clear();
  live_at_crash_.clear();
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
