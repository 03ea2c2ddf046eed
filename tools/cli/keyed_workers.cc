// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "keyed_workers.h"

#include <algorithm>
#include <utility>

namespace plush::cli {

unsigned OwnerOf(std::string_view key, unsigned threads) {
  uint64_t hash = 0xcbf29ce484222325;
  for (const char c : key) {
    hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3;
  }
  return static_cast<unsigned>(hash % threads);
}

KeyedWorkers::KeyedWorkers(unsigned threads, Parser parse, Sink sink)
    : threads_(std::max(threads, 1u)),
      parse_(std::move(parse)),
      sink_(std::move(sink)),
      // Two chunks per worker keep everyone busy without buffering the
      // whole file when the writers are slower than the reader.
      max_chunks_(2 * static_cast<size_t>(threads_)),
      next_chunk_(threads_, 0) {
  for (unsigned i = 0; i < threads_; ++i) {
    workers_.emplace_back([this, i] { Work(i); });
  }
}

KeyedWorkers::~KeyedWorkers() { (void)Finish(); }

bool KeyedWorkers::Add(uint64_t first_line, std::vector<std::string> lines) {
  std::unique_lock lock(mu_);
  changed_.wait(lock,
                [&] { return chunks_.size() < max_chunks_ || Stopped(); });
  if (Stopped()) return false;
  chunks_.push_back({first_line, std::move(lines)});
  changed_.notify_all();
  return true;
}

Status KeyedWorkers::Finish() {
  {
    std::lock_guard lock(mu_);
    finishing_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  std::lock_guard lock(mu_);
  return sink_error_.ok() ? bad_line_ : sink_error_;
}

void KeyedWorkers::Parse(Chunk* chunk) const {
  chunk->by_worker.resize(threads_);
  for (size_t i = 0; i < chunk->lines.size(); ++i) {
    const std::string& line = chunk->lines[i];
    if (line.empty() || line == "\r") continue;  // blank: no record
    ParsedRecord record;
    record.line = chunk->first_line + i;
    Status s = parse_(line, &record);
    if (!s.ok()) {
      chunk->bad_line = s.WithContext("line " + std::to_string(record.line));
      break;
    }
    const unsigned owner = OwnerOf(record.key, threads_);
    chunk->by_worker[owner].push_back(std::move(record));
  }
  chunk->lines = {};
}

void KeyedWorkers::Work(unsigned worker) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!sink_error_.ok()) return;
    const uint64_t next = next_chunk_[worker] - first_chunk_;
    Chunk* mine = next < chunks_.size() ? &chunks_[next] : nullptr;
    if (mine != nullptr && mine->state == Chunk::State::kParsed) {
      const std::vector<ParsedRecord> records =
          std::move(mine->by_worker[worker]);
      const bool end = !mine->bad_line.ok();
      if (end && bad_line_.ok()) bad_line_ = mine->bad_line;
      lock.unlock();
      Status s = sink_(worker, records, end);
      lock.lock();
      ++next_chunk_[worker];
      // Workers take chunks in order: once the oldest is taken by all, it
      // is done with.
      ++mine->taken;
      while (!chunks_.empty() && chunks_.front().taken == threads_) {
        chunks_.pop_front();
        ++first_chunk_;
      }
      if (!s.ok() && sink_error_.ok()) sink_error_ = s;
      changed_.notify_all();
      if (end) return;
      continue;
    }
    // While its own next chunk is not parsed, a worker parses the oldest
    // chunk that nobody parses yet (possibly that one).
    auto queued = std::find_if(chunks_.begin(), chunks_.end(), [](auto& c) {
      return c.state == Chunk::State::kQueued;
    });
    if (queued != chunks_.end()) {
      Chunk* chunk = &*queued;
      chunk->state = Chunk::State::kParsing;
      lock.unlock();
      Parse(chunk);
      lock.lock();
      chunk->state = Chunk::State::kParsed;
      if (!chunk->bad_line.ok()) stopped_ = true;
      changed_.notify_all();
      continue;
    }
    if (finishing_ && mine == nullptr) {
      lock.unlock();
      Status s = sink_(worker, {}, /*end=*/true);
      lock.lock();
      if (!s.ok() && sink_error_.ok()) sink_error_ = s;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock);
  }
}

}  // namespace plush::cli
