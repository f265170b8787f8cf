#!/usr/bin/env python3
"""Median us and paired speed-up per size and algorithm from nbrcoll-bench
CSVs, blocking (neighbor_*) and nonblocking (ineighbor_*) rows apart.
Usage: python3 table.py moore16.csv rsg16.csv"""
import csv
import sys

ALGOS = ["native", "linear", "leader", "aggregated", "auto"]


def size_name(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path, newline="")))
    for mode in ("blocking", "nonblocking"):
        sel = [r for r in rows if r["op"].startswith("i") == (mode == "nonblocking")]
        if not sel:
            continue
        cell = {(int(r["size_bytes"]), r["algo"]): r for r in sel}
        algos = [a for a in ALGOS if any(k[1] == a for k in cell)]
        print(f"{path}: {sel[0]['pattern']} {sel[0]['params']}, {sel[0]['op']}, "
              f"{sel[0]['procs']} ranks as {sel[0]['nodes']} nodes, {sel[0]['iters']} iterations")
        print("median us / paired vs native\n")
        print("| block | " + " | ".join(algos) + " |")
        print("|---|" + "---:|" * len(algos))
        for size in sorted({k[0] for k in cell}):
            out = []
            for a in algos:
                r = cell.get((size, a))
                out.append("-" if r is None else
                           f"{float(r['median_us']):.1f} / {float(r['paired_vs_native']):.2f}x")
            print(f"| {size_name(size)} | " + " | ".join(out) + " |")
        print()
