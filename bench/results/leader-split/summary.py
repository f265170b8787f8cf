"""Paired speed-ups over native of run.sh's CSVs: per layout, pattern, block and way,
the median over runs of the old and the new build, with the new build's
range; auto/best is auto's time against the best other way of its run."""
import collections
import csv
import glob
import os
import statistics
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
ratios = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, "n*-*-r*.csv"))):
    nodes, pattern, build, _ = os.path.basename(path)[:-4].split("-")
    count, _, rate = nodes[1:].partition("@")
    pattern = f"{pattern}, {count} nodes" + (f", {rate}" if rate else "")
    rows = list(csv.DictReader(open(path)))
    medians = collections.defaultdict(dict)
    for row in rows:
        size = int(row["size_bytes"])
        ratios[(pattern, size, row["algo"], build)].append(float(row["paired_vs_native"]))
        medians[size][row["algo"]] = float(row["median_us"])
    for size, by_way in medians.items():
        best = min(us for way, us in by_way.items() if way != "auto")
        ratios[(pattern, size, "auto/best", build)].append(best / by_way["auto"])

for pattern in sorted({k[0] for k in ratios}, reverse=True):
    print(f"{pattern}: paired speed-up over native, median of runs, old -> new [new's range]")
    for size in sorted({k[1] for k in ratios if k[0] == pattern}):
        cells = []
        for way in ("leader", "aggregated", "auto", "auto/best"):
            old, new = ratios[(pattern, size, way, "old")], ratios[(pattern, size, way, "new")]
            if old and new:
                cells.append(f"{way} {statistics.median(old):.2f} -> {statistics.median(new):.2f} "
                             f"[{min(new):.2f}-{max(new):.2f}]")
        print(f"  {size // 1024:4}K  " + "  ".join(cells))
