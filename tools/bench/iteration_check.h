// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Checks an iteration over the whole store (--iterate) against what the
// driver knows it wrote: every record loaded (but those the run may have
// deleted) and every record the run inserted must come exactly once, with
// its value; a record the run may have deleted may come, once; nothing
// else may come. The keys are turned back into records (KeySpace), so the
// check needs one bit per record, not a copy of the keys.

#ifndef PLUSH_TOOLS_BENCH_ITERATION_CHECK_H_
#define PLUSH_TOOLS_BENCH_ITERATION_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench_config.h"
#include "deleted_set.h"
#include "key_space.h"

namespace plush::bench {

class IterationCheck {
 public:
  // `inserted`: per thread, how many records the run inserted
  // (RunPhaseResult::inserted; empty without a run). `deleted`: the
  // records the run may have deleted, or null.
  IterationCheck(const BenchConfig& config, const KeySpace& keys,
                 const std::vector<uint64_t>& inserted,
                 const DeletedSet* deleted);

  // One record of the iteration. False, with error() set, if it must not
  // come (an unknown key, a wrong value, a record seen before).
  bool Visit(std::string_view key, std::string_view value);
  // After the iteration. False, with error() set, if a record that must
  // have come did not.
  bool Finish();

  // Records that must come.
  uint64_t required() const { return required_count_; }
  uint64_t visited() const { return visited_; }
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string message);

  uint64_t loaded_;
  const DeletedSet* deleted_;
  RecordBuilder builder_;
  // Indexed by record: the records that must come, and those that came.
  std::vector<bool> required_;
  std::vector<bool> seen_;
  uint64_t required_count_ = 0;
  uint64_t required_seen_ = 0;
  uint64_t visited_ = 0;
  std::string error_;
};

}  // namespace plush::bench

#endif  // PLUSH_TOOLS_BENCH_ITERATION_CHECK_H_
