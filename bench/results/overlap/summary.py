#!/usr/bin/env python3
"""Medians over the pairs of progress.sh's runs: per block and plan, the
pure time, the overlap and the paired speed-up of the overall time over
native, for two NBRCOLL_PROGRESS modes side by side (MODES, as given to
progress.sh; default "calls thread").
   [MODES="calls thread"] python3 bench/results/overlap/summary.py [DIR]"""
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
a, b = (m.replace(":", "-") for m in os.environ.get("MODES", "calls thread").split())
print(f"| block | plan | pure us, {a} / {b} | overlap, {a} / {b} | overall vs native, {a} / {b} |")
print("|---|---|---:|---:|---:|")
for (size, algo), modes in cells.items():
    def med(mode, i):
        return statistics.median(v[i] for v in modes.get(mode, [(0, 0, 0)]))
    print(f"| {size} | {algo} | {med(a, 0):.0f} / {med(b, 0):.0f} | "
          f"{med(a, 1):.0f}% / {med(b, 1):.0f}% | {med(a, 2):.2f}x / {med(b, 2):.2f}x |")
