# kill -9 during `plush load --batch N`: after the crash the pool opens, its
# records form whole batches of the input (the records of a batch are all
# there or all absent; with one loader thread, the batches there are the
# first K of the file), every value is right, verify passes, and loading
# the file again completes it.
#
# Sourced by scripts/test_cli.sh, whose $plush, $tmp, $holder (killed on
# exit), ok and fail it uses.

# Record i (from 0) is line i + 1 of the file, key k<i> with value v<i>: the
# key tells which batch of N a record belongs to, [b * N, (b + 1) * N).
kill_records=1000000
python3 -c '
import sys
n = int(sys.argv[1])
sys.stdout.write("".join(f"k{i:09d}\tv{i:09d}\n" for i in range(n)))
' "$kill_records" >"$tmp/kill.tsv"

# check_batches N THREADS [unordered]: reads `plush dump` of a pool on
# stdin, checks the values and that the records form whole batches of N,
# and unless told otherwise that the batches of each loader thread are its
# first K (a thread writes the records of its keys in file order, N at a
# time: tools/cli/keyed_workers.h names the owner of a key); prints how
# many records there are.
check_batches() {
  python3 -c '
import json, sys
batch, threads, total = (int(a) for a in sys.argv[1:4])
ordered = sys.argv[4] != "unordered"
def owner(key):
    h = 0xcbf29ce484222325
    for b in key.encode():
        h = ((h ^ b) * 0x100000001b3) % 2**64
    return h % threads
# Each thread writes its records in file order, batch after batch.
batch_of, sizes = {}, {}
position = [0] * threads
for i in range(total):
    w = owner(f"k{i:09d}")
    batch_of[i] = (w, position[w] // batch)
    sizes[batch_of[i]] = sizes.get(batch_of[i], 0) + 1
    position[w] += 1
present = set()
for line in sys.stdin:
    record = json.loads(line)
    if "key" not in record:
        continue  # the first and last lines of a dump
    i, value = int(record["key"][1:]), record["value"]
    if value != f"v{i:09d}":
        sys.exit(f"record {i} has the value {value!r}")
    present.add(i)
counts = {}
for i in present:
    counts[batch_of[i]] = counts.get(batch_of[i], 0) + 1
for b, count in sorted(counts.items()):
    if count != sizes[b]:
        sys.exit(f"batch {b[1]} of thread {b[0]} has {count} of its "
                 f"{sizes[b]} records")
for w in range(threads if ordered else 0):
    written = sorted(k for t, k in counts if t == w)
    if written != list(range(len(written))):
        sys.exit(f"thread {w}: batch {min(set(range(written[-1] + 1)) - set(written))} "
                 f"is missing and batch {written[-1]} is there")
print(len(present))
' "$1" "$2" "$kill_records" "${3:-ordered}"
}

# crash_load N THREADS [--unlogged]: loads the file into a new pool, kills
# the load with SIGKILL at a random moment, and checks the pool: whole
# batches of N, or with --unlogged (which promises nothing about a load cut
# short) only that it opens, holds right values and verifies. Moves the
# moment and tries again while the kill lands before the first batch or
# after the last.
crash_load() {
  local batch=$1 threads=$2 mode=${3:-} pool=$tmp/kill-$1-$2.pool
  local whole=$batch delay_ms=$((100 + RANDOM % 700)) attempt rc present
  local order=ordered
  [[ $mode == --unlogged ]] && whole=1 order=unordered
  local what="batch $batch, $threads thread(s)${mode:+, $mode}"
  for attempt in 1 2 3 4 5 6; do
    rm -f "$pool"
    "$plush" create --small "$pool" >/dev/null || return 1
    "$plush" load "$pool" "$tmp/kill.tsv" --batch "$batch" \
      --threads "$threads" $mode 2>"$tmp/load.err" &
    holder=$!
    sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
    kill -9 "$holder" 2>/dev/null
    { wait "$holder"; } 2>/dev/null # no "Killed" from the shell
    rc=$?
    holder=
    if ((rc != 137 && rc != 0)); then
      fail "$what: the load failed on its own (exit $rc): $(<"$tmp/load.err")"
      return 1
    fi
    if ! "$plush" dump "$pool" >"$tmp/dump.jsonl" 2>"$tmp/err"; then
      fail "$what: the pool does not open after kill -9: $(<"$tmp/err")"
      return 1
    fi
    if ! present=$(check_batches "$whole" "$threads" "$order" <"$tmp/dump.jsonl"); then
      fail "$what, killed after $delay_ms ms: not whole batches"
      return 1
    fi
    if ((present > 0 && present < kill_records)); then
      echo "test_cli_kill: $what: killed after $delay_ms ms with $present" \
        "of $kill_records records in the pool"
      ok
      "$plush" verify "$pool" >"$tmp/out" 2>&1 && ok || fail "$what: verify after kill -9: $(<"$tmp/out")"
      return 0
    fi
    if ((present == 0)); then
      delay_ms=$((delay_ms * 2))
    else
      delay_ms=$((delay_ms / 2))
    fi
  done
  fail "$what: no kill landed during the load"
  return 1
}

crash_load 32 1 # the default batch
crash_load 7 2  # two loader threads: whole batches, in any order
crash_load 32 2 --unlogged
# A batch that does not divide a chunk; then loading again completes the
# pool.
if crash_load 24 1; then
  if "$plush" load "$tmp/kill-24-1.pool" "$tmp/kill.tsv" 2>"$tmp/err"; then
    present=$("$plush" dump "$tmp/kill-24-1.pool" | check_batches 24 1)
    ((present == kill_records)) && ok || fail "after loading again: $present records"
  else
    fail "loading again after kill -9: $(<"$tmp/err")"
  fi
fi
