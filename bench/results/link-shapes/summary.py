"""The runs of run.sh: per link shape, table and size, the median over runs
of each way's paired speed-up over native, and auto's against the best
other way."""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict


def main():
    root = sys.argv[1]
    cells = defaultdict(lambda: defaultdict(list))  # (shape, table, size) -> algo -> [paired]
    for path in glob.glob(os.path.join(root, "*-run-*", "*.csv")):
        shape = os.path.basename(os.path.dirname(path)).split("-run-")[0]
        table = os.path.basename(path)[:-4]
        for r in csv.DictReader(open(path)):
            cells[(shape, table, int(r["size_bytes"]))][r["algo"]].append(float(r["paired_vs_native"]))
    algos = ["linear", "leader", "aggregated", "auto"]
    print(f"{'shape':<7} {'table':<6} {'size':>8} " + " ".join(f"{a:>10}" for a in algos) + "  auto/best")
    within = defaultdict(lambda: [0, 0, 0])
    for key in sorted(cells, key=lambda k: (k[0], k[1], k[2])):
        med = {a: statistics.median(v) for a, v in cells[key].items()}
        best = max(1.0, *(med[a] for a in algos[:-1] if a in med))
        ratio = med["auto"] / best
        w = within[key[0]]
        w[0] += 1
        w[1] += ratio >= 0.90
        w[2] += ratio >= 0.95
        print(f"{key[0]:<7} {key[1]:<6} {key[2]:>8} " + " ".join(f"{med.get(a, float('nan')):9.2f}x" for a in algos)
              + f"  {ratio:8.2f}")
    for shape, (n, ten, five) in sorted(within.items()):
        print(f"{shape}: auto within 10% of the best in {ten} of {n} cells, within 5% in {five}")


if __name__ == "__main__":
    main()
