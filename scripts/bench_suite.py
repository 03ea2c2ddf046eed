#!/usr/bin/python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""Runs the Plush paper's experiments with plush-bench, scaled to this
machine, and plots them.

Every run appends one JSON object (plush-bench's, plus "experiment", "x" and
"suite_time") to results/<date>/runs.jsonl; scripts/plot_bench.py and
scripts/bench_plot_tail.py (the tail experiment's figure) then draw the
figures next to it. Runs an engine does not support are recorded with
status "unsupported" and do not stop the suite.

Sizes: --records (or PLUSH_BENCH_RECORDS), default 10 million prefilled
records; --quick (or PLUSH_BENCH_QUICK=1) uses 200 thousand for a run of a
few minutes. docs/benchmarking-tool.md describes the experiments.
"""

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
ENGINES = ("plush", "rocksdb", "dram")
PERSISTENT_ENGINES = ("plush", "rocksdb")


class Suite:
    """Runs plush-bench and records its results."""

    def __init__(self, binary, out_file, engines, threads):
        self.binary = binary
        self.out_file = out_file
        self.engines = engines
        self.threads = threads
        self.failures = 0

    def run(self, experiment, x, engine, *args):
        """Runs one point of one experiment and appends its record."""
        command = [str(self.binary), "--engine", engine, "--json",
                   "--workload", experiment, *map(str, args)]
        print(f"[{experiment}] {engine} x={x}: {' '.join(command[3:])}",
              file=sys.stderr, flush=True)
        proc = subprocess.run(command, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        try:
            record = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            # A crash or a usage error: no JSON of its own.
            record = {"engine": engine, "status": "crashed",
                      "exit_code": proc.returncode,
                      "error": proc.stderr.strip()[-2000:]}
        record.update(experiment=experiment, x=x,
                      suite_time=datetime.datetime.now().isoformat(
                          timespec="seconds"))
        if record["status"] == "unsupported":
            print(f"  unsupported: {record['error']}", file=sys.stderr)
        elif record["status"] != "ok":
            self.failures += 1
            print(f"  FAILED: {record.get('error', '')}", file=sys.stderr)
        with open(self.out_file, "a") as out:
            out.write(json.dumps(record) + "\n")


# ---- The experiments -------------------------------------------------------
# Each takes the suite and the prefill size n.

def core(suite, n):
    """Core operations on 1 and 2 threads (throughput vs. threads)."""
    workloads = {
        "core/insert": ["--insert", 1, "-p", n],
        "core/lookup": ["--lookup", 1, "-p", n],
        "core/negative-lookup": ["--negative-lookup", 1, "-p", n],
        "core/delete": ["--delete", 1, "-p", n // 2],
    }
    for name, args in workloads.items():
        for threads in range(1, suite.threads + 1):
            for engine in suite.engines:
                suite.run(name, threads, engine, "-n", n, "-t", threads, *args)


def insert_ratio(suite, n):
    """Insert/lookup mixes from read-only to write-only."""
    for percent in (0, 20, 50, 80, 100):
        for engine in suite.engines:
            suite.run("insert-ratio", percent, engine, "-n", n, "-p", n,
                      "-t", suite.threads, "--insert", percent / 100,
                      "--lookup", 1 - percent / 100)


def skew(suite, n):
    """Zipfian skew over a 50/50 lookup/update mix."""
    for theta in (0.5, 0.6, 0.7, 0.8, 0.9, 0.99):
        for engine in suite.engines:
            suite.run("skew", theta, engine, "-n", n, "-p", n,
                      "-t", suite.threads, "--lookup", 0.5, "--update", 0.5,
                      "--distribution", "zipfian", "--skew", theta)


def record_size(suite, n):
    """Value sizes from 8 to 1000 bytes (8-byte keys), insert and lookup.

    Fewer records for large values keep the data set near 2 GiB."""
    for value in (8, 32, 128, 512, 1000):
        records = max(1000, min(n, (2 << 30) // (8 + value)))
        for op in ("insert", "lookup"):
            for engine in suite.engines:
                suite.run(f"record-size/{op}", value, engine,
                          "-n", records, "-p", records, "-t", suite.threads,
                          f"--{op}", 1, "--value-size", value)


def variable_size(suite, n):
    """Variable-size records: key ~ N(16, 3.2), value ~ N(200, 40)."""
    for op in ("insert", "lookup"):
        for engine in suite.engines:
            suite.run(f"variable-size/{op}", 0, engine, "-n", n, "-p", n,
                      "-t", suite.threads, f"--{op}", 1,
                      "--key-size", "normal:16,3.2",
                      "--value-size", "normal:200,40")


def tail_latency(suite, n):
    """Every operation timed, for the tail percentiles."""
    for op in ("insert", "lookup"):
        for engine in suite.engines:
            suite.run(f"tail-latency/{op}", 0, engine, "-n", n, "-p", n,
                      "-t", suite.threads, f"--{op}", 1, "--latency", "all")


# Record sizes of the tail experiment: (name in the experiment, key, value).
TAIL_SIZES = (("8-8", 8, 8), ("16-200", 16, 200))
# RocksDB inserts some 20 times slower: it loads a quarter of the records
# and inserts for this long instead of a fixed count (as bench_default.sh).
TAIL_ROCKSDB_SECONDS = 10


def tail(suite, n):
    """Insert latency percentiles from every insert (--latency all), with
    8/8 and 16/200-byte records: at most 2 million records loaded, then as
    many inserted, so that the default sizes take a few minutes."""
    records = min(n, 2_000_000)
    for name, key, value in TAIL_SIZES:
        for engine in suite.engines:
            if engine.startswith("rocksdb"):
                sizes = ["-n", records // 4, "--seconds", TAIL_ROCKSDB_SECONDS]
            else:
                sizes = ["-n", records, "-p", records]
            suite.run(f"tail/{name}", 0, engine, *sizes, "-t", suite.threads,
                      "--insert", 1, "--key-size", key, "--value-size", value,
                      "--latency", "all")


def memory(suite, n):
    """DRAM and pool bytes after loading 0.2n..2.4n records (2M..24M at the
    default n)."""
    for factor in (0.2, 0.4, 0.8, 1.6, 2.4):
        records = int(n * factor)
        for engine in suite.engines:
            suite.run("memory", records, engine, "-n", records, "-p", 0,
                      "-t", suite.threads)


def recovery(suite, n):
    """Recovery time after kill -9 against the data size."""
    for factor in (0.1, 0.2, 0.4, 0.8, 1.6):
        records = int(n * factor)
        for engine in suite.engines:
            if engine in PERSISTENT_ENGINES:
                suite.run("recovery", records, engine, "--recovery",
                          "-n", records, "-t", suite.threads)


EXPERIMENTS = {f.__name__.replace("_", "-"): f for f in (
    core, insert_ratio, skew, record_size, variable_size, tail_latency, tail,
    memory, recovery)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=REPO / "build" / "release",
                        type=pathlib.Path, help="build directory")
    parser.add_argument("--quick", action="store_true",
                        default=os.environ.get("PLUSH_BENCH_QUICK") == "1",
                        help="200 thousand records instead of 10 million")
    parser.add_argument("--records", type=int,
                        default=os.environ.get("PLUSH_BENCH_RECORDS"),
                        help="prefill size (overrides --quick)")
    parser.add_argument("--threads", type=int, default=2,
                        help="maximum thread count")
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help="comma-separated engines")
    parser.add_argument("--only", default=",".join(EXPERIMENTS),
                        help="comma-separated experiments: "
                        + ", ".join(EXPERIMENTS))
    parser.add_argument("--out", type=pathlib.Path,
                        default=REPO / "results" / datetime.date.today().isoformat(),
                        help="results directory")
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args()

    binary = args.build / "tools" / "bench" / "plush-bench"
    if not binary.exists():
        sys.exit(f"bench_suite: {binary} not found; build first")
    n = int(args.records or (200_000 if args.quick else 10_000_000))
    selected = args.only.split(",")
    for name in selected:
        if name not in EXPERIMENTS:
            sys.exit(f"bench_suite: unknown experiment {name}")
    args.out.mkdir(parents=True, exist_ok=True)
    out_file = args.out / "runs.jsonl"
    suite = Suite(binary, out_file, args.engines.split(","), args.threads)
    for name in selected:
        EXPERIMENTS[name](suite, n)
    print(f"bench_suite: results in {out_file}", file=sys.stderr)
    if not args.no_plots:
        # Through their own interpreter line: the system Python, which has
        # Debian's matplotlib.
        for plotter in ("plot_bench.py", "bench_plot_tail.py"):
            subprocess.run([str(REPO / "scripts" / plotter), str(out_file)],
                           check=True)
    sys.exit(1 if suite.failures else 0)


if __name__ == "__main__":
    main()
