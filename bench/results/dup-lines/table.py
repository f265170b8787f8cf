#!/usr/bin/python3
"""Medians (ms), ranges and paired ratios native / build of ab.sh's lines.
   bench/results/dup-lines/table.py ab.txt"""
import collections
import statistics as st
import sys

times = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4:
        continue
    mode, kv = f[0], f[2:]
    for i in range(0, len(kv) - 1, 2):
        times[kv[i]][mode].append(float(kv[i + 1]) * 1000)
print(f"{'phase':<11} {'native ms':>20} {'old ms':>20} {'new ms':>20}  native/old native/new")
for phase, by in times.items():
    cells = [f"{st.median(by[m]):8.1f} ({min(by[m]):.1f}-{max(by[m]):.1f})" for m in ("native", "old", "new")]
    ratio = [st.median([a / b for a, b in zip(by["native"], by[m])]) for m in ("old", "new")]
    print(f"{phase:<11} " + " ".join(f"{c:>20}" for c in cells) + f"  {ratio[0]:9.2f}x {ratio[1]:9.2f}x")
