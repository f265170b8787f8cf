"""auto against the best other way per table and block size, for each build
of ab.sh's runs: the median over runs of best-other median / auto median
(1.00: auto ran the best way), its range and the run count, and per build
how many cells reach 0.90 and 0.95."""
import collections
import csv
import glob
import os
import statistics
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "ab")
res = collections.defaultdict(list)  # (build, table, size) -> ratios
for run in sorted(glob.glob(os.path.join(folder, "run-*-*"))):
    build = os.path.basename(run).split("-", 2)[2]
    for path in glob.glob(os.path.join(run, "*.csv")):
        medians = collections.defaultdict(dict)
        for row in csv.DictReader(open(path)):
            medians[int(row["size_bytes"])][row["algo"]] = float(row["median_us"])
        for size, by_way in medians.items():
            best = min(us for way, us in by_way.items() if way != "auto")
            res[(build, os.path.basename(path)[:-4], size)].append(best / by_way["auto"])
builds = sorted({k[0] for k in res})
cells = sorted({k[1:] for k in res})
print(f"{'table':14} {'size':>6} " + " ".join(f"{b:>20}" for b in builds))
within10 = collections.Counter()
within5 = collections.Counter()
for table, size in cells:
    row = []
    for b in builds:
        r = res[(b, table, size)]
        m = statistics.median(r)
        within10[b] += m >= 0.90
        within5[b] += m >= 0.95
        row.append(f"{m:.2f} [{min(r):.2f}-{max(r):.2f}] n{len(r)}")
    print(f"{table:14} {size:>6} " + " ".join(f"{c:>20}" for c in row))
for b in builds:
    print(f"{b}: {within10[b]} of {len(cells)} cells within 10% of the best, {within5[b]} within 5%")
