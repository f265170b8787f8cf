#!/usr/bin/env python3
"""Medians (min-max) over the runs of run.sh: per pattern, block and
algorithm the paired speed-up of the exchange alone, and of start,
computation and wait together, with the share of the communication hidden.
    python3 bench/results/nonblocking-auto/summary.py [FOLDER]"""
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
pure = defaultdict(list)     # (pattern, shape, size, algo) -> paired, exchange alone
overall = defaultdict(list)  # ... -> paired, with the computation
hidden = defaultdict(list)   # ... -> overlap %
row = re.compile(r"^\s+(\d+[KM]?)\s+(\w+)\s+")
for path in sorted(glob.glob(os.path.join(folder, "*_*_*.txt"))):
    pattern, shape, _ = os.path.basename(path)[:-4].split("_")
    table = None
    for line in open(path):
        if line.startswith("# Size(B)"):
            table = "overlap" if "Pure(us)" in line else "pure" if "Speedup" in line else None
            continue
        m = row.match(line)
        if not m or table is None:
            continue
        f = line.split()
        key = (pattern, shape, f[0], f[1])
        if table == "pure":
            pure[key].append(float(f[-1].rstrip("x")))
        else:
            hidden[key].append(float(f[-2].rstrip("%")))
            overall[key].append(float(f[-1].rstrip("x")))


def cell(values, fmt="{:.2f}"):
    if not values:
        return "-"
    return (fmt + " ({}-{})").format(statistics.median(values), fmt.format(min(values)), fmt.format(max(values)))


print("| pattern | block | algorithm | runs | exchange alone | with the computation | hidden |")
print("|---|---|---|---:|---|---|---|")
for key in sorted(pure, key=lambda k: (k[0], k[1], int(k[2].rstrip("KM")), k[3])):
    if key[3] == "native":
        continue
    print("| {} {} | {} | {} | {} | {} | {} | {} |".format(key[0], key[1], key[2], key[3], len(pure[key]),
          cell(pure[key]), cell(overall[key]), cell(hidden[key], "{:.0f}%")))
