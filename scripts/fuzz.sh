#!/usr/bin/env bash
# Runs the damaged-pool fuzzer (tests/fuzz/pool_fuzz_target.h) with libFuzzer,
# ASan and UBSan. Builds it first with clang-14 in its own build directory.
#
#   scripts/fuzz.sh             60 seconds
#   scripts/fuzz.sh 600s        600 seconds (soak)
#   scripts/fuzz.sh 2000        2000 executions (the bounded run of make test)
#
# The corpus grows in $BUILD/corpus (kept between runs); the committed seeds
# in tests/fuzz/corpus are only read. A failing input is saved as
# $BUILD/artifacts/crash-*; replay it with: $BUILD/tests/pool_fuzzer FILE
# Environment: PLUSH_FUZZ_BUILD (default build/fuzz), PLUSH_FUZZ_JOBS (2).
# The last line is "[fuzz] N executions in S s, 0 failures" on success.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-60s}
build=${PLUSH_FUZZ_BUILD:-build/fuzz}
if [[ $limit =~ ^([0-9]+)s$ ]]; then
  bound=(-max_total_time="${BASH_REMATCH[1]}")
elif [[ $limit =~ ^[0-9]+$ ]]; then
  bound=(-runs="$limit")
else
  echo "usage: $0 [SECONDSs|RUNS]   e.g. 60s or 2000" >&2
  exit 2
fi

if [[ ! -f $build/build.ninja ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPLUSH_SANITIZE=address,undefined \
    -DPLUSH_BUILD_FUZZERS=ON -DPLUSH_BUILD_TOOLS=OFF \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
fi
cmake --build "$build" --target pool_fuzzer -j "${PLUSH_FUZZ_JOBS:-2}" >/dev/null

mkdir -p "$build/corpus" "$build/artifacts"
log="$build/fuzz.log"
start=$(date +%s)
status=0
"$build/tests/pool_fuzzer" "${bound[@]}" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/" "$build/corpus" tests/fuzz/corpus >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if ((status != 0)); then
  tail -40 "$log" >&2
  echo "[fuzz] FAILED after ${runs:-?} executions (log: $log, input in $build/artifacts/)" >&2
  exit 1
fi
echo "[fuzz] ${runs:-0} executions in $(($(date +%s) - start)) s, 0 failures"
