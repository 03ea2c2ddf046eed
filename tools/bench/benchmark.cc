// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "benchmark.h"

#include <memory>

#include "engine_figures.h"
#include "phases.h"
#include "pool_location.h"

namespace plush::bench {

std::unique_ptr<PoolLocation> LocatePool(const BenchConfig& config,
                                         RunControl& control,
                                         RunResult* result) {
  std::unique_ptr<PoolLocation> location;
  const Status status = PoolLocation::Create(config.pool, config.engine.name,
                                             config.keep_pool, &location);
  if (!status.ok()) {
    control.Fail(status, "choosing the pool location");
    return nullptr;
  }
  result->pool_path = location->path();
  return location;
}

RunResult RunBenchmark(const BenchConfig& config) {
  RunResult result;
  RunControl control;

  std::unique_ptr<PoolLocation> location = LocatePool(config, control, &result);
  if (location == nullptr) return Finish(control, std::move(result));

  // The driver's own memory is allocated before the baseline is taken, so
  // that the RSS delta is the engine's.
  std::unique_ptr<DeletedSet> deleted;
  if (config.mix[OpType::kDelete] > 0) {
    deleted = std::make_unique<DeletedSet>(config.records);
  }
  const KeySpace keys(config.key_size, config.value_size, config.key_order);
  const uint64_t rss_baseline = ResidentAnonymousBytes();

  std::unique_ptr<Engine> engine;
  Status status =
      OpenEngine(config.engine, location->path(), /*create=*/true, &engine);
  if (!status.ok()) {
    control.Fail(status, "opening the engine");
    return Finish(control, std::move(result));
  }
  const PhaseContext context{config,  *engine,       keys,
                             control, deleted.get(), config.progress};

  result.load_seconds = LoadPhase(context);
  EngineStats before;
  status = engine->GetStats(&before);
  if (!status.ok()) control.Fail(status, "reading engine stats");

  RunPhaseResult run;
  if (!control.stopped() && (config.operations > 0 || config.seconds > 0)) {
    run = RunPhase(context);
  }
  if (!control.stopped() && config.checkpoint_threads > 0) {
    result.checkpoint_seconds = CheckpointPhase(context);
  }
  result.operations = run.operations;
  result.seconds = run.seconds;
  result.latency = std::move(run.latency);
  status = RecordEngineFigures(*engine, before, run.operations, rss_baseline,
                               &result);
  if (!status.ok()) control.Fail(status, "reading engine stats");

  // After the figures, which are the run's.
  if (!control.stopped() && config.iterate) {
    const IterateResult iterate = IteratePhase(context, run.inserted);
    result.iterate_records = iterate.records;
    result.iterate_seconds = iterate.seconds;
  }
  if (!control.stopped() && !config.backup.empty()) {
    const BackupResult backup = BackupPhase(context);
    result.backup_seconds = backup.seconds;
    result.backup_bytes = backup.bytes;
  }

  return VerifyAndClose(context, run.inserted, std::move(result));
}

RunResult VerifyAndClose(const PhaseContext& context,
                         const std::vector<uint64_t>& inserted,
                         RunResult result) {
  if (context.config.verify && !context.control.stopped()) {
    result.verified_records = VerifyPhase(context, inserted);
  }
  const Status status = context.engine.Close();
  if (!status.ok()) context.control.Fail(status, "closing the engine");
  return Finish(context.control, std::move(result));
}

}  // namespace plush::bench
