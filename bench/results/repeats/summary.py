#!/usr/bin/env python3
"""Paired ratios (native / algorithm, the tables' last column) from run.sh's
output: one line per place, mode, algorithm and build, the rounds' ratios
per block size.   summary.py ab-*.txt"""
import re
import sys
from collections import defaultdict

ratios = defaultdict(list)  # (where, mode, algo, build, size) -> ratios in round order
sizes = []
for path in sys.argv[1:]:
    head = None
    for line in open(path):
        m = re.match(r"== (\w+), ([\w-]+), (\w+), round (\d+)", line)
        if m:
            head = m.groups()
            continue
        f = line.split()
        if head and len(f) == 7 and f[1] in ("linear", "auto", "leader", "aggregated"):
            build, where, mode, _ = head
            ratios[(where, mode, f[1], build, f[0])].append(f[6].rstrip("x"))
            if f[0] not in sizes:
                sizes.append(f[0])
print("| where | mode | algorithm | build | " + " | ".join(sizes) + " |")
print("|---" * (4 + len(sizes)) + "|")
for key in sorted({k[:4] for k in ratios}, key=lambda k: (k[0], k[1], k[2], k[3] != "old")):
    cells = [", ".join(ratios[key + (s,)]) for s in sizes]
    print("| " + " | ".join(key) + " | " + " | ".join(cells) + " |")
