#!/usr/bin/python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""Measures what timing every operation costs: plush-bench's 2M-insert run
(2 threads, one seed) with --latency all, with the default 1 % sample, and
with no timing at all, interleaved, several times each.

Prints, per mode, the median and best run-phase throughput and the median
CPU time per operation, then the overhead of all over sample. The CPU time
(user + system of the process, which a busy machine disturbs less than the
wall time) is the run's minus that of the same command with no operations
(opening and closing the pool), measured in every round too.
docs/benchmarking-tool.md reports its result.

Usage: scripts/bench_latency_overhead.py [--build DIR] [--runs N]
       [--engine E] [--operations N] [--threads N] [--seed N]
       [--key-size K] [--value-size V]
"""

import argparse
import json
import pathlib
import resource
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
MODES = {
    "all": ["--latency", "all"],
    "sample": ["--latency", "sample"],
    "none": ["--latency-sample", "0"],
}


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(binary, args):
    """One run; returns (CPU seconds, record)."""
    command = [str(binary), *args, "--json"]
    before = children_cpu_seconds()
    proc = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    cpu = children_cpu_seconds() - before
    record = json.loads(proc.stdout)
    if record["status"] != "ok":
        sys.exit(f"bench_latency_overhead: {' '.join(command)}: "
                 f"{record['error']}")
    return cpu, record


def main():
    parser = argparse.ArgumentParser(description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=REPO / "build" / "release",
                        type=pathlib.Path, help="build directory")
    parser.add_argument("--runs", type=int, default=5,
                        help="runs per mode")
    parser.add_argument("--engine", default="plush")
    parser.add_argument("--operations", type=int, default=2_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--key-size", default="8")
    parser.add_argument("--value-size", default="8")
    args = parser.parse_args()

    binary = args.build / "tools" / "bench" / "plush-bench"
    if not binary.exists():
        sys.exit(f"bench_latency_overhead: {binary} not found; build first")
    # Inserts into an empty store, no verify phase: the run phase is
    # nearly all of the process's CPU time.
    bench_args = ["--engine", args.engine, "-n", "0", "-t",
                  str(args.threads), "--seed", str(args.seed),
                  "--key-size", args.key_size, "--value-size",
                  args.value_size, "--skip-verify"]
    setup = []
    results = {mode: [] for mode in MODES}
    for i in range(args.runs):
        setup.append(run_once(binary, [*bench_args, "-p", "0"])[0])
        for mode, flags in MODES.items():
            cpu, record = run_once(
                binary, [*bench_args, "-p", str(args.operations), *flags])
            results[mode].append((cpu, record))
            print(f"run {i + 1} {mode:6}: {record['mops']:.3f} Mops/s, "
                  f"{cpu:.3f} CPU s (setup {setup[-1]:.3f}), p50 "
                  f"{record['p50_ns']} ns, p99.99 {record['p9999_ns']} ns "
                  f"({record['latency_samples']} samples)", file=sys.stderr,
                  flush=True)

    setup_cpu = statistics.median(setup)
    print(f"{args.engine}, {args.operations} inserts of {args.key_size}/"
          f"{args.value_size}-byte records into an empty store, "
          f"{args.threads} threads, seed {args.seed}, {args.runs} runs each")
    print("mode    median Mops/s  best Mops/s  median CPU ns/op")
    medians = {}
    for mode, runs in results.items():
        mops = [record["mops"] for _, record in runs]
        cpu = statistics.median(
            (cpu - setup_cpu) / record["operations"] * 1e9
            for cpu, record in runs)
        medians[mode] = (statistics.median(mops), cpu)
        print(f"{mode:6}  {medians[mode][0]:13.3f}  {max(mops):11.3f}  "
              f"{cpu:16.0f}")
    throughput = medians["sample"][0] / medians["all"][0] - 1
    cpu = medians["all"][1] / medians["sample"][1] - 1
    print(f"all vs sample: {throughput:+.1%} time per operation (median "
          f"throughput), {cpu:+.1%} CPU per operation")


if __name__ == "__main__":
    main()
