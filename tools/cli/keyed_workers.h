// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The threads of `plush load`. One thread reads the input and queues chunks
// of lines; any worker parses a queued chunk, and each record of it goes to
// the worker that owns its key (by hash). Every worker takes the records of
// its keys chunk after chunk, in input order. So the records of one key are
// written by one thread in the order of the input, and a load leaves the
// pool as applying its lines one by one would, whatever the number of
// threads — while parsing and writing both spread over every thread.
//
// A key belongs to worker OwnerOf(key, threads): FNV-1a (64-bit) of its
// bytes, modulo the threads. It is spelled out so that a test can tell
// which records one worker wrote together.

#ifndef PLUSH_TOOLS_CLI_KEYED_WORKERS_H_
#define PLUSH_TOOLS_CLI_KEYED_WORKERS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "plush/status.h"

namespace plush::cli {

// A parsed line of the input.
struct ParsedRecord {
  std::string key;
  std::string value;
  uint64_t expires_at_ms = 0;  // Unix ms; 0: the record never expires
  uint64_t line = 0;  // its line number in the input, from 1
};

unsigned OwnerOf(std::string_view key, unsigned threads);

class KeyedWorkers {
 public:
  // Parses a line that is not blank into the record's key, value and
  // expiry.
  using Parser =
      std::function<Status(std::string_view line, ParsedRecord* record)>;
  // Takes the next records of worker `worker`'s keys (0 to threads - 1), in
  // input order. `end` marks the worker's last call: its input is over (or
  // stops before a bad line), and `records` may be empty. An error stops
  // every worker.
  using Sink = std::function<Status(
      unsigned worker, const std::vector<ParsedRecord>& records, bool end)>;

  // Starts `threads` workers (at least one).
  KeyedWorkers(unsigned threads, Parser parse, Sink sink);
  KeyedWorkers(const KeyedWorkers&) = delete;
  KeyedWorkers& operator=(const KeyedWorkers&) = delete;
  // Finishes (see Finish()) if the caller has not.
  ~KeyedWorkers();

  // Queues a chunk of lines, the first of which is line `first_line` of the
  // input; blocks while the workers are behind. Returns false once the load
  // stops (a bad line, or a sink's error), which tells the reader to stop.
  bool Add(uint64_t first_line, std::vector<std::string> lines);

  // Waits until every queued record is in a sink (up to a bad line: the
  // records before it are, those after it are not), stops the workers and
  // returns the first error: a sink's, else the bad line's ("line N: ...").
  Status Finish();

 private:
  struct Chunk {
    enum class State { kQueued, kParsing, kParsed };
    uint64_t first_line;
    std::vector<std::string> lines;
    State state = State::kQueued;
    std::vector<std::vector<ParsedRecord>> by_worker;  // once parsed
    Status bad_line;  // the chunk's records stop before it
    unsigned taken = 0;  // workers that took their records
  };

  void Work(unsigned worker);
  void Parse(Chunk* chunk) const;
  // Under mu_: whether the reader must stop.
  bool Stopped() const { return stopped_ || !sink_error_.ok(); }

  const unsigned threads_;
  const Parser parse_;
  const Sink sink_;
  const size_t max_chunks_;
  std::mutex mu_;
  std::condition_variable changed_;  // any change of the fields below
  // Chunks in input order: chunks_[0] is chunk number first_chunk_; a chunk
  // leaves once every worker took its records. (A deque keeps a chunk in
  // place while a worker parses it unlocked.)
  std::deque<Chunk> chunks_;
  uint64_t first_chunk_ = 0;
  std::vector<uint64_t> next_chunk_;  // per worker: the chunk it takes next
  bool finishing_ = false;
  bool stopped_ = false;  // a parsed chunk holds a bad line
  Status sink_error_;
  Status bad_line_;  // of the chunk the workers stopped at
  std::vector<std::thread> workers_;
};

}  // namespace plush::cli

#endif  // PLUSH_TOOLS_CLI_KEYED_WORKERS_H_
