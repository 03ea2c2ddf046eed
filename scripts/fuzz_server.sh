#!/usr/bin/env bash
# Runs the fuzzer of plush-server's request parser
# (tools/server/fuzz/request_parser_fuzzer.cc) with libFuzzer, ASan and
# UBSan. Builds it first with clang-14 in its own build directory (the
# parser alone: seconds).
#
#   scripts/fuzz_server.sh          60 seconds
#   scripts/fuzz_server.sh 20s      20 seconds (the bounded run of make test)
#   scripts/fuzz_server.sh 100000   100000 executions
#
# The corpus grows in $BUILD/corpus (kept between runs); the committed seeds
# in tools/server/fuzz/corpus are only read. A failing input is saved as
# $BUILD/artifacts/crash-*; replay it with:
#   $BUILD/tools/server/request_parser_fuzzer FILE
# Environment: PLUSH_FUZZ_SERVER_BUILD (default build/fuzz-server).
# The last line is "[fuzz-server] N executions in S s, 0 failures".
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-60s}
build=${PLUSH_FUZZ_SERVER_BUILD:-build/fuzz-server}
if [[ $limit =~ ^([0-9]+)s$ ]]; then
  bound=(-max_total_time="${BASH_REMATCH[1]}")
elif [[ $limit =~ ^[0-9]+$ ]]; then
  bound=(-runs="$limit")
else
  echo "usage: $0 [SECONDSs|RUNS]   e.g. 20s or 100000" >&2
  exit 2
fi

if [[ ! -f $build/build.ninja ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPLUSH_SANITIZE=address,undefined \
    -DPLUSH_BUILD_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
fi
cmake --build "$build" --target request_parser_fuzzer -j 2 >/dev/null

mkdir -p "$build/corpus" "$build/artifacts"
log="$build/fuzz.log"
start=$(date +%s)
status=0
"$build/tools/server/request_parser_fuzzer" "${bound[@]}" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/corpus" tools/server/fuzz/corpus >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if ((status != 0)); then
  tail -40 "$log" >&2
  echo "[fuzz-server] FAILED after ${runs:-?} executions (log: $log, input in $build/artifacts/)" >&2
  exit 1
fi
echo "[fuzz-server] ${runs:-0} executions in $(($(date +%s) - start)) s, 0 failures"
