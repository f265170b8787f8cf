"""The runs of run.sh: per table and size, auto's paired ratio against the
best of native and every other plan (median over the runs, and the runs'
range), with NBRCOLL_TUNE=1 and =0; and the cells within 10% and 5%."""
import csv
import glob
import os
import statistics
import sys


def ratios(folder):
    """{(table, size): auto's paired ratio / the best other's} of one run."""
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        rows = list(csv.DictReader(open(path)))
        for size in {int(r["size_bytes"]) for r in rows}:
            paired = {r["algo"]: float(r["paired_vs_native"]) for r in rows if int(r["size_bytes"]) == size}
            best = max(p for a, p in paired.items() if a != "auto")
            out[(os.path.basename(path)[:-4], size)] = paired["auto"] / best
    return out


def main():
    root = sys.argv[1]
    arms = {}
    for tune in ("1", "0"):
        runs = [ratios(d) for d in sorted(glob.glob(os.path.join(root, f"run-*-tune{tune}")))]
        arms[tune] = runs
    cells = sorted(set().union(*(r.keys() for runs in arms.values() for r in runs)), key=lambda c: (c[0], c[1]))
    print(f"{'table':<14} {'size':>6}  {'tuned: median [range]':>24}  {'model only: median [range]':>28}")
    counts = {t: [0, 0, 0] for t in arms}
    for cell in cells:
        line = f"{cell[0]:<14} {cell[1]:>6}"
        for tune in ("1", "0"):
            v = [r[cell] for r in arms[tune] if cell in r]
            m = statistics.median(v)
            counts[tune][0] += 1
            counts[tune][1] += m >= 0.90
            counts[tune][2] += m >= 0.95
            line += f"  {m:8.2f} [{min(v):.2f}-{max(v):.2f}]" + " " * 10
        print(line)
    for tune, (n, ten, five) in counts.items():
        name = "tuned" if tune == "1" else "model only"
        print(f"{name}: {ten} of {n} cells within 10% of the best, {five} within 5% ({len(arms[tune])} runs)")


if __name__ == "__main__":
    main()
