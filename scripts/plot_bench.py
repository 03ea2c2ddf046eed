#!/usr/bin/python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""Draws the suite's figures (PNG) from a runs.jsonl written by
scripts/bench_suite.py, next to it.

Usage: scripts/plot_bench.py results/<date>/runs.jsonl

When a point was run more than once, its last run counts. Runs that did not
complete (status other than "ok") are left out of the lines; an engine with
no completed point in a figure is listed as unsupported in its legend.
"""

import json
import pathlib
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_bench: matplotlib is missing; install Debian's "
             "python3-matplotlib (scripts/install_deps.sh) and run this "
             "script with /usr/bin/python3")

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

PERCENTILES = (("p50", "p50_ns"), ("p90", "p90_ns"), ("p99", "p99_ns"),
               ("p99.9", "p999_ns"), ("p99.99", "p9999_ns"), ("max", "max_ns"))
MIB = 2 ** 20


def load(path):
    """{(experiment, engine, x): record}, the last run of every point."""
    points = {}
    with open(path) as runs:
        for line in runs:
            if line.strip():
                r = json.loads(line)
                points[(r["experiment"], r["engine"], r["x"])] = r
    return points


def series(points, experiment):
    """{engine: [(x, record), ...]} sorted by x, completed runs only, plus
    the engines whose runs of this experiment all failed or were rejected."""
    lines, engines = {}, set()
    for (exp, engine, x), r in points.items():
        if exp != experiment:
            continue
        engines.add(engine)
        if r["status"] == "ok":
            lines.setdefault(engine, []).append((x, r))
    for values in lines.values():
        values.sort(key=lambda p: p[0])
    return lines, sorted(engines - lines.keys())


def plot_lines(ax, points, experiment, y, title, xlabel, ylabel, xscale=None):
    """One line per engine of y(record) against the points' x."""
    lines, missing = series(points, experiment)
    for engine, values in sorted(lines.items()):
        ax.plot([x for x, _ in values], [y(r) for _, r in values],
                marker="o", label=engine)
    for engine in missing:
        ax.plot([], [], linestyle="none", label=f"{engine} (unsupported)")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if xscale:
        ax.set_xscale(xscale)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return bool(lines or missing)


def figure(out_dir, name, panels, plot):
    """Draws `plot(ax, panel)` for each panel side by side; saves the PNG if
    any panel had data."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4),
                             squeeze=False)
    drawn = [plot(ax, panel) for ax, panel in zip(axes[0], panels)]
    if any(drawn):
        fig.tight_layout()
        fig.savefig(out_dir / name, dpi=120)
        print(f"plot_bench: {out_dir / name}", file=sys.stderr)
    plt.close(fig)


def mops(r):
    return r["mops"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = pathlib.Path(sys.argv[1])
    points = load(runs)
    out = runs.parent

    core = ("insert", "lookup", "negative-lookup", "delete")
    figure(out, "throughput_vs_threads.png", core, lambda ax, op: plot_lines(
        ax, points, f"core/{op}", mops, op, "threads", "Mops/s"))
    figure(out, "throughput_vs_insert_ratio.png", [None], lambda ax, _: plot_lines(
        ax, points, "insert-ratio", mops, "insert/lookup mix",
        "inserts (%)", "Mops/s"))
    figure(out, "throughput_vs_skew.png", [None], lambda ax, _: plot_lines(
        ax, points, "skew", mops, "50% lookup / 50% update, zipfian",
        "theta", "Mops/s"))
    figure(out, "throughput_vs_record_size.png", ("insert", "lookup"),
           lambda ax, op: plot_lines(
               ax, points, f"record-size/{op}", mops, f"{op}, 8-byte keys",
               "value size (bytes)", "Mops/s", xscale="log"))
    figure(out, "throughput_variable_size.png", ("insert", "lookup"),
           lambda ax, op: plot_bars(ax, points, f"variable-size/{op}", op))
    figure(out, "tail_latency.png", ("insert", "lookup"),
           lambda ax, op: plot_percentiles(ax, points, f"tail-latency/{op}", op))
    figure(out, "memory_vs_records.png", ("dram_bytes", "pool_bytes"),
           lambda ax, field: plot_lines(
               ax, points, "memory", lambda r: r[field] / MIB,
               "DRAM" if field == "dram_bytes" else "pool (persistent)",
               "records", "MiB"))
    figure(out, "recovery_vs_records.png", [None], lambda ax, _: plot_lines(
        ax, points, "recovery", lambda r: r["recovery_seconds"],
        "recovery after kill -9", "records", "seconds"))


def plot_bars(ax, points, experiment, title):
    """Throughput per engine, for single-point experiments."""
    lines, missing = series(points, experiment)
    engines = sorted(lines) + missing
    values = [lines[e][-1][1]["mops"] if e in lines else 0 for e in engines]
    bars = ax.bar(engines, values)
    for bar, engine in zip(bars, engines):
        if engine in missing:
            ax.annotate("unsupported", (bar.get_x() + bar.get_width() / 2, 0),
                        ha="center", va="bottom", fontsize="small")
    ax.set(title=f"{title}, key ~N(16,3.2), value ~N(200,40)", ylabel="Mops/s")
    return bool(engines)


def plot_percentiles(ax, points, experiment, title):
    """Latency percentiles per engine (log scale)."""
    lines, missing = series(points, experiment)
    labels = [label for label, _ in PERCENTILES]
    for engine, values in sorted(lines.items()):
        r = values[-1][1]
        ax.plot(labels, [max(r[field], 1) for _, field in PERCENTILES],
                marker="o", label=engine)
    for engine in missing:
        ax.plot([], [], linestyle="none", label=f"{engine} (unsupported)")
    ax.set(title=f"{title} latency, every operation timed",
           xlabel="percentile", ylabel="ns", yscale="log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return bool(lines or missing)


if __name__ == "__main__":
    main()
