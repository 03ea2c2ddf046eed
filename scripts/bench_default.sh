#!/usr/bin/env bash
# The benchmark `make bench` runs: a short comparison of plush, RocksDB and a
# DRAM hash map (insert, lookup, 50/50 lookup/insert; 2 threads; 2 million
# records), printed as one table. A few minutes at most.
#
# Usage: scripts/bench_default.sh BUILD_DIR
#   PLUSH_BENCH_RECORDS / PLUSH_BENCH_OPERATIONS override the sizes.
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

results=$(mktemp)
trap 'rm -f "$results"' EXIT

workloads=(
  "insert|--insert 1"
  "lookup|--lookup 1"
  "50/50 mix|--lookup 0.5 --insert 0.5"
)
status=0
for engine in plush rocksdb dram; do
  for entry in "${workloads[@]}"; do
    name=${entry%%|*}
    read -r -a ratios <<<"${entry#*|}"
    echo "bench_default: $engine, $name ($records records, $operations operations, 2 threads)" >&2
    # With --json every completed run prints its object, failed ones too.
    "$bench" --engine "$engine" -n "$records" -p "$operations" -t 2 \
      --workload "$name" "${ratios[@]}" --json >>"$results" || status=1
  done
done

python3 - "$results" <<'EOF'
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
header = ("engine", "workload", "Mops/s", "load Mops/s", "p50 ns", "p99 ns",
          "p99.9 ns", "DRAM MiB", "pool MiB", "status")
table = [header]
for r in rows:
    mib = lambda b: f"{b / 2**20:.1f}"
    table.append((r["engine"], r["workload"], f"{r['mops']:.3f}",
                  f"{r['load_mops']:.3f}", str(r["p50_ns"]), str(r["p99_ns"]),
                  str(r["p999_ns"]), mib(r["dram_bytes"]), mib(r["pool_bytes"]),
                  r["status"]))
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
print()
print(f"plush-bench: {rows[0]['records'] if rows else 0} records, 2 threads, "
      "8-byte keys and values, uniform keys")
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
