#!/usr/bin/python3
"""Speed-up charts from nbrcoll-bench CSV files, in the style of the paper's
Figures 7-11: speed-up over native against block size (log2 x-axis), one
line per MPI, algorithm and configuration (density, (d, r), matrix; nodes
real or emulated; topology), one panel per process count; one PNG per
pattern and op. Error bars span min to max (native median over this algorithm's
max and min time); the y axis is logarithmic when the speed-ups span more
than a decade.

    bench/plot.py --out DIR results1.csv [results2.csv ...] [--title TEXT] [--list]

Writes DIR/<pattern>_speedup.png for the pattern's own op (allgather;
spmm: allgatherv) and DIR/<pattern>_<op>_speedup.png for the others
(ineighbor_alltoallv, ...), and prints the paths (--list: also each line
drawn). Rows of different ops, MPIs, MPI versions, node kinds or topologies
are never merged; rows repeated with all of these equal (same pattern,
params, procs, nodes, size, algo) keep the last one. CSV files of earlier
versions read as MPI "unknown" (without the MPI columns) and as the
pattern's own op (without the op column: allgather was all they measured).
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError as e:
    sys.exit(f"plot.py: matplotlib is needed for the charts and is missing ({e}); "
             "Debian: apt-get install python3-matplotlib (scripts/install-deps.sh), or pip install matplotlib")

BASE_COLUMNS = ["pattern", "params", "procs", "nodes", "size_bytes", "algo",
                "median_us", "min_us", "max_us", "speedup_vs_native"]
RUN_COLUMNS = ["iters", "node_kind", "topology", "mpi", "mpi_version", "nbrcoll_version"]
# What tells two runs apart: never on one line, never one row.
RUN_KEY = ["mpi", "mpi_version", "node_kind", "topology"]
# Oldest first; the last is what nbrcoll-bench writes now (tests/bench/csv_check.cmake).
LAYOUTS = (BASE_COLUMNS, BASE_COLUMNS + RUN_COLUMNS, BASE_COLUMNS + RUN_COLUMNS + ["op"],
           BASE_COLUMNS + RUN_COLUMNS + ["op", "predicted_us"],
           BASE_COLUMNS + RUN_COLUMNS + ["op", "predicted_us", "paired_vs_native"],
           BASE_COLUMNS + RUN_COLUMNS + ["op", "predicted_us", "paired_vs_native", "compute_us", "overlap_pct"])


def own_op(pattern):
    """The op nbrcoll-bench measures for `pattern` without --op."""
    return "neighbor_allgatherv" if pattern == "spmm" else "neighbor_allgather"


def read_rows(paths):
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames not in LAYOUTS:
                sys.exit(f"plot.py: {path}: unexpected columns {reader.fieldnames}")
            for r in reader:
                for c in RUN_COLUMNS:
                    r.setdefault(c, "unknown")
                r.setdefault("op", own_op(r["pattern"]))
                key = tuple(r[c] for c in RUN_KEY + ["op"]) + (
                    r["pattern"], r["params"], r["procs"], r["nodes"], r["size_bytes"], r["algo"])
                rows[key] = r
    return list(rows.values())


def run_label(r):
    """'Open MPI 4.1.4, emulated nodes, frontier' (parts that are unknown left out)."""
    parts = []
    if r["mpi"] != "unknown":
        parts.append(f"{r['mpi']} {r['mpi_version']}".strip())
    if r["node_kind"] != "unknown":
        parts.append(f"{r['node_kind']} nodes")
    if r["topology"] != "unknown":
        parts.append(r["topology"])
    return ", ".join(parts)


def size_label(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def plot_pattern(pattern, op, rows, out_dir, title, listing):
    name = pattern if op == own_op(pattern) else f"{pattern}_{op}"
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
            speedup = float(r["speedup_vs_native"])
            native = speedup * float(r["median_us"])  # native's median
            lo = native / float(r["max_us"]) if float(r["max_us"]) > 0 else speedup
            hi = native / float(r["min_us"]) if float(r["min_us"]) > 0 else speedup
            lines[(run_label(r), r["algo"], params)].append((int(r["size_bytes"]), speedup, lo, hi))
        values = []
        for (run, algo, params), pts in sorted(lines.items()):
            pts.sort()
            style = "-o" if algo == "leader" else "--s" if algo == "linear" else ":^"
            label = f"{algo} {params.replace(';', ' ')}" + (f" [{run}]" if run else "")
            ys = [y for _, y, _, _ in pts]
            ax.errorbar([x for x, _, _, _ in pts], ys,
                        yerr=[[y - lo for _, y, lo, _ in pts], [hi - y for _, y, _, hi in pts]],
                        fmt=style, markersize=4, capsize=2, elinewidth=0.8, label=label)
            values += [v for _, _, lo, hi in pts for v in (lo, hi) if v > 0]
            if listing:
                print(f"{name}: {p} processes: {label}: {len(pts)} points")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log", base=2)
        if values and max(values) / min(values) > 10:
            ax.set_yscale("log")
        xs = sorted({int(r["size_bytes"]) for r in rows if int(r["procs"]) == p})
        if xs:
            step = max(1, math.ceil(len(xs) / 9))
            ax.set_xticks(xs[::step])
            ax.set_xticklabels([size_label(x) for x in xs[::step]], rotation=45)
        ax.set_xlabel("block size (bytes per rank)")
        ax.set_ylabel("speed-up over native (min-max)")
        ax.set_title(f"{p} processes, {'/'.join(sorted(nodes)) or '?'} nodes")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(title or f"nbrcoll: {pattern}, MPI_{op}", fontsize=10)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}_speedup.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV files written by nbrcoll-bench --csv")
    ap.add_argument("--out", default=".", help="output directory (default: .)")
    ap.add_argument("--title", default=None, help="figure title (default: nbrcoll: PATTERN, MPI_OP)")
    ap.add_argument("--list", action="store_true", help="also print each line drawn")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit("plot.py: no rows")
    os.makedirs(args.out, exist_ok=True)
    by_chart = defaultdict(list)
    for r in rows:
        by_chart[(r["pattern"], r["op"])].append(r)
    for (pattern, op), prow in sorted(by_chart.items()):
        print(plot_pattern(pattern, op, prow, args.out, args.title, args.list))


if __name__ == "__main__":
    main()
