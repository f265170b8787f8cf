"""One line per table of bench/stencil/run.sh: for each algorithm, the median
and range of its paired ratio (native / algorithm, same round) over every
exchange and size of the table, and the median over the alltoallw (-w) and
alltoallv (-v) exchanges apart.
   summarize.py DIR   (DIR: the tables, *.txt)"""
import glob
import os
import statistics
import sys

EXCHANGES = ("cart-w", "cart-v", "graph-w", "graph-v")


def main():
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.txt"))):
        by_algo, by_kind = {}, {}
        for line in open(path):
            f = line.split()
            if len(f) != 11 or f[0] not in EXCHANGES or f[5] == "native":
                continue
            paired = float(f[10].rstrip("x"))
            by_algo.setdefault(f[5], []).append(paired)
            by_kind.setdefault((f[5], f[0][-1]), []).append(paired)
        if not by_algo:
            continue
        cells = [f"{a} {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" for a, v in by_algo.items()]
        kinds = [f"{a} -{k} {statistics.median(v):.2f}" for (a, k), v in sorted(by_kind.items())]
        print(f"{os.path.basename(path)[:-4]}: " + "; ".join(cells) + " | " + ", ".join(kinds))


if __name__ == "__main__":
    main()
