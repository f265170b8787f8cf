#!/usr/bin/env python3
"""Summarises run.sh's output: per library, plan, graph 0's first use (nbrcoll or the
MPI's own) and preconnect off/on, the medians over runs of each graph's
first call, the median of calls 2-6 and that over the median of calls 11
on (us).
    python3 summary.py runs.txt"""
import re
import statistics
import sys
from collections import defaultdict

cells = defaultdict(list)  # (lib, algo, graph0, preconnect) -> [(g0, g1)]
head = None
graphs = []
num = re.compile(r"first (\d+), calls 2-6 (\d+), calls 11\+ (\d+)")
for line in open(sys.argv[1]):
    m = re.match(r"run \d+ (lib\d+ )?(\S+) graph0=(\S+) preconnect=(\d)", line)
    if m:
        head, graphs = ((m.group(1) or "").strip(),) + m.groups()[1:], []
        continue
    m = num.search(line)
    if m and head:
        graphs.append(tuple(float(x) for x in m.groups()))
        if len(graphs) == 2:
            cells[head].append(graphs)
print("%-5s %-10s %-8s %-3s | %-28s | %-28s" % ("lib", "plan", "graph 0", "pc", "graph 0: first, 2-6 (x steady)",
                                             "graph 1: first, 2-6 (x steady)"))
for (lib, algo, g0, pc), runs in cells.items():
    out = []
    for g in (0, 1):
        first = statistics.median(r[g][0] for r in runs)
        early = statistics.median(r[g][1] for r in runs)
        ratio = statistics.median(r[g][1] / r[g][2] for r in runs)
        out.append("%7.0f, %5.0f (%.2fx)" % (first, early, ratio))
    print("%-5s %-10s %-8s %-3s | %-28s | %-28s  (%d runs)" % (lib, algo, g0, pc, out[0], out[1], len(runs)))
