#!/usr/bin/env python3
"""Medians over the pairs of progress.sh's runs: per block and plan, the
pure time, the overlap and the paired speed-up of the overall time over
native, for NBRCOLL_PROGRESS=calls and thread side by side.
   python3 bench/results/overlap/summary.py [DIR]"""
import glob
import os
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
cells = {}
for path in sorted(glob.glob(os.path.join(d, "progress_*_*.txt"))):
    mode = os.path.basename(path).split("_")[1]
    in_overlap = False
    for line in open(path):
        if line.startswith("# Overlap"):
            in_overlap = True
            continue
        if not in_overlap or line.startswith("#") or not line.strip():
            continue
        size, algo, pure, _compute, _overall, overlap, paired = line.split()
        cells.setdefault((size, algo), {}).setdefault(mode, []).append(
            (float(pure), float(overlap.rstrip("%")), float(paired.rstrip("x"))))
print("| block | plan | pure us, calls / thread | overlap, calls / thread | overall vs native, calls / thread |")
print("|---|---|---:|---:|---:|")
for (size, algo), modes in cells.items():
    def med(mode, i):
        return statistics.median(v[i] for v in modes.get(mode, [(0, 0, 0)]))
    print(f"| {size} | {algo} | {med('calls', 0):.0f} / {med('thread', 0):.0f} | "
          f"{med('calls', 1):.0f}% / {med('thread', 1):.0f}% | {med('calls', 2):.2f}x / {med('thread', 2):.2f}x |")
