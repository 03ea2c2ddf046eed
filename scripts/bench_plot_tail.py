#!/usr/bin/python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""Draws the tail experiment's figure, tail_insert_latency.png: insert
latency percentiles (p50 ... p99.99, max; log scale) per engine, every
insert timed, one panel per record size. Reads a runs.jsonl written by
scripts/bench_suite.py (--only tail) and writes next to it; draws nothing
if it holds no tail runs. The drawing is plot_bench.py's, as for its
figures.

Usage: scripts/bench_plot_tail.py results/<date>/runs.jsonl
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import plot_bench  # noqa: E402  (exits with a message without matplotlib)

# The experiment's record sizes (bench_suite.TAIL_SIZES) and their titles.
PANELS = (("8-8", "insert 8 B / 8 B"), ("16-200", "insert 16 B / 200 B"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = pathlib.Path(sys.argv[1])
    points = plot_bench.load(runs)
    plot_bench.figure(
        runs.parent, "tail_insert_latency.png", PANELS,
        lambda ax, panel: plot_bench.plot_percentiles(
            ax, points, f"tail/{panel[0]}", panel[1]))


if __name__ == "__main__":
    main()
