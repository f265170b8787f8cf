"""Issue 29 item 6 on the tables of run.sh: for each pattern, node count and
size, auto's paired ratio (native / auto, same iteration) against the better
of native (1.00) and the best other nbrcoll plan's paired ratio; 'ok' where
auto is within 5% of it."""
import csv
import glob
import os
import sys


def main():
    print(f"{'table':<14} {'size':>6} {'auto':>6} {'best':>14} {'auto/best':>9}")
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
        rows = list(csv.DictReader(open(path)))
        for size in sorted({int(r["size_bytes"]) for r in rows}):
            paired = {r["algo"]: float(r["paired_vs_native"]) for r in rows if int(r["size_bytes"]) == size}
            best_algo, best = max(((a, p) for a, p in paired.items() if a != "auto"), key=lambda x: x[1])
            ratio = paired["auto"] / best
            verdict = "ok" if ratio >= 0.95 else "SLOWER"
            print(f"{os.path.basename(path)[:-4]:<14} {size:>6} {paired['auto']:6.2f} {best_algo:>9} {best:4.2f} "
                  f"{ratio:8.2f} {verdict}")


if __name__ == "__main__":
    main()
