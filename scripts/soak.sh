#!/usr/bin/env bash
# The reliability soak (docs/reliability.md §3): long runs of every crash
# explorer (each persist-point family, each crash state also crashed during
# its recovery, with its wrong-oracle controls), the engine's kill -9 test,
# plush-server killed under redis-py load and under go-redis (Porcupine's
# linearizability check), the resource and file-system fault tests, the
# damaged-pool tests, the scan model and the
# two libFuzzer targets; ending in one summary whose figures go into
# docs/reliability.md. Two lanes run side by side, one per core: the crash
# explorers and the scan model; the processes that are killed, the
# damaged pools and the fuzzers. About 35 minutes on 2 cores, after the builds.
#
#   scripts/soak.sh [BUILD_DIR]        default build/release
#
# Environment: PLUSH_SOAK_ROUNDS (rounds of the crash explorers, each on
# other workloads, PLUSH_SOAK_ROUND; default 3), PLUSH_SOAK_FUZZ (the pool
# fuzzer's bound for scripts/fuzz.sh, default 900s), PLUSH_SOAK_REQUEST_FUZZ
# (the request parser's, default 1000000 executions). Exits non-zero if
# anything failed, or if a control was not caught.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build/release}
rounds=${PLUSH_SOAK_ROUNDS:-3}
pool_fuzz=${PLUSH_SOAK_FUZZ:-900s}
request_fuzz=${PLUSH_SOAK_REQUEST_FUZZ:-1000000}
crash_tests=(crash_test crash_varlen_test crash_unlogged_test crash_batch_test
  crash_rebalance_test)

# ---- Builds (not in the soak's time) -----------------------------------------
[[ -f $build/build.ninja ]] || cmake --preset release -B "$build" >/dev/null
cmake --build "$build" -j 2 --target "${crash_tests[@]}" scan_model_test \
  kill_test resource_fault_test file_fault_test bad_input_test \
  fuzz_corpus_test plush_server plush_cli >/dev/null
scripts/fuzz.sh 1 pool >/dev/null
scripts/fuzz.sh 1 request >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source tools/server/tests/python/venv.sh

log=$tmp/soak
run() {  # NAME COMMAND...: runs a test in soak mode, keeps its log
  local name=$1 start=$SECONDS
  shift
  if ! PLUSH_SOAK=1 "$@" >"$log.$name" 2>&1; then
    tail -30 "$log.$name" >&2
    echo "soak: $name FAILED (log: $log.$name)" >&2
    return 1
  fi
  echo "soak: $name passed in $((SECONDS - start)) s" >&2
}
crash_lane() {
  local round test
  for ((round = 0; round < rounds; round++)); do
    for test in "${crash_tests[@]}"; do
      run "$test.$round" env PLUSH_SOAK_ROUND="$round" "$build/tests/$test" ||
        return 1
    done
  done
  run scan_model "$build/tests/scan_model_test"
}
kill_lane() {
  run kill "$build/tests/kill_test" &&
    run resource_fault "$build/tests/resource_fault_test" &&
    run file_fault "$build/tests/file_fault_test" &&
    run bad_input "$build/tests/bad_input_test" &&
    run fuzz_corpus "$build/tests/fuzz_corpus_test" &&
    run redis_clients scripts/test_redis_clients.sh "$build" &&
    (cd "$tmp" && run kill9_server "$tmp/venv/bin/python" -m pytest -q -s \
      -p no:cacheprovider "$root/tools/server/tests/python/test_kill9.py" \
      -k acknowledged) &&
    run fuzz_pool scripts/fuzz.sh "$pool_fuzz" pool &&
    run fuzz_request scripts/fuzz.sh "$request_fuzz" request
}
start=$SECONDS
crash_lane &
crash_pid=$!
kill_lane &
kill_pid=$!
status=0
wait "$crash_pid" || status=1
wait "$kill_pid" || status=1
if ((status != 0)); then
  trap - EXIT  # the logs stay for a look
  exit 1
fi
took=$((SECONDS - start))

# ---- Summary -----------------------------------------------------------------
crash_logs=("$log".crash_*)
echo
echo "== Plush reliability soak, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $((took / 60)) min $((took % 60)) s after the builds"
echo "== $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"
grep -h '^\[crash' "${crash_logs[@]}"
# The explorers' totals: crash states (and those crashed again during
# recovery) with their failures, apart from the controls' (whose failures
# must be > 0 in every control).
awk '
  /^\[crash/ {
    control = ($0 ~ /wrong oracle|control/)
    states = 0; again = 0; failures = 0
    if (match($0, /[0-9]+ crash states/)) states = substr($0, RSTART, RLENGTH) + 0
    if (match($0, /[0-9]+ (with a second crash|crashed again) during recovery/))
      again = substr($0, RSTART, RLENGTH) + 0
    if (match($0, /[0-9]+ failures/)) failures = substr($0, RSTART, RLENGTH) + 0
    if (control) {
      controls++; control_states += states; caught += failures
      if (failures == 0) missed++
    } else {
      explored += states; recrashed += again; failed += failures
    }
  }
  END {
    printf "[crash] total: %d crash states explored (%d also crashed during recovery), %d failures; %d control runs, %d crash states, %d failures caught, %d controls that caught nothing\n",
      explored, recrashed, failed, controls, control_states, caught, missed
    exit (failed > 0 || missed > 0)
  }' "${crash_logs[@]}"
grep -h '^\[scan\] .* ops,' "$log.scan_model"
grep -h '^\[kill\]' "$log.kill"
grep -h '^\[kill9-server\]' "$log.kill9_server"
grep -h '^\[bad_input\]' "$log.bad_input"
for faults in resource_fault file_fault; do
  echo "[$faults] $(grep -c '^\[       OK \]' "$log.$faults") tests passed"
done
echo "[fuzz_corpus] $(grep -c '^\[       OK \]' "$log.fuzz_corpus") tests passed (100000 random edit scripts + the seed corpus)"
tail -1 "$log.fuzz_pool"
tail -1 "$log.fuzz_request"
# One line per configuration of the linearizability check: its runs summed.
awk '/^\[linearizability\]/ {
  name = substr($0, 19, index($0, ": ") - 19)
  runs[name]++
  for (i = 2; i <= NF; i++) {
    if ($(i) ~ /^kills,?$/) kills[name] += $(i - 1)
    if ($(i) == "answered") answered[name] += $(i - 2)
    if ($(i) ~ /^unknown,?$/) unknown[name] += $(i - 1)
  }
}
END {
  for (name in runs)
    printf "[linearizability] %s: %d runs, %d kills, %d operations answered, %d unknown\n",
      name, runs[name], kills[name], answered[name], unknown[name]
}' "$log.redis_clients" | sort
