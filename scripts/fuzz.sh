#!/usr/bin/env bash
# Runs one of the project's libFuzzer targets with ASan and UBSan, building
# it first with clang-14 in a build directory of its own:
#
#   pool     the damaged-pool fuzzer (tests/fuzz/pool_fuzz_target.h)
#   request  plush-server's request parser
#            (tools/server/fuzz/request_parser_fuzzer.cc)
#
#   scripts/fuzz.sh                 pool, 60 seconds
#   scripts/fuzz.sh 600s            pool, 600 seconds (soak)
#   scripts/fuzz.sh 2000            pool, 2000 executions (make test)
#   scripts/fuzz.sh 20s request     the request parser, 20 seconds (make test)
#
# Each fuzzer's corpus grows in $BUILD/corpus-NAME (kept between runs); the
# committed seeds are only read. A failing input is saved as
# $BUILD/artifacts-NAME/crash-*; replay it by passing it to the fuzzer
# binary. Environment: PLUSH_FUZZ_BUILD (default build/fuzz),
# PLUSH_FUZZ_JOBS (2). The last line is
# "[fuzz NAME] N executions in S s, 0 failures" on success.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-60s}
name=${2:-pool}
build=${PLUSH_FUZZ_BUILD:-build/fuzz}
case $name in
  pool)
    target=pool_fuzzer binary=tests/pool_fuzzer seeds=tests/fuzz/corpus
    limits=(-timeout=20 -rss_limit_mb=4096) ;;
  request)
    target=request_parser_fuzzer binary=tools/server/request_parser_fuzzer
    seeds=tools/server/fuzz/corpus limits=(-timeout=10 -rss_limit_mb=2048) ;;
  *)
    echo "usage: $0 [SECONDSs|RUNS] [pool|request]" >&2
    exit 2 ;;
esac
if [[ $limit =~ ^([0-9]+)s$ ]]; then
  bound=(-max_total_time="${BASH_REMATCH[1]}")
elif [[ $limit =~ ^[0-9]+$ ]]; then
  bound=(-runs="$limit")
else
  echo "usage: $0 [SECONDSs|RUNS] [pool|request]   e.g. 60s or 2000" >&2
  exit 2
fi

# (Configured every time: a build directory made by an older version of
# this script may lack the tools, and with them the request fuzzer.)
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPLUSH_SANITIZE=address,undefined \
  -DPLUSH_BUILD_FUZZERS=ON -DPLUSH_BUILD_TOOLS=ON \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build "$build" --target "$target" -j "${PLUSH_FUZZ_JOBS:-2}" >/dev/null

corpus=$build/corpus-$name
artifacts=$build/artifacts-$name
mkdir -p "$corpus" "$artifacts"
log=$build/fuzz-$name.log
start=$(date +%s)
status=0
"$build/$binary" "${bound[@]}" "${limits[@]}" -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if ((status != 0)); then
  tail -40 "$log" >&2
  echo "[fuzz $name] FAILED after ${runs:-?} executions (log: $log, input in $artifacts/)" >&2
  exit 1
fi
echo "[fuzz $name] ${runs:-0} executions in $(($(date +%s) - start)) s, 0 failures"
