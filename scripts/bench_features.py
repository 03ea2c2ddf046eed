#!/usr/bin/python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""The measurements behind docs/benchmarks.md's sections on write batches,
MultiGet, iteration, backup and single-operation speed and tails: plush
and its peers in one run, 2 threads, printed as markdown tables.

    scripts/bench_features.py BUILD_DIR [--records N] [--only NAME ...]

Every plush-bench run's JSON goes to results/features-<time>.jsonl as well.
RocksDB is ~20x slower than the others here: it loads a quarter of the
records and runs for a fixed time (its rate is still over the same
workload). Sizes: --records (default 10 million).
"""

import argparse
import datetime
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
SIZES = {"8/8": ["--key-size", "8", "--value-size", "8"],
         "16/200": ["--key-size", "16", "--value-size", "200"]}


class Bench:
    def __init__(self, binary, records, log):
        self.binary = binary
        self.records = records
        self.log = log

    def run(self, engine, *args):
        """One plush-bench run; returns its JSON (status checked)."""
        n = self.records
        sized = [str(a).replace("{n}", str(n)).replace("{n4}", str(n // 4))
                 for a in args]
        command = [str(self.binary), "--engine", engine, "-t", "2", "--json",
                   "--skip-verify", *sized]
        print("  " + " ".join(command[1:]), file=sys.stderr, flush=True)
        out = subprocess.run(command, stdout=subprocess.PIPE, text=True)
        record = json.loads(out.stdout.strip().splitlines()[-1])
        with open(self.log, "a") as f:
            f.write(json.dumps(record) + "\n")
        if record["status"] != "ok":
            print(f"  FAILED: {record.get('error')}", file=sys.stderr)
        return record

    def peer_args(self, engine):
        """RocksDB: a quarter of the records and 10 s of operations."""
        if engine == "rocksdb":
            return ["-n", "{n4}", "--seconds", "10"]
        return ["-n", "{n}"]


def batches(b):
    print("\n### Write batches: inserts into an empty store, records/s (M)\n")
    print("| records | engine | batch 1 | 16 | 64 | 256 | fences/record at 64 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for size, size_args in SIZES.items():
        for engine in ("plush", "rocksdb"):
            rates, fences = [], 0.0
            for batch in (1, 16, 64, 256):
                ops = (["--seconds", "10"] if engine == "rocksdb"
                       else ["-p", "{n}"])
                r = b.run(engine, "-n", "0", *ops, "--insert", "1",
                          "--batch", batch, *size_args)
                rates.append(r["mops"])
                if batch == 64:
                    fences = r["persist_per_op"]
            cells = " | ".join(f"{x:.2f}" for x in rates)
            print(f"| {size} | {engine} | {cells} | {fences:.3f} |")


def multiget(b):
    print("\n### MultiGet: lookups of loaded keys, keys/s (M)\n")
    print("| records | engine | Get | MultiGet 8 | 32 | 128 |")
    print("|---|---|---:|---:|---:|---:|")
    for size, size_args in SIZES.items():
        for engine in ("plush", "rocksdb", "dram"):
            rates = []
            for m in (1, 8, 32, 128):
                ops = (["--seconds", "10"] if engine == "rocksdb"
                       else ["-p", "{n}"])
                r = b.run(engine, *b.peer_args(engine)[:2], *ops,
                          "--lookup", "1", "--multiget", m, *size_args)
                rates.append(r["mops"])
            cells = " | ".join(f"{x:.2f}" for x in rates)
            print(f"| {size} | {engine} | {cells} |")


def iterate_and_backup(b):
    print("\n### Iteration over every record, and backup\n")
    print("| engine | records | iteration, M records/s | backup s/GiB |")
    print("|---|---:|---:|---:|")
    for engine in ("plush", "rocksdb"):
        args = [*b.peer_args(engine)[:2], "-p", "0", "--iterate"]
        backup = f"/dev/shm/plush-bench-backup-{engine}"
        if engine == "plush":
            args += ["--backup", backup]
        r = b.run(engine, *args)
        pathlib.Path(backup).unlink(missing_ok=True)
        per_gib = (r["backup_seconds"] / (r["backup_bytes"] / 2**30)
                   if r.get("backup_bytes") else float("nan"))
        print(f"| {engine} | {r['iterate_records']} | "
              f"{r['iterate_records_per_second'] / 1e6:.2f} | "
              f"{per_gib:.2f} |")


def single_ops(b):
    print("\n### Single operations: steady-state inserts and their tail, "
          "lookups (every operation timed)\n")
    print("| records | engine | workload | M ops/s | p50 ns | p99 ns | "
          "p99.9 ns | p99.9/p50 | max us |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    runs = []
    for size, size_args in SIZES.items():
        for engine, extra in (("plush", []),
                              ("plush", ["--background-threads", "0"]),
                              ("dram", [])):
            label = engine + (" (no background)" if extra else "")
            for workload, args in (("insert", ["--insert", "1"]),
                                   ("lookup", ["--lookup", "1"])):
                if extra and workload == "lookup":
                    continue
                r = b.run(engine, "-n", "{n}", "-p", "{n}", *args,
                          "--latency", "all", *size_args, *extra)
                runs.append((size, label, workload, r))
    for size, label, workload, r in runs:
        ratio = r["p999_ns"] / max(1, r["p50_ns"])
        print(f"| {size} | {label} | {workload} | {r['mops']:.2f} | "
              f"{r['p50_ns']} | {r['p99_ns']} | {r['p999_ns']} | "
              f"{ratio:.1f} | {r['max_ns'] / 1000:.0f} |")


EXPERIMENTS = {"batches": batches, "multiget": multiget,
               "iterate": iterate_and_backup, "single": single_ops}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--only", nargs="*", choices=list(EXPERIMENTS))
    args = parser.parse_args()
    binary = pathlib.Path(args.build) / "tools/bench/plush-bench"
    results = REPO / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    bench = Bench(binary, args.records, results / f"features-{stamp}.jsonl")
    for name in args.only or EXPERIMENTS:
        EXPERIMENTS[name](bench)


if __name__ == "__main__":
    main()
