#!/usr/bin/env bash
# plush-server vs. Redis, measured with redis-benchmark (issue #19): SET,
# GET, INCR, MSET (10 keys) and SET ... EX 60 (issue 30) from 50 clients,
# pipelines of 1 and 16, values of 8 and 200 bytes; and transactions
# (MULTI, SET, INCR, GET, EXPIRE, EXEC: redis-benchmark sends one command
# per request, so redis-cli --pipe streams them, from 4 connections at
# once, each sending all of its share without waiting), against
#   plush      plush-server, pool in /dev/shm (file back end: a write is
#              answered once it survives a crash of the process)
#   synced     plush-server --sync-writes, pool beside Redis's AOF (a write
#              is answered once msync'd: it survives a power failure)
#   always     redis-server, appendonly yes, appendfsync always (a write is
#              answered once fsync'd: it survives a power failure)
#   everysec   redis-server, appendonly yes, appendfsync everysec (answered
#              once written to the AOF: survives a crash of the process)
#   none       redis-server without persistence
# all five running at once, each test run against each of them in turn (so
# that a change in the machine's load hits all alike), ROUNDS times. Prints
# a Markdown table: the median requests per second of the rounds, plush's
# ratios to always and everysec, and synced's to always (the same
# guarantee).
#
# Usage: scripts/bench_server.sh [BUILD_DIR]    (default: build/release)
# Environment:
#   REQUESTS       requests per run (default 200000; a tenth for always
#                  and synced without pipelining, which are slow); a tenth
#                  as many transactions (a hundredth for always and synced)
#   ROUNDS         runs of each test against each server (default 3)
#   REDIS_AOF_DIR  where Redis keeps its AOF and synced its pool (default
#                  /var/tmp: a disk, as appendfsync always is meant for;
#                  plush-server --sync-writes refuses tmpfs)
#   PLUSH_THREADS  plush-server's --threads (default: one per core)
# Needs redis-tools and redis-server (scripts/install_deps.sh).
set -euo pipefail

build=${1:-build/release}
server=$build/tools/server/plush-server
if [[ ! -x $server ]]; then
  echo "bench_server: $server is not built" >&2
  exit 1
fi
requests=${REQUESTS:-200000}
rounds=${ROUNDS:-3}
pool_dir=$(mktemp -d /dev/shm/bench-server.XXXXXX)
aof_root=$(mktemp -d "${REDIS_AOF_DIR:-/var/tmp}/bench-server-aof.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$pool_dir" "$aof_root"
}
trap cleanup EXIT

# A free TCP port.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

declare -A port
targets=(plush synced always everysec none)
threads=()
[[ -n ${PLUSH_THREADS:-} ]] && threads=(--threads "$PLUSH_THREADS")
port[plush]=$(free_port)
"$server" --pool "$pool_dir/bench.pool" --create --port "${port[plush]}" "${threads[@]}" \
  2>"$pool_dir/plush.log" &
pids+=($!)
port[synced]=$(free_port)
"$server" --pool "$aof_root/synced.pool" --create --port "${port[synced]}" "${threads[@]}" \
  --sync-writes 2>"$aof_root/synced.log" &
pids+=($!)
for mode in always everysec none; do
  port[$mode]=$(free_port)
  mkdir -p "$aof_root/$mode"
  if [[ $mode == none ]]; then
    persistence=(--appendonly no)
  else
    persistence=(--appendonly yes --appendfsync "$mode")
  fi
  redis-server --port "${port[$mode]}" --bind 127.0.0.1 --dir "$aof_root/$mode" \
    --save '' "${persistence[@]}" --daemonize no --logfile "$aof_root/$mode.log" &
  pids+=($!)
done
for target in "${targets[@]}"; do
  for _ in $(seq 100); do
    redis-cli -p "${port[$target]}" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
done

# A value of SIZE bytes.
value() { head -c "$1" /dev/zero | tr '\0' x; }

# rps TARGET TEST SIZE PIPELINE: requests per second of one run. TEST is
# one of redis-benchmark's, or setex: SET key:__rand_int__ VALUE EX 60, a
# command of our own (after the options, as redis-benchmark wants it).
rps() {
  local n=$requests command=(-t "$2")
  [[ ($1 == always || $1 == synced) && $4 == 1 ]] && n=$((requests / 10))
  [[ $2 == setex ]] && command=(SET 'key:__rand_int__' "$(value "$3")" EX 60)
  redis-benchmark -p "${port[$1]}" -c 50 -n "$n" -P "$4" -d "$3" -r 100000 --csv "${command[@]}" 2>/dev/null |
    awk -F'"' 'NR == 2 { printf "%.0f", $4 }'
}

# The transactions' requests: $tx_connections files of RESP per value
# size, each of MULTI, SET key:R VALUE, INCR counter:R, GET key:R, EXPIRE
# key:R 60, EXEC, R random below 100000, made once.
tx_connections=4
tx_files() {
  local size=$1 count=$2
  python3 - "$pool_dir/tx-$size-$count" "$tx_connections" "$count" "$(value "$size")" <<'PYTHON'
import random, sys
prefix, files, count, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def command(*args):
    return f"*{len(args)}\r\n" + "".join(f"${len(a)}\r\n{a}\r\n" for a in args)
for f in range(files):
    with open(f"{prefix}.{f}", "w") as out:
        for _ in range(count // files):
            r = random.randrange(100000)
            out.write(command("MULTI") + command("SET", f"key:{r}", value) +
                      command("INCR", f"counter:{r}") + command("GET", f"key:{r}") +
                      command("EXPIRE", f"key:{r}", "60") + command("EXEC"))
PYTHON
}

# tx_rps TARGET SIZE: transactions per second of one run (none if one
# failed: redis-cli counts error replies).
tx_rps() {
  local count=$((requests / 10)) pipes=() i start
  [[ $1 == always || $1 == synced ]] && count=$((requests / 100))
  [[ -e $pool_dir/tx-$2-$count.0 ]] || tx_files "$2" "$count"
  start=$(date +%s%N)
  for ((i = 0; i < tx_connections; i++)); do
    redis-cli -p "${port[$1]}" --pipe <"$pool_dir/tx-$2-$count.$i" >"$pool_dir/tx.out.$i" 2>&1 &
    pipes+=($!)
  done
  wait "${pipes[@]}" || return 0
  local seconds
  seconds=$(echo "($(date +%s%N) - $start) / 10^9" | bc -l)
  [[ -z $(grep -L 'errors: 0,' "$pool_dir"/tx.out.*) ]] || return 0
  printf '%.0f' "$(echo "$count / $seconds" | bc -l)"
}

# row TEST SIZE PIPELINE: the table's row of a test whose runs are in
# ${runs[target]} (space separated).
row() {
  local target
  declare -A result=()
  for target in "${targets[@]}"; do
    result[$target]=$(tr ' ' '\n' <<<"${runs[$target]}" | grep . | sort -n |
      awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  done
  printf '| %s | %s B | %s | %s | %s | %s | %s | %s | %.1f | %.2f | %.1f |\n' \
    "$1" "$2" "$3" "${result[plush]}" "${result[synced]}" \
    "${result[always]}" "${result[everysec]}" "${result[none]}" \
    "$(echo "${result[plush]} / ${result[always]}" | bc -l)" \
    "$(echo "${result[plush]} / ${result[everysec]}" | bc -l)" \
    "$(echo "${result[synced]} / ${result[always]}" | bc -l)"
}

echo "machine: $(nproc) vCPU, $(lscpu | sed -n 's/^Model name: *//p'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "redis-benchmark -c 50 -n $requests -P {1,16} -d {8,200} -r 100000 --csv {-t {set,get,incr,mset},SET key:__rand_int__ VALUE EX 60}" \
  "(always and synced with -P 1: -n $((requests / 10))); median of $rounds rounds; Redis AOF in ${REDIS_AOF_DIR:-/var/tmp}"
echo "MULTI: $((requests / 10)) transactions (always and synced: $((requests / 100))) of MULTI, SET, INCR, GET, EXPIRE, EXEC" \
  "over $tx_connections redis-cli --pipe connections; transactions per second"
echo
echo "| test | value | pipeline | plush | plush synced | Redis always | Redis everysec | Redis none | plush / always | plush / everysec | synced / always |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A label=([set]=SET [get]=GET [incr]=INCR [mset]=MSET [setex]="SET EX 60")
for size in 8 200; do
  for pipeline in 1 16; do
    for test in set get incr mset setex; do
      declare -A runs=()
      for _ in $(seq "$rounds"); do
        for target in "${targets[@]}"; do
          runs[$target]+="$(rps "$target" "$test" "$size" "$pipeline") "
        done
      done
      row "${label[$test]}" "$size" "$pipeline"
    done
  done
  declare -A runs=()
  for _ in $(seq "$rounds"); do
    for target in "${targets[@]}"; do
      runs[$target]+="$(tx_rps "$target" "$size") "
    done
  done
  row "MULTI (4 commands)" "$size" "--pipe"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
redis-cli -p "${port[plush]}" info stats | grep -E '^plush_reply_syncs' | tr -d '\r'
