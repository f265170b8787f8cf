"""Paired ratios from dolfinx-ab.sh's lines: per library and phase, the
median (min-max) over runs of native's time / the library's in the same
run (above 1: the library faster), and each mode's median time.

    python3 bench/results/apps/dolfinx_ab_summary.py FILE
"""
import collections
import statistics
import sys

times = collections.defaultdict(dict)  # (mode, phase) -> run -> seconds
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) != 4:
        continue
    mode, run, phase, seconds = parts
    times[(mode, phase)][int(run)] = float(seconds)
phases = sorted({p for _, p in times}, key=lambda p: (not p.startswith("scatter"), p))
libs = sorted({m for m, _ in times if m != "native"})
for phase in phases:
    native = times[("native", phase)]
    row = [f"{phase:11s} native {statistics.median(native.values()) * 1e3:8.3f} ms"]
    for lib in libs:
        mine = times[(lib, phase)]
        ratios = [native[r] / mine[r] for r in mine if r in native]
        if ratios:
            row.append(f"{lib} {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} runs)")
    print(" | ".join(row))
