#!/usr/bin/env bash
# The benchmark `make bench` runs: a short comparison of plush, RocksDB and a
# DRAM hash map (insert, lookup, 50/50 lookup/insert; 2 threads; 2 million
# records), printed as one table. Under a minute on 2 idle cores.
#
# RocksDB is some 20 times slower than the others here (0.1 to 0.2 Mops/s
# inserts), so at the same sizes it alone would take minutes: it loads a
# quarter of the records and runs for a fixed time instead of a fixed
# operation count. Its throughput is still a rate over the same workload;
# the table's records and ops columns show the sizes each row used.
#
# Usage: scripts/bench_default.sh BUILD_DIR
#   PLUSH_BENCH_RECORDS / PLUSH_BENCH_OPERATIONS override the sizes,
#   PLUSH_BENCH_ROCKSDB_RECORDS / PLUSH_BENCH_ROCKSDB_SECONDS RocksDB's,
#   PLUSH_BENCH_THREADS the threads (2), PLUSH_BENCH_KEY_SIZE /
#   PLUSH_BENCH_VALUE_SIZE the record sizes (8; or normal:MEAN,STDDEV).
# Exits non-zero if any run failed its checks (the table shows which).
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR}
bench="$build/tools/bench/plush-bench"
if [[ ! -x $bench ]]; then
  echo "bench_default: $bench not found; build first (make build)" >&2
  exit 1
fi
records=${PLUSH_BENCH_RECORDS:-2000000}
operations=${PLUSH_BENCH_OPERATIONS:-2000000}
rocksdb_records=${PLUSH_BENCH_ROCKSDB_RECORDS:-$((records / 4))}
rocksdb_seconds=${PLUSH_BENCH_ROCKSDB_SECONDS:-5}
threads=${PLUSH_BENCH_THREADS:-2}
key_size=${PLUSH_BENCH_KEY_SIZE:-8}
value_size=${PLUSH_BENCH_VALUE_SIZE:-8}

results=$(mktemp)
trap 'rm -f "$results"' EXIT

workloads=(
  "insert|--insert 1"
  "lookup|--lookup 1"
  "50/50 mix|--lookup 0.5 --insert 0.5"
)
status=0
for engine in plush rocksdb dram; do
  if [[ $engine == rocksdb ]]; then
    sizes=(-n "$rocksdb_records" --seconds "$rocksdb_seconds")
    size_text="$rocksdb_records records, $rocksdb_seconds s"
  else
    sizes=(-n "$records" -p "$operations")
    size_text="$records records, $operations operations"
  fi
  for entry in "${workloads[@]}"; do
    name=${entry%%|*}
    read -r -a ratios <<<"${entry#*|}"
    echo "bench_default: $engine, $name ($size_text, $threads threads)" >&2
    # With --json every completed run prints its object, failed ones too.
    "$bench" --engine "$engine" "${sizes[@]}" -t "$threads" \
      --key-size "$key_size" --value-size "$value_size" \
      --workload "$name" "${ratios[@]}" --json >>"$results" || status=1
  done
done

python3 - "$results" "$threads" "$key_size" "$value_size" <<'EOF'
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
header = ("engine", "workload", "records", "ops", "Mops/s", "load Mops/s",
          "p50 ns", "p99 ns", "p99.9 ns", "DRAM MiB", "pool MiB", "status")
table = [header]
for r in rows:
    mib = lambda b: f"{b / 2**20:.1f}"
    table.append((r["engine"], r["workload"], str(r["records"]),
                  str(r["operations"]), f"{r['mops']:.3f}",
                  f"{r['load_mops']:.3f}", str(r["p50_ns"]), str(r["p99_ns"]),
                  str(r["p999_ns"]), mib(r["dram_bytes"]), mib(r["pool_bytes"]),
                  r["status"]))
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
print()
print(f"plush-bench: {sys.argv[2]} threads, keys {sys.argv[3]} B, values "
      f"{sys.argv[4]} B, uniform keys; records loaded, then ops run "
      "(rocksdb: fewer, for a fixed time)")
for n, row in enumerate(table):
    print("  ".join(cell.rjust(w) if i > 1 else cell.ljust(w)
                    for i, (cell, w) in enumerate(zip(row, widths))))
    if n == 0:
        print("  ".join("-" * w for w in widths))
for r in rows:
    if r["status"] != "ok":
        print(f"{r['engine']} {r['workload']}: {r['status']}: {r['error']}")
EOF
exit $status
