#!/usr/bin/env python3
"""run.sh's pairs: per build and block size, auto's paired ratio over native
waited for at once (pure) and with the idle wait (overall), and over the
best of native and every plan in each table; medians over the pairs
[range].
   python3 bench/results/nonblocking-tuning/summary.py [DIR]"""
import glob
import os
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def tables(path):
    """{table: {size: {algo: (median_us, paired)}}}, table 'pure' or 'overall'."""
    out = {"pure": {}, "overall": {}}
    table = None
    for line in open(path):
        if line.startswith("# Size(B)"):
            table = "pure" if "Speedup" in line else "overall"
            continue
        if table is None or line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if table == "pure":
            size, algo, med, paired = f[0], f[1], float(f[2]), float(f[6].rstrip("x"))
        else:
            size, algo, med, paired = f[0], f[1], float(f[4]), float(f[6].rstrip("x"))
        out[table].setdefault(size, {})[algo] = (med, paired)
    return out


cells = {}
for path in sorted(glob.glob(os.path.join(d, "*_*.txt"))):
    build = os.path.basename(path).split("_")[0]
    for table, sizes in tables(path).items():
        for size, algos in sizes.items():
            if "auto" not in algos:
                continue
            best = max(p for a, (_, p) in algos.items() if a != "auto")
            cells.setdefault((table, size, build), []).append((algos["auto"][1], algos["auto"][1] / best))


def med(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]"


print("| table | block | build | auto / native | auto / best |")
print("|---|---|---|---:|---:|")
for (table, size, build), v in sorted(cells.items(), key=lambda kv: (kv[0][0] != "pure", int(kv[0][1].rstrip("K")), kv[0][2])):
    print(f"| {table} | {size} | {build} | {med([x[0] for x in v])} | {med([x[1] for x in v])} |")
