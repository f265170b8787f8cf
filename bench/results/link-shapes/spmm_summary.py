#!/usr/bin/env python3
"""Summarises spmm.sh's output files (spmm-RATE-MATRIX-run-N.txt): per link
shape, matrix and block size, each way's paired speed-up over native
(median over the runs, and the runs), auto's ratio to the best way, and
the byte bound (native's inter-node bytes over leader's).
    python3 spmm_summary.py DIR"""
import glob
import os
import re
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
cells = {}   # (rate, matrix, size) -> {algo: [paired...]}
bounds = {}  # (rate, matrix) -> leader bound
for path in sorted(glob.glob(os.path.join(here, "spmm-*-run-*.txt"))):
    m = re.match(r"spmm-(\w+?(?:-\d+x\d+)?)-(.+)-run-(\d+)\.txt", os.path.basename(path))
    if not m:
        continue
    rate, matrix = m.group(1), m.group(2)
    for line in open(path):
        row = re.match(r"\s+(\d+K?)\s+(native|linear|leader|aggregated|auto)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+"
                       r"[\d.]+x\s+([\d.]+)x", line)
        if row:
            cells.setdefault((rate, matrix, row.group(1)), {}).setdefault(row.group(2), []).append(
                float(row.group(3)))
        b = re.match(r"# bound leader: .* = ([\d.]+)", line)
        if b:
            bounds[(rate, matrix)] = float(b.group(1))

def size_key(s):
    return int(s[:-1]) * 1024 if s.endswith("K") else int(s)

print("| shape | matrix | block | linear | leader | aggregated | auto | auto / best | bound |")
print("|---|---|---|---|---|---|---|---|---|")
for (rate, matrix, size) in sorted(cells, key=lambda k: (k[0], k[1], size_key(k[2]))):
    ways = cells[(rate, matrix, size)]
    med = {a: statistics.median(v) for a, v in ways.items()}
    best = max(med.values())
    cols = []
    for a in ("linear", "leader", "aggregated", "auto"):
        v = ways.get(a)
        cols.append("-" if not v else "%.2f (%s)" % (med[a], " ".join("%.2f" % x for x in v)))
    auto_best = "%.2f" % (med["auto"] / best) if "auto" in med else "-"
    print("| %s | %s | %s | %s | %s | %s |" % (rate, matrix, size, " | ".join(cols), auto_best,
                                               "%.2f" % bounds.get((rate, matrix), float("nan"))))
