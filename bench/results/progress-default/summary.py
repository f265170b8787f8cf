#!/usr/bin/env python3
"""Per application and phase: the MPI's own time / nbrcoll's under each
progress mode, and calls / mpi (above 1: mpi faster), medians (min-max)
over the pairs of apps.sh.
    python3 bench/results/progress-default/summary.py [RUNS_FOLDER]"""
import glob
import os
import statistics
import sys
from collections import defaultdict

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")
times = defaultdict(dict)  # (app, mode, pair, side) -> {phase: seconds}
for path in glob.glob(os.path.join(folder, "*.times")):
    app, mode, pair, side, _ = os.path.basename(path).split(".")
    for line in open(path):
        phase, value = line.split()
        times[(app, mode, pair, side)][phase] = float(value)


def cell(values):
    if not values:
        return "-"
    return "{:.2f} ({:.2f}-{:.2f})".format(statistics.median(values), min(values), max(values))


apps = sorted({k[0] for k in times})
print("| app | phase | pairs | native / calls | native / mpi | calls / mpi |")
print("|---|---|---:|---|---|---|")
for app in apps:
    pairs = sorted({k[2] for k in times if k[0] == app})
    phases = sorted(times[(app, "calls", pairs[0], "nbrcoll")])
    for phase in phases:
        vs = {"calls": [], "mpi": [], "ab": []}
        for p in pairs:
            try:
                calls = times[(app, "calls", p, "nbrcoll")][phase]
                mpi = times[(app, "mpi", p, "nbrcoll")][phase]
                vs["calls"].append(times[(app, "calls", p, "native")][phase] / calls)
                vs["mpi"].append(times[(app, "mpi", p, "native")][phase] / mpi)
                vs["ab"].append(calls / mpi)
            except (KeyError, ZeroDivisionError):
                continue
        print("| {} | {} | {} | {} | {} | {} |".format(app, phase, len(vs["ab"]), cell(vs["calls"]), cell(vs["mpi"]),
                                                    cell(vs["ab"])))
