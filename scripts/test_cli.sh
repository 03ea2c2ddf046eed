#!/usr/bin/env bash
# End-to-end test of the plush CLI: every subcommand, the exit codes, the
# hex/base64 encodings, expiry (put --ttl, ttl, expire, dump | load), load
# of TSV and JSON lines in batches, and Busy
# while another process holds the pool; then kill -9 during loads
# (test_cli_kill.sh).
#
# Usage: scripts/test_cli.sh [BUILD_DIR]    (default: build/release)
# Tests the binary BUILD_DIR/tools/cli/plush; exits non-zero on failure.
set -uo pipefail

build=${1:-build/release}
plush=$build/tools/cli/plush
if [[ ! -x $plush ]]; then
  echo "test_cli: $plush is not built" >&2
  exit 1
fi

tmp=$(mktemp -d)
holder=
disk=     # a scratch directory on a disk, if $tmp is in memory
in_shm=   # a scratch directory in /dev/shm
cleanup() {
  [[ -n $holder ]] && kill "$holder" 2>/dev/null
  rm -rf "$tmp" ${disk:+"$disk"} ${in_shm:+"$in_shm"}
}
trap cleanup EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*" >&2
}

# run CMD...: runs CMD, leaving its exit code in $rc, stdout in $out and
# stderr in $err.
run() {
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(<"$tmp/out")
  err=$(<"$tmp/err")
}

# expect CODE CMD...: runs CMD and checks its exit code.
expect() {
  local want=$1
  shift
  run "$@"
  if ((rc == want)); then ok; else fail "'$*' exited $rc, expected $want; stderr: $err"; fi
}

# expect_out TEXT: the last command printed exactly TEXT.
expect_out() {
  if [[ $out == "$1" ]]; then ok; else fail "expected output '$1', got '$out'"; fi
}

# expect_err PATTERN: the last command's stderr matches PATTERN (grep -E).
expect_err() {
  if grep -qE "$1" <<<"$err"; then ok; else fail "stderr '$err' does not match '$1'"; fi
}

hash=$tmp/hash.pool
range=$tmp/range.pool

# ---- help and usage errors ------------------------------------------------
expect 0 "$plush" --help
expect_err '^$'
for cmd in create info stats verify put get delete ttl expire scan dump load; do
  expect 0 "$plush" "$cmd" --help
done
expect 2 "$plush"
expect 2 "$plush" frobnicate
expect 2 "$plush" get "$hash"        # KEY missing
expect 0 "$plush" --version

# ---- create, info, stats, verify ------------------------------------------
expect 0 "$plush" create "$hash" --small --backend file
expect 2 "$plush" create "$hash" --small # exists already
expect_err InvalidArgument
expect 0 "$plush" create "$range" --small --range --size 8MiB
# /tmp is no DAX file system: a pmem pool is refused and leaves no file.
# A size below what the pool needs is refused, not silently raised.
expect 2 "$plush" create "$tmp/tiny.pool" --size 64MiB
expect_err 'size 64.0 MiB is below the 260.0 MiB that a pool with these parameters needs'
[[ ! -e $tmp/tiny.pool ]] && ok || fail "a refused --size left a file"
expect 7 "$plush" create --backend pmem "$tmp/notdax.pool"
[[ ! -e $tmp/notdax.pool ]] && ok || fail "a refused create left a file"
expect 2 "$plush" create "$tmp/bad.pool" --backend tape
# Payload-log options: a pool without payload logs stores 8/8 records only.
expect 0 "$plush" create "$tmp/words.pool" --small --payload-log-count 0
expect 7 "$plush" put "$tmp/words.pool" short value
expect_err 'payload_log_count = 0'
expect 0 "$plush" put "$tmp/words.pool" key00001 value001
expect 0 "$plush" create "$tmp/chunks.pool" --small --payload-log-count 8 --payload-chunk-size 256KiB
expect 0 "$plush" put "$tmp/chunks.pool" short "a longer value"
expect 2 "$plush" create "$tmp/bad.pool" --payload-chunk-size 100KiB
expect_err 'payload_chunk_size must be a multiple of 4096 in \[128 KiB, 4 MiB\]'
expect 2 "$plush" create "$tmp/bad.pool" --payload-log-count 257
expect_err 'payload_log_count must be at most 256'
expect 2 "$plush" create "$tmp/bad.pool" --payload-chunk-size 8GiB
[[ ! -e $tmp/bad.pool ]] && ok || fail "a refused create left a file"
expect 2 "$plush" info "$tmp/missing.pool"
expect 0 "$plush" info "$hash"
for field in 'format version' 'partitioning: *hash' 'back end' durability levels DRAM pool; do
  grep -q "$field" <<<"$out" && ok || fail "info lacks '$field': $out"
done
expect 0 "$plush" stats "$hash"
expect_err '^$'
grep -q '^records_per_level: ' <<<"$out" && ok || fail "stats text: $out"
expect 0 "$plush" stats --json "$hash"
python3 -c '
import json, sys
stats = json.loads(sys.argv[1])
for f in ("backend", "power_fail_durable", "guarantee", "granularity",
          "format_version", "partitioning", "dram_bytes", "pool_bytes",
          "pool_used_bytes",
          "levels", "records_per_level", "migrations", "log_compactions",
          "log_forced_migrations", "persist_calls", "flushed_lines",
          "user_bytes_written", "media_bytes_written", "media_write_amp",
          "recovery_seconds", "recovered_log_entries"):
    assert f in stats, f
assert stats["partitioning"] == "hash", stats["partitioning"]
' "$out" && ok || fail "stats --json: $out"
expect 0 "$plush" verify "$hash"
grep -q ': OK$' <<<"$out" && ok || fail "verify output: $out"

# ---- put, get, delete -----------------------------------------------------
expect 0 "$plush" put "$hash" key00001 value001
expect 0 "$plush" get "$hash" key00001
expect_out value001
expect 1 "$plush" get "$hash" key00002
expect_err "NotFound: key 'key00002' not found"
expect_err NotFound
expect 0 "$plush" delete "$hash" key00001
expect 1 "$plush" get "$hash" key00001
expect 0 "$plush" delete "$hash" key00001 # deleting a missing key is fine
expect 2 "$plush" put "$tmp/missing.pool" key00001 value001
expect 0 "$plush" put "$hash" "short" "a longer value"
expect 0 "$plush" get "$hash" short
expect_out "a longer value"

# ---- put --sync, delete --sync ----------------------------------------------
# A sync write must survive power failure when the command returns, which a
# file system in memory cannot give: such a pool is refused (NotSupported,
# 7) before anything is written. So the writes that succeed need a pool on
# a disk: in $tmp, or else in /var/tmp.
in_memory() {
  local type
  type=$(stat -f -c %T "$1")
  [[ $type == tmpfs || $type == ramfs ]]
}
if ! in_memory "$tmp"; then
  synced=$tmp/synced.pool
elif [[ -w /var/tmp ]] && ! in_memory /var/tmp; then
  disk=$(mktemp -d /var/tmp/plush-test-cli.XXXXXX)
  synced=$disk/synced.pool
else
  synced=
  echo "test_cli: skipped put/delete --sync on a disk: $tmp and /var/tmp are in memory" >&2
fi
if [[ -n $synced ]]; then
  expect 0 "$plush" create --small "$synced"
  expect 0 "$plush" put --sync "$synced" key00001 value001
  expect_err '^$'
  expect 0 "$plush" put "$synced" --sync "short" "a longer value"
  expect 0 "$plush" get "$synced" key00001
  expect_out value001
  expect 0 "$plush" delete --sync "$synced" key00001
  expect 1 "$plush" get "$synced" key00001
  expect 0 "$plush" del --sync "$synced" short
  expect 1 "$plush" get "$synced" short
fi
sync_in_memory='^plush: NotSupported: WriteOptions::sync: the pool is on a file system in memory \(tmpfs or ramfs\), whose contents do not survive power loss; put the pool on a disk$'
if [[ -d /dev/shm ]] && in_memory /dev/shm; then
  in_shm=$(mktemp -d /dev/shm/plush-test-cli.XXXXXX)
  expect 0 "$plush" create --small "$in_shm/kv.pool"
  expect 7 "$plush" put --sync "$in_shm/kv.pool" key00001 value001
  expect_err "$sync_in_memory"
  expect 1 "$plush" get "$in_shm/kv.pool" key00001
  expect 0 "$plush" put "$in_shm/kv.pool" key00001 value001
  expect 7 "$plush" delete --sync "$in_shm/kv.pool" key00001
  expect_err "$sync_in_memory"
  expect 7 "$plush" del --sync "$in_shm/kv.pool" key00001
  expect_err "$sync_in_memory"
  expect 0 "$plush" get "$in_shm/kv.pool" key00001
  expect_out value001
else
  echo "test_cli: skipped put/delete --sync in memory: /dev/shm is no tmpfs or ramfs" >&2
fi
expect 0 "$plush" put --help
grep -q -- '--sync .*Return only once the write survives power failure' <<<"$out" && ok || fail "put --help: $out"
expect 2 "$plush" get --sync "$hash" key00001
expect_err 'The following argument was not expected: --sync'

# ---- hex and base64 -------------------------------------------------------
expect 0 "$plush" put --hex "$hash" 00ff00ff00ff00ff 0102030405060708
expect 0 "$plush" get "$hash" 00ff00ff00ff00ff --hex
expect_out 0102030405060708
expect 0 "$plush" get --base64 "$hash" AP8A/wD/AP8=
expect_out AQIDBAUGBwg=
expect 0 "$plush" put --base64 "$hash" a2V5MDAwMDM= dmFsdWUwMDM= # key00003
expect 0 "$plush" get "$hash" key00003
expect_out value003
expect 2 "$plush" get --hex "$hash" 0g
expect_err 'key.*hex'
expect 2 "$plush" get --base64 "$hash" 'a!'
expect 2 "$plush" get --hex --base64 "$hash" 00

# ---- load -----------------------------------------------------------------
for i in $(seq 1 3000); do printf 'k%07d\tv%07d\n' "$i" "$i"; done >"$tmp/records.tsv"
expect 0 "$plush" load "$hash" "$tmp/records.tsv" --threads 2
expect_err 'loaded 3000 records'
expect 0 "$plush" get "$hash" k0002999
expect_out v0002999
# A range pool split at the quantiles of the load file's keys: the keys
# share their first bytes, yet every unit takes a share.
expect 0 "$plush" create "$tmp/sampled.pool" --small --range --sample "$tmp/records.tsv"
grep -q 'range-partitioned at the quantiles of 256 sampled keys' <<<"$out" && ok || fail "create --sample: $out"
expect 0 "$plush" load "$tmp/sampled.pool" "$tmp/records.tsv"
expect 0 "$plush" info "$tmp/sampled.pool"
# (How evenly a pool of 4 units spreads is timing's business: the C++
# tests check the balance on pools of many units.)
grep -Eq 'records per unit: *[0-9]+ min, [0-9]+ median, [1-9][0-9]* max' <<<"$out" && ok || fail "unit balance of a sampled pool: $out"
grep -Eq 'partitioning: *range \(units adaptive, [0-9]+ re-balances\)' <<<"$out" && ok || fail "info of a sampled pool: $out"
expect 0 "$plush" scan "$tmp/sampled.pool" --start k0001500 --limit 2
expect_out "$(printf 'k0001500\tv0001500\nk0001501\tv0001501')"
# rebalance: a range pool loaded with keys that share their first bytes
# (k0000001...) re-balances as it is loaded, and rebalance splits what is
# still heavy, online, its records unchanged.
expect 0 "$plush" create "$tmp/skewed.pool" --small --range
expect 0 "$plush" load "$tmp/skewed.pool" "$tmp/records.tsv"
expect 0 "$plush" info "$tmp/skewed.pool"
# (Whether the background thread re-balanced during a load of 10 ms is
# timing's business.)
grep -Eq 'partitioning: *range \(units adaptive, [0-9]+ re-balances\)' <<<"$out" && ok || fail "info of a loaded range pool: $out"
expect 0 "$plush" dump "$tmp/skewed.pool"
before=$out
expect 0 "$plush" rebalance "$tmp/skewed.pool"
grep -Eq '^rebalanced .*: [0-9]+ moves; records per unit \(min, median, max\) [0-9]+, [0-9]+, [0-9]+ -> [0-9]+, [0-9]+, [1-9][0-9]*$' <<<"$out" && ok || fail "rebalance: $out"
expect 0 "$plush" info "$tmp/skewed.pool"
grep -Eq 'records per unit: *[0-9]+ min, [0-9]+ median, [1-9][0-9]* max' <<<"$out" && ok || fail "unit balance after rebalance: $out"
expect 0 "$plush" dump "$tmp/skewed.pool"
[[ $out == "$before" ]] && ok || fail "rebalance changed the records"
expect 0 "$plush" verify "$tmp/skewed.pool"
# NotSupported (7), as DB::Rebalance and db.rebalance() answer a hash pool.
expect 7 "$plush" rebalance "$hash"
expect_err "^plush: NotSupported: pool '$hash' is hash-partitioned: its keys spread by hash already; rebalance re-partitions range pools$"
expect 0 "$plush" create "$tmp/empty.pool" --small --range
expect 0 "$plush" rebalance "$tmp/empty.pool"
expect_out "rebalanced $tmp/empty.pool: 0 moves; records per unit (min, median, max) 0, 0, 0 -> 0, 0, 0"
expect 2 "$plush" rebalance "$tmp/missing.pool"
expect 2 "$plush" create "$tmp/bad.pool" --sample "$tmp/records.tsv"
expect_err 'sample requires --range'
expect 5 "$plush" create "$tmp/bad.pool" --range --sample "$tmp/missing.tsv"
expect_err "cannot open sample file '$tmp/missing.tsv'"
printf 'zz\n' >"$tmp/bad_sample"
expect 2 "$plush" create "$tmp/bad.pool" --range --hex --sample "$tmp/bad_sample"
expect_err "sample file '$tmp/bad_sample', line 1"
: >"$tmp/empty_sample"
expect 2 "$plush" create "$tmp/bad.pool" --range --sample "$tmp/empty_sample"
expect_err "holds no keys"
[[ ! -e $tmp/bad.pool ]] && ok || fail "a refused create left a file"
expect 0 "$plush" verify "$hash"

for i in $(seq 1 500); do printf '{"key": "j%07d", "value": "w%07d"}\n' "$i" "$i"; done >"$tmp/records.jsonl"
expect 0 "$plush" load --format jsonl "$range" "$tmp/records.jsonl"
expect 0 "$plush" get "$range" j0000500
expect_out w0000500

printf '6a30303030303031\t7830303030303031\n' >"$tmp/hex.tsv" # j0000001 x0000001
expect 0 "$plush" load --hex "$range" - <"$tmp/hex.tsv"
expect 0 "$plush" get "$range" j0000001
expect_out x0000001

printf 'k0000001\tv0000001\nno tab here\n' >"$tmp/bad.tsv"
expect 2 "$plush" load "$hash" "$tmp/bad.tsv"
expect_err 'bad.tsv: line 2'
printf '{"key": "k0000001"}\n' >"$tmp/bad.jsonl"
expect 2 "$plush" load --format jsonl "$hash" "$tmp/bad.jsonl"
expect_err 'line 1'
expect 5 "$plush" load "$hash" "$tmp/no-such-file.tsv"
expect 2 "$plush" load --format xml "$hash" "$tmp/records.tsv"

# --batch: every N records are one logged WriteBatch. A bad line stops the
# load: every record before it is in the pool and counted, none after it,
# whatever the threads.
batched=$tmp/batched.pool
for i in $(seq 1 40); do
  if ((i == 25)); then echo 'no tab here'; else printf 'b%07d\tv%07d\n' "$i" "$i"; fi
done >"$tmp/bad25.tsv"
for threads in 1 2; do
  for mode in "" --unlogged; do
    rm -f "$batched"
    expect 0 "$plush" create --small "$batched"
    expect 2 "$plush" load "$batched" "$tmp/bad25.tsv" --batch 10 --threads $threads $mode
    expect_err 'bad25.tsv: line 25: expected key<TAB>value'
    expect_err 'loaded 24 records in [0-9.]+ s; the load stopped early'
    expect 0 "$plush" get "$batched" b0000024
    expect 1 "$plush" get "$batched" b0000026
  done
done

# A key repeated in the file ends with its last value, whatever the threads
# and batches (each key is written by one thread, in file order).
python3 -c 'print("\n".join(f"k{i%50}\t{i}" for i in range(20000)))' >"$tmp/dup.tsv"
for threads in 1 2 3 8; do
  for batch in 1 7 32; do
    rm -f "$tmp/dup.pool"
    expect 0 "$plush" create "$tmp/dup.pool" --small
    expect 0 "$plush" load "$tmp/dup.pool" "$tmp/dup.tsv" --threads $threads --batch $batch
    expect_err 'loaded 20000 records'
    expect 0 "$plush" scan "$tmp/dup.pool"
    want=$(python3 -c 'print("\n".join(sorted(f"k{k}\t{19950 + k}" for k in range(50))))')
    [[ $(sort <<<"$out") == "$want" ]] && ok || fail "load --threads $threads --batch $batch kept a stale value: $(sort <<<"$out" | head -3)"
  done
done
# Blank lines hold no record and count in no batch.
rm -f "$batched"
expect 0 "$plush" create --small "$batched"
printf 'c1\t1\n\nc2\t2\n\r\nc3\t3\n\n' >"$tmp/blank.tsv"
expect 0 "$plush" load "$batched" "$tmp/blank.tsv" --batch 2 --threads 1
expect_err 'loaded 3 records'
expect 0 "$plush" get "$batched" c3
expect_out 3
# Any batch within the limits loads, wherever its keys fall (issue 27):
# more records than a --small pool's log chunk holds (167), more keys of
# one partition of a range pool than its DRAM entry holds (32).
expect 0 "$plush" load "$batched" "$tmp/records.tsv" --batch 3000 --threads 1
expect_err 'loaded 3000 records'
expect 0 "$plush" get "$batched" k0003000
expect_out v0003000
expect 0 "$plush" load "$range" "$tmp/records.jsonl" --format jsonl --batch 500
expect_err 'loaded 500 records'
expect 0 "$plush" verify "$range"
# A batch the engine refuses is named by its lines.
{ head -n 150 "$tmp/records.tsv"; printf '%01025d\tv\n' 0; } >"$tmp/long_key.tsv"
expect 2 "$plush" load "$batched" "$tmp/long_key.tsv" --batch 100 --threads 1
expect_err 'long_key.tsv: a batch of lines 101-151: batch operation 50: key of 1025 bytes exceeds the limit of 1024 bytes'
expect_err 'loaded 100 records'
expect 2 "$plush" load "$batched" "$tmp/records.tsv" --batch 0
expect_err 'batch: Value 0 not in range 1 to 65536'
expect 2 "$plush" load "$batched" "$tmp/records.tsv" --batch 65537
expect 0 "$plush" load "$batched" "$tmp/records.tsv" --unlogged --batch 1
expect_err 'loaded 3000 records'
expect 0 "$plush" verify "$batched"

# ---- dump | load ---------------------------------------------------------
# Any bytes round-trip with the default formats: random binary keys and
# values, empty values, keys at the size limit (1 KiB), a 64 KiB value.
python3 - "$tmp/binary.hex" <<'PY'
import random, sys
rng = random.Random(27)
records = {}
while len(records) < 1000:
    key = bytes(rng.randrange(256) for _ in range(rng.choice([1, 8, 13, 100, 1024])))
    records[key] = bytes(rng.randrange(256) for _ in range(rng.choice([0, 0, 8, 50, 300])))
records[b"\xff" * 1024] = bytes(rng.randrange(256) for _ in range(65536))
records[b"text key"] = "caf\u00e9 \t\n\"".encode()
with open(sys.argv[1], "w") as f:
    for k, v in records.items():
        f.write(f"{k.hex()}\t{v.hex()}\n")
PY
sorted_hex_dump() { "$plush" dump --hex "$1" | grep -v plush_dump | sort; }
for kind in "" --range; do
  rm -f "$tmp/a.pool" "$tmp/b.pool"
  expect 0 "$plush" create "$tmp/a.pool" --small $kind
  expect 0 "$plush" load --hex "$tmp/a.pool" "$tmp/binary.hex"
  expect_err 'loaded 1002 records'
  expect 0 "$plush" create "$tmp/b.pool" --small $kind
  "$plush" dump "$tmp/a.pool" >"$tmp/a.jsonl"
  expect 0 "$plush" load "$tmp/b.pool" - <"$tmp/a.jsonl"
  expect_err 'loaded 1002 records'
  [[ $(sorted_hex_dump "$tmp/a.pool") == "$(sorted_hex_dump "$tmp/b.pool")" && $(sorted_hex_dump "$tmp/b.pool" | wc -l) == 1002 ]] &&
    ok || fail "dump | load $kind did not copy every record exactly"
done
head -1 "$tmp/a.jsonl" | grep -qx '{"plush_dump":{"version":1,"encoding":"text"}}' && ok || fail "dump's first line: $(head -1 "$tmp/a.jsonl")"
tail -1 "$tmp/a.jsonl" | grep -qx '{"plush_dump_end":{"records":1002}}' && ok || fail "dump's last line: $(tail -1 "$tmp/a.jsonl")"
grep -q '"key_base64":' "$tmp/a.jsonl" && grep -q '"key":"text key","value":"café \\t\\n\\""' "$tmp/a.jsonl" && ok || fail "dump: text as text, other bytes as base64"
# A dump says its encoding: load reads it back without the flag, and
# refuses another one.
"$plush" dump --hex "$tmp/a.pool" >"$tmp/a.hex.jsonl"
rm -f "$tmp/c.pool"; expect 0 "$plush" create "$tmp/c.pool" --small
expect 0 "$plush" load "$tmp/c.pool" "$tmp/a.hex.jsonl"
expect_err 'loaded 1002 records'
expect 2 "$plush" load --base64 "$tmp/c.pool" "$tmp/a.hex.jsonl"
expect_err 'line 1: the dump is hex-encoded \(its first line says so\): load it without --base64'
# A dump cut short, or whose writer failed, is no success: the load says
# how many records it wrote and exits non-zero.
expect 2 "$plush" load "$tmp/c.pool" - < <(head -n -1 "$tmp/a.jsonl")
expect_err 'the input ends before the last line of the dump: the dump was cut short'
expect_err 'loaded 1002 records in [0-9.]+ s; the load stopped early'
expect 2 "$plush" load "$tmp/c.pool" - < <("$plush" dump "$tmp/missing.pool" 2>/dev/null)
expect_err 'the dump was cut short'
expect_err 'loaded 0 records'
expect 2 "$plush" load "$tmp/c.pool" - < <(sed 2d "$tmp/a.jsonl")
expect_err "line 1003: the dump's last line counts 1002 records, but 1001 came before it"
expect 2 "$plush" load "$tmp/c.pool" - < <(cat "$tmp/a.jsonl"; echo '{"key": "k", "value": "v"}')
expect_err 'line 1005: a line after the last line of the dump'
# --format tsv reads lines as they are; auto (the default) tells JSON lines.
expect 2 "$plush" load --format tsv "$tmp/c.pool" "$tmp/a.jsonl"
expect_err 'a.jsonl: line 1: expected key<TAB>value'

# ---- expiry ---------------------------------------------------------------
# put --ttl / --expires-at (seconds, kept to the millisecond), ttl, expire;
# `plush dump` writes each record's expiry and `plush load` applies it.
expiring=$tmp/expiring.pool
far=4102444800 # 2100-01-01 UTC: does not pass during the test
expect 0 "$plush" create --small --range "$expiring"
start=$(date +%s%N)
expect 0 "$plush" put "$expiring" soon v --ttl 0.5
written=$(date +%s%N) # soon expires 0.5 s after its put at the latest
expect 0 "$plush" get "$expiring" soon
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
((rc == 0 || elapsed_ms >= 500)) && ok || fail "a key with --ttl 0.5 was gone after $elapsed_ms ms"
expect 0 "$plush" put "$expiring" later v --ttl 3600
expect 0 "$plush" put "$expiring" fixed v --expires-at "$far.25"
expect 0 "$plush" put "$expiring" never v
expect 0 "$plush" put "$expiring" past v --expires-at 1
expect 1 "$plush" get "$expiring" past
expect_err "^plush: NotFound: key 'past' not found$"
expect 0 "$plush" put "$expiring" epoch v --expires-at 0 # long past, not "never"
expect 1 "$plush" get "$expiring" epoch
expect 0 "$plush" ttl "$expiring" later
[[ $out =~ ^(35[0-9][0-9]|3600)\.[0-9]{3}$ ]] && ok || fail "ttl after --ttl 3600: '$out'"
expect 0 "$plush" ttl "$expiring" never
expect_out -1
expect 1 "$plush" ttl "$expiring" missing
expect_err "^plush: NotFound: key 'missing' not found$"
expect 0 "$plush" dump "$expiring"
grep -qx "{\"key\":\"fixed\",\"value\":\"v\",\"expires_at_ms\":${far}250}" <<<"$out" && ok || fail "dump of an expiring record: $out"
grep -qx '{"key":"never","value":"v"}' <<<"$out" && ok || fail "dump of a record without expiry: $out"
head -1 <<<"$out" | grep -qx '{"plush_dump":{"version":1,"encoding":"text"}}' && ok || fail "dump's first line: $(head -1 <<<"$out")"
# expire sets or removes the expiry of a present key, keeping its value.
expect 0 "$plush" expire "$expiring" never --expires-at "$far"
expect 0 "$plush" dump "$expiring"
grep -qx "{\"key\":\"never\",\"value\":\"v\",\"expires_at_ms\":${far}000}" <<<"$out" && ok || fail "expire --expires-at: $out"
expect 0 "$plush" expire "$expiring" never --persist
expect 0 "$plush" ttl "$expiring" never
expect_out -1
expect 0 "$plush" expire --hex "$expiring" 6e65766572 --ttl 60 # never
expect 0 "$plush" ttl "$expiring" never
[[ $out =~ ^[56][0-9]\.[0-9]{3}$ ]] && ok || fail "ttl after expire --ttl 60: '$out'"
expect 0 "$plush" get "$expiring" never
expect_out v
expect 1 "$plush" expire "$expiring" missing --ttl 5
expect_err "^plush: NotFound: key 'missing' not found$"
# A put without --ttl or --expires-at leaves the key no expiry (Redis's SET).
expect 0 "$plush" put "$expiring" never v
expect 0 "$plush" ttl "$expiring" never
expect_out -1
# Bad expiry options: usage errors (2), nothing written.
expect 2 "$plush" put "$expiring" bad v --ttl 5 --expires-at "$far"
expect_err '^--ttl excludes --expires-at$'
expect 2 "$plush" put "$expiring" bad v --ttl -1
expect_err "^--ttl: expected seconds from 0 to 9e15, got '-1'$"
expect 2 "$plush" put "$expiring" bad v --ttl nan
expect_err "^--ttl: expected seconds from 0 to 9e15, got 'nan'$"
expect 2 "$plush" put "$expiring" bad v --expires-at 1e16
expect_err "^--expires-at: expected seconds from 0 to 9e15, got '1e16'$"
expect 2 "$plush" put "$expiring" bad v --ttl 5s
expect_err "^--ttl: expected seconds from 0 to 9e15, got '5s'$"
expect 2 "$plush" expire "$expiring" never
expect_err '^Exactly 1 option from \[--ttl,--expires-at,--persist\] is required$'
expect 2 "$plush" expire "$expiring" never --ttl 5 --persist
expect_err '^Exactly 1 option from \[--ttl,--expires-at,--persist\] is required and 2 were given$'
expect 2 "$plush" get "$expiring" never --ttl 5
expect_err '^The following arguments were not expected: 5 --ttl$'
expect 1 "$plush" get "$expiring" bad
# The key with --ttl 0.5 is gone by now, from get, ttl, expire and dump.
sleep "$(python3 -c "print(max(0, 0.512 - ($(date +%s%N) - $written) / 1e9))")"
expect 1 "$plush" get "$expiring" soon
expect 1 "$plush" ttl "$expiring" soon
expect 1 "$plush" expire "$expiring" soon --persist
"$plush" dump "$expiring" >"$tmp/expiring.jsonl"
grep -q '"soon"' "$tmp/expiring.jsonl" && fail "dump of an expired record" || ok
# dump | load keeps every expiry: the copy dumps the same lines.
expect 0 "$plush" create --small --range "$tmp/expiring_copy.pool"
expect 0 "$plush" load "$tmp/expiring_copy.pool" "$tmp/expiring.jsonl"
expect_err 'loaded 3 records'
expect 0 "$plush" dump "$tmp/expiring_copy.pool"
cmp -s "$tmp/out" "$tmp/expiring.jsonl" && ok || fail "dump | load | dump changed the expiry: $out"
# A record whose expiry has passed loads as expired: absent, and hiding
# what its key held. A key<TAB>value line has no expiry.
expect 0 "$plush" put "$tmp/expiring_copy.pool" old value
printf '{"key":"old","value":"v","expires_at_ms":1000}\n' >"$tmp/expired.jsonl"
expect 0 "$plush" load "$tmp/expiring_copy.pool" "$tmp/expired.jsonl"
expect_err 'loaded 1 records'
expect 1 "$plush" get "$tmp/expiring_copy.pool" old
printf 'later\tv\n' >"$tmp/later.tsv"
expect 0 "$plush" load "$tmp/expiring_copy.pool" "$tmp/later.tsv"
expect 0 "$plush" ttl "$tmp/expiring_copy.pool" later
expect_out -1
printf '{"key":"k","value":"v","expires_at_ms":-1}\n' >"$tmp/bad_expiry.jsonl"
expect 2 "$plush" load "$tmp/expiring_copy.pool" "$tmp/bad_expiry.jsonl"
expect_err 'bad_expiry.jsonl: line 1: "expires_at_ms" must be a whole number of Unix milliseconds, not -1'
expect 0 "$plush" verify "$expiring"

# ---- scan and dump --------------------------------------------------------
# A hash pool iterates in no particular order, and cannot start at a key.
expect 7 "$plush" scan "$hash" --start k0000001
expect_err 'range-partitioned'
expect 0 "$plush" dump --hex "$hash"
hash_records=$(wc -l <"$tmp/out")
((hash_records > 3000)) && ok || fail "dump of a hash pool printed $hash_records lines"
[[ $(sort -u "$tmp/out" | wc -l) == "$hash_records" ]] && ok || fail "dump of a hash pool repeated a record"
grep -q "\"key\":\"$(printf 'k0002999' | od -An -tx1 | tr -d ' \n')\"" "$tmp/out" && ok || fail "dump of a hash pool lacks k0002999"
expect 2 "$plush" scan "$hash" --limit -1
expect_err 'limit: must not be negative \(got -1\)'
expect 0 "$plush" scan --hex "$hash" --limit 5
[[ $(wc -l <"$tmp/out") == 5 ]] && ok || fail "scan --limit 5 of a hash pool printed $(wc -l <"$tmp/out") lines"
expect 0 "$plush" info "$range"
grep -q 'partitioning: *range' <<<"$out" && ok || fail "info of a range pool: $out"
# Its keys share their first bytes: re-balancing spread them over units.
grep -Eq 'records per unit: *[0-9]+ min, [0-9]+ median, [1-9][0-9]* max \(of 4 units\)' <<<"$out" && ok || fail "unit balance of a range pool: $out"
expect 0 "$plush" scan "$range" --start j0000100 --limit 3
expect_out "$(printf 'j0000100\tw0000100\nj0000101\tw0000101\nj0000102\tw0000102')"
expect 0 "$plush" scan "$range" --start j0000100 --end j0000103
expect_out "$(printf 'j0000100\tw0000100\nj0000101\tw0000101\nj0000102\tw0000102')"
expect 7 "$plush" scan "$hash" --end k0000001
expect_err 'iterate_upper_bound needs a range-partitioned pool'
expect 0 "$plush" delete "$range" j0000101
expect 0 "$plush" scan "$range" --start j00000999 --limit 3
expect_out "$(printf 'j0000100\tw0000100\nj0000102\tw0000102\nj0000103\tw0000103')"
expect 0 "$plush" put "$range" j0000101 w0000101
expect 0 "$plush" dump "$range"
((${#out} > 0)) && [[ $(wc -l <"$tmp/out") == 502 ]] && ok || fail "dump printed $(wc -l <"$tmp/out") lines"
grep -v plush_dump "$tmp/out" | sort -c && ok || fail "dump is not in key order"
cp "$tmp/out" "$tmp/dump.jsonl"
expect 0 "$plush" create --small --range "$tmp/copy.pool"
expect 0 "$plush" load --format jsonl "$tmp/copy.pool" "$tmp/dump.jsonl"
expect 0 "$plush" dump "$tmp/copy.pool"
cmp -s "$tmp/out" "$tmp/dump.jsonl" && ok || fail "dump | load | dump changed the records"
expect 0 "$plush" dump --base64 "$range"
grep -q '"key":"ajAwMDAwMDE="' "$tmp/out" && ok || fail "dump --base64: $(head -1 "$tmp/out")"

# ---- backup ----------------------------------------------------------------
expect 0 "$plush" backup "$range" "$tmp/backup.pool"
expect 0 "$plush" dump "$tmp/backup.pool"
cmp -s "$tmp/out" "$tmp/dump.jsonl" && ok || fail "the backup holds other records"
expect 2 "$plush" backup "$range" "$tmp/backup.pool" # never overwritten
expect_err 'already exists'
expect 5 "$plush" backup "$range" "$tmp/no-such-dir/backup.pool"
ls "$tmp/no-such-dir" >/dev/null 2>&1 && fail "a failed backup left a directory" || ok

# ---- a damaged pool -------------------------------------------------------
damaged=$tmp/damaged.pool
expect 0 "$plush" create --small "$damaged"
printf 'not a plush superblock' | dd of="$damaged" conv=notrunc status=none
expect 1 "$plush" verify "$damaged" # problems found
expect_err Corruption
expect 3 "$plush" get "$damaged" key00001

# ---- Busy while another process holds the pool ----------------------------
# A load reading from a FIFO holds the pool open until the FIFO is closed.
mkfifo "$tmp/fifo"
"$plush" load "$hash" "$tmp/fifo" >/dev/null 2>&1 &
holder=$!
exec 3>"$tmp/fifo"
# Wait until the holder has the pool open (mapped or as an open file),
# without probing through the CLI, which would race with the holder's open.
for _ in $(seq 100); do
  grep -qF "$hash" "/proc/$holder/maps" 2>/dev/null && break
  grep -qF "$hash" <<<"$(ls -l "/proc/$holder/fd" 2>/dev/null)" && break
  sleep 0.1
done
expect 6 "$plush" get "$hash" k0000001
expect_err Busy
expect 6 "$plush" put "$hash" k0000001 v0000001
exec 3>&-
wait "$holder"
holder_rc=$?
holder=
((holder_rc == 0)) && ok || fail "the holding load exited $holder_rc"
expect 0 "$plush" get "$hash" k0000001

# ---- del: delete's alias, the name redis-cli users type ----------------------
alias_pool=$tmp/alias.pool
expect 0 "$plush" create --small "$alias_pool"
expect 0 "$plush" put "$alias_pool" key00001 value001
expect 0 "$plush" del "$alias_pool" key00001
expect_err '^$'
expect 1 "$plush" get "$alias_pool" key00001
expect 0 "$plush" del "$alias_pool" key00001 # a missing key is no error
expect 0 "$plush" del --hex "$alias_pool" 6b65793030303031
expect 2 "$plush" del "$alias_pool"
expect_err '^KEY is required$'
expect 0 "$plush" del --help
grep -q '^Usage: plush delete \[OPTIONS\] POOL KEY$' <<<"$out" && ok || fail "del --help: $out"
expect 0 "$plush" --help
grep -Eq '^  delete, del +Remove a key' <<<"$out" && ok || fail "--help does not name the alias del: $out"

# ---- kill -9 during a load --------------------------------------------------
source "$(dirname "$0")/test_cli_kill.sh"

echo "test_cli: $passed passed, $failed failed"
((failed == 0))
