// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "display.h"
#include "key_distribution.h"
#include "latency_sampler.h"
#include "op_mix.h"
#include "phase_threads.h"
#include "phases.h"
#include "rng.h"
#include "tsc_clock.h"

namespace plush::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One thread of the run phase. Every operation first picks its record and
// builds its key and value (untimed), then calls the engine between the
// sampler's Begin() and End(), then checks the answer. An operation returns
// false after reporting a failure. With --batch N, writes collect in a
// batch that goes to the engine in one call (timed as one) when it holds N
// of them, and when the run ends; with --multiget N, lookups collect the
// same way in a MultiGet.
class RunWorker {
 public:
  RunWorker(const PhaseContext& context, const KeyDistribution& distribution,
            unsigned thread, double nanos_per_tick)
      : context_(context),
        engine_(context.engine),
        distribution_(distribution),
        picker_(context.config.mix),
        thread_(thread),
        rng_(Mix64(context.config.seed) + thread),
        sampler_(context.config.latency_sample, nanos_per_tick,
                 Mix64(~context.config.seed) + thread),
        builder_(context.keys),
        batch_keys_(context.config.batch),
        batch_values_(context.config.batch),
        lookup_keys_(context.config.multiget) {
    batch_.reserve(context.config.batch);
    lookup_records_.reserve(context.config.multiget);
    lookup_views_.reserve(context.config.multiget);
  }

  // Runs `quota` operations, or until `deadline` if there is one (checked
  // every 256 operations, like the stop flag). Returns how many it ran.
  uint64_t Run(uint64_t quota, const Clock::time_point* deadline,
               tools::ProgressCounters& progress) {
    uint64_t done = 0;
    for (; done < quota; ++done) {
      if (done % 256 == 0) {
        progress.Publish(thread_, done);
        if (context_.control.stopped() ||
            (deadline != nullptr && Clock::now() >= *deadline)) {
          break;
        }
      }
      if (!RunOne(picker_.Pick(rng_.Next()))) break;
    }
    FlushBatch();
    FlushMultiGet();
    progress.Publish(thread_, done);
    return done;
  }

  uint64_t inserted() const { return inserted_; }
  const Histogram& latency() const { return sampler_.histogram(); }

 private:
  bool RunOne(OpType type) {
    switch (type) {
      case OpType::kLookup:
        return Lookup();
      case OpType::kNegativeLookup:
        return NegativeLookup();
      case OpType::kInsert:
        if (!Write(InsertedRecord(context_.config, thread_, inserted_))) {
          return false;
        }
        ++inserted_;
        return true;
      case OpType::kUpdate:
        return Write(distribution_.Next(rng_));
      case OpType::kDelete:
        return Delete();
      case OpType::kScan:
        return Scan();
    }
    return false;
  }

  bool Lookup() {
    const uint64_t record = distribution_.Next(rng_);
    const std::string_view key = builder_.Key(record);
    if (context_.config.multiget > 1) return AddToMultiGet(record, key);
    sampler_.Begin();
    const Status status = engine_.Get(key, &value_);
    sampler_.End();
    return CheckRead(context_, builder_, record, status, value_);
  }

  bool NegativeLookup() {
    const std::string_view key = builder_.AbsentKey(distribution_.Next(rng_));
    sampler_.Begin();
    const Status status = engine_.Get(key, &value_);
    sampler_.End();
    if (status.IsNotFound()) return true;
    if (status.ok()) {
      context_.control.FailCheck(
          "a negative lookup found a key never inserted");
    } else {
      context_.control.Fail(status, "negative lookup");
    }
    return false;
  }

  bool Write(uint64_t record) {
    const std::string_view key = builder_.Key(record);
    const std::string_view value = builder_.Value(record);
    if (context_.config.batch > 1) return AddToBatch(key, value, false);
    sampler_.Begin();
    const Status status = engine_.Put(key, value);
    sampler_.End();
    if (status.ok()) return true;
    context_.control.Fail(status, "writing record " + std::to_string(record));
    return false;
  }

  bool Delete() {
    const uint64_t record = distribution_.Next(rng_);
    const std::string_view key = builder_.Key(record);
    context_.deleted->Add(record);
    if (context_.config.batch > 1) return AddToBatch(key, {}, true);
    sampler_.Begin();
    const Status status = engine_.Delete(key);
    sampler_.End();
    if (status.ok()) return true;
    context_.control.Fail(status, "deleting record " + std::to_string(record));
    return false;
  }

  // Copies the write into the batch (the builder reuses its buffers).
  bool AddToBatch(std::string_view key, std::string_view value,
                  bool is_delete) {
    const size_t i = batch_.size();
    batch_keys_[i].assign(key);
    batch_values_[i].assign(value);
    batch_.push_back({batch_keys_[i], batch_values_[i], is_delete});
    return batch_.size() < context_.config.batch || FlushBatch();
  }

  bool AddToMultiGet(uint64_t record, std::string_view key) {
    const size_t i = lookup_records_.size();
    lookup_records_.push_back(record);
    lookup_keys_[i].assign(key);
    lookup_views_.push_back(lookup_keys_[i]);
    return lookup_records_.size() < context_.config.multiget || FlushMultiGet();
  }

  bool FlushMultiGet() {
    if (lookup_records_.empty()) return true;
    sampler_.Begin();
    engine_.MultiGet(lookup_views_, &lookup_values_, &lookup_statuses_);
    sampler_.End();
    bool ok = true;
    for (size_t i = 0; i < lookup_records_.size() && ok; ++i) {
      ok = CheckRead(context_, builder_, lookup_records_[i],
                     lookup_statuses_[i], lookup_values_[i]);
    }
    lookup_records_.clear();
    lookup_views_.clear();
    return ok;
  }

  bool FlushBatch() {
    if (batch_.empty()) return true;
    sampler_.Begin();
    const Status status = engine_.Write(batch_);
    sampler_.End();
    batch_.clear();
    if (status.ok()) return true;
    context_.control.Fail(status, "writing a batch");
    return false;
  }

  bool Scan() {
    const uint64_t record = distribution_.Next(rng_);
    const std::string_view key = builder_.Key(record);
    size_t scanned = 0;
    sampler_.Begin();
    const Status status =
        engine_.Scan(key, context_.config.scan_size, &scanned);
    sampler_.End();
    if (!status.ok()) {
      context_.control.Fail(status, "scan");
      return false;
    }
    // The start key is a loaded record, so the scan must at least see it.
    if (scanned == 0 &&
        !(context_.deleted != nullptr && context_.deleted->Contains(record))) {
      context_.control.FailCheck("a scan from loaded record " +
                                 std::to_string(record) + " read nothing");
      return false;
    }
    return true;
  }

  const PhaseContext& context_;
  Engine& engine_;
  const KeyDistribution& distribution_;
  const OpPicker picker_;
  const unsigned thread_;
  Rng rng_;
  LatencySampler sampler_;
  RecordBuilder builder_;
  std::string value_;  // reused by every Get: no allocation per lookup
  uint64_t inserted_ = 0;
  // The writes of the batch being collected (--batch), and their bytes.
  std::vector<BatchOp> batch_;
  std::vector<std::string> batch_keys_;
  std::vector<std::string> batch_values_;
  // The lookups of the MultiGet being collected (--multiget).
  std::vector<uint64_t> lookup_records_;
  std::vector<std::string> lookup_keys_;
  std::vector<std::string_view> lookup_views_;
  std::vector<std::string> lookup_values_;
  std::vector<Status> lookup_statuses_;
};

}  // namespace

RunPhaseResult RunPhase(const PhaseContext& context) {
  const BenchConfig& config = context.config;
  // Lookups, updates, deletes and scans pick among the loaded records.
  const KeyDistribution distribution(
      config.distribution, std::max<uint64_t>(config.records, 1), config.skew);
  const bool timed = config.seconds > 0;
  // Measured here, before the clock of the phase starts.
  const double nanos_per_tick = TscClock::NanosPerTick();
  std::vector<Histogram> latencies(config.threads);
  std::vector<uint64_t> done(config.threads);
  RunPhaseResult result;
  result.inserted.resize(config.threads);

  tools::ProgressCounters progress(config.threads);
  tools::ProgressDisplay display(
      context.progress, "run", "ops", progress,
      tools::ProgressDisplay::Of(config.operations, config.seconds));
  result.seconds = RunOnThreads(config.threads, [&](unsigned thread) {
    RunWorker worker(context, distribution, thread, nanos_per_tick);
    const Slice slice = ThreadSlice(config.operations, config.threads, thread);
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(config.seconds));
    done[thread] = worker.Run(timed ? UINT64_MAX : slice.end - slice.begin,
                              timed ? &deadline : nullptr, progress);
    result.inserted[thread] = worker.inserted();
    latencies[thread] = worker.latency();
  });
  for (unsigned t = 0; t < config.threads; ++t) {
    result.operations += done[t];
    result.latency.Merge(latencies[t]);
  }
  return result;
}

}  // namespace plush::bench
