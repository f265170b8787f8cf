#!/usr/bin/env python3
"""Median (min-max) over nbrcoll-bench CSVs of each algorithm's paired ratio
native / algorithm, per operation and size, as a Markdown table.
Usage: python3 paired_runs.py RUN.csv..."""
import csv
import statistics
import sys
from collections import defaultdict


def size_name(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def main():
    cells = defaultdict(list)  # (op, algo, size) -> paired per run
    algos = []
    for path in sys.argv[1:]:
        for r in csv.DictReader(open(path, newline="")):
            if r["algo"] == "native":
                continue
            if r["algo"] not in algos:
                algos.append(r["algo"])
            cells[(r["op"], r["algo"], int(r["size_bytes"]))].append(float(r["paired_vs_native"]))
    for op in sorted({k[0] for k in cells}):
        sizes = sorted({k[2] for k in cells if k[0] == op})
        runs = max(len(v) for k, v in cells.items() if k[0] == op)
        print(f"{op}, {runs} runs: median (min-max) of native / algorithm, paired\n")
        print("| algorithm | " + " | ".join(size_name(s) for s in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for a in algos:
            row = []
            for s in sizes:
                v = cells.get((op, a, s))
                row.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-")
            print(f"| {a} | " + " | ".join(row) + " |")
        print()


if __name__ == "__main__":
    main()
