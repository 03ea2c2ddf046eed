#!/usr/bin/env bash
# The reliability soak: long runs of the crash explorer, the kill -9 test,
# the damaged-pool tests, the fuzzer and plush-server's linearizability
# check, ending in one summary whose figures go into docs/reliability.md.
# Takes about 35 minutes on 2 cores.
#
#   scripts/soak.sh [BUILD_DIR]        default build/release
#
# Environment: PLUSH_SOAK_FUZZ (fuzzer bound for scripts/fuzz.sh, default
# 600s). Exits non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
fuzz_bound=${PLUSH_SOAK_FUZZ:-600s}
[[ -f $build/build.ninja ]] || cmake --preset release -B "$build" >/dev/null
cmake --build "$build" -j 2 --target crash_test crash_varlen_test crash_unlogged_test \
  scan_model_test kill_test bad_input_test fuzz_corpus_test resource_fault_test \
  plush_server plush_cli >/dev/null

log=$(mktemp -d)/soak.log
run() {  # NAME COMMAND...: runs a test binary in soak mode, keeps its log
  local name=$1 start=$SECONDS
  shift
  if ! PLUSH_SOAK=1 "$@" >"$log.$name" 2>&1; then
    tail -30 "$log.$name" >&2
    echo "soak: $name FAILED (log: $log.$name)" >&2
    exit 1
  fi
  echo "soak: $name passed in $((SECONDS - start)) s" >&2
}
run crash "$build/tests/crash_test"
run crash_varlen "$build/tests/crash_varlen_test"
run crash_unlogged "$build/tests/crash_unlogged_test"
run scan_model "$build/tests/scan_model_test"
run kill "$build/tests/kill_test"
run bad_input "$build/tests/bad_input_test"
run fuzz_corpus "$build/tests/fuzz_corpus_test"
run resource_fault "$build/tests/resource_fault_test"
run redis_clients scripts/test_redis_clients.sh "$build"
fuzz_line=$(scripts/fuzz.sh "$fuzz_bound" | tail -1)

echo
echo "== Plush reliability soak, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "== $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"
grep -h '^\[crash\]' "$log.crash" "$log.crash_varlen" "$log.crash_unlogged"
grep -h '^\[scan\] .* ops,' "$log.scan_model"
grep -h '^\[kill\] \(small\|larger\)' "$log.kill"
grep -h '^\[bad_input\]' "$log.bad_input"
echo "[fuzz_corpus] $(grep -c '^\[       OK \]' "$log.fuzz_corpus") tests passed (20000 random edit scripts + seed corpus)"
echo "$fuzz_line"
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
