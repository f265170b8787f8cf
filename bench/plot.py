#!/usr/bin/python3
"""Speed-up charts from nbrcoll-bench CSV files, in the style of the paper's
Figures 7-11: speed-up over native against block size (log2 x-axis), one
line per algorithm and configuration (density, (d, r), matrix), one panel per
process count; one PNG per pattern.

    bench/plot.py --out DIR results1.csv [results2.csv ...] [--title TEXT]

Writes DIR/<pattern>_speedup.png and prints the paths. Rows repeated across
files (same pattern, params, procs, nodes, size, algo) keep the last one.
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLUMNS = ["pattern", "params", "procs", "nodes", "size_bytes", "algo",
           "median_us", "min_us", "max_us", "speedup_vs_native"]


def read_rows(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != COLUMNS:
                sys.exit(f"plot.py: {path}: unexpected columns {reader.fieldnames}")
            for r in reader:
                key = (r["pattern"], r["params"], r["procs"], r["nodes"], r["size_bytes"], r["algo"])
                rows[key] = r
    return list(rows.values())


def size_label(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def plot_pattern(pattern, rows, out_dir, title):
    procs = sorted({int(r["procs"]) for r in rows})
    fig, axes = plt.subplots(1, len(procs), figsize=(max(7.5, 5.2 * len(procs)), 4.6), squeeze=False)
    for ax, p in zip(axes[0], procs):
        lines = defaultdict(list)
        nodes = set()
        for r in rows:
            if int(r["procs"]) != p or r["algo"] == "native" or not r["speedup_vs_native"]:
                continue
            nodes.add(r["nodes"])
            # SpMM sweeps the column count: it is the x-axis, not a line.
            params = re.sub(r";?cols=\d+", "", r["params"])
            lines[(r["algo"], params)].append((int(r["size_bytes"]), float(r["speedup_vs_native"])))
        for (algo, params), pts in sorted(lines.items()):
            pts.sort()
            style = "-o" if algo == "leader" else "--s" if algo == "linear" else ":^"
            ax.plot([x for x, _ in pts], [y for _, y in pts], style, markersize=4,
                    label=f"{algo} {params.replace(';', ' ')}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log", base=2)
        xs = sorted({int(r["size_bytes"]) for r in rows if int(r["procs"]) == p})
        if xs:
            step = max(1, math.ceil(len(xs) / 9))
            ax.set_xticks(xs[::step])
            ax.set_xticklabels([size_label(x) for x in xs[::step]], rotation=45)
        ax.set_xlabel("block size (bytes per rank)")
        ax.set_ylabel("speed-up over native")
        ax.set_title(f"{p} processes, {'/'.join(sorted(nodes)) or '?'} nodes")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(title or f"nbrcoll: {pattern}", fontsize=10)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{pattern}_speedup.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV files written by nbrcoll-bench --csv")
    ap.add_argument("--out", default=".", help="output directory (default: .)")
    ap.add_argument("--title", default=None, help="figure title (default: nbrcoll: PATTERN)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit("plot.py: no rows")
    os.makedirs(args.out, exist_ok=True)
    by_pattern = defaultdict(list)
    for r in rows:
        by_pattern[r["pattern"]].append(r)
    for pattern, prow in sorted(by_pattern.items()):
        print(plot_pattern(pattern, prow, args.out, args.title))


if __name__ == "__main__":
    main()
