"""The tables of README.md from data/: the overlap benchmark (medians over
the pairs of each layout, mode, size and algorithm: overlap % and the
paired speed-up of start + computation + wait over the MPI's own) and
PETSc ex2 (medians over runs, and per-run ratios native / nbrcoll).
   summary.py [DATA]   (default: data/ beside this file)"""
import csv
import glob
import os
import re
import statistics
import sys


def overlap_rows(path):
    rows, on = {}, False
    for line in open(path):
        if line.startswith("# Overlap"):
            on = True
            continue
        if on and line.startswith("# Cost model"):
            break
        f = line.split()
        if on and len(f) == 7 and not line.startswith("#"):
            rows[(f[0], f[1])] = (float(f[2]), float(f[5].rstrip("%")), float(f[6].rstrip("x")))
    return rows


def overlap(data):
    runs = {}
    for path in glob.glob(os.path.join(data, "overlap-*.txt")):
        m = re.search(r"overlap-np(\d+)-rpn(\d+)-(\w+)-(\d+)\.txt$", path)
        runs.setdefault((int(m.group(1)), int(m.group(2))), {}).setdefault(m.group(3), []).append(overlap_rows(path))
    for (np, rpn), modes in sorted(runs.items(), reverse=True):
        print(f"\n{np} ranks as 2 x {rpn}, busy work, medians of {len(modes['calls'])} runs a mode:"
              " pure us, overlap %, overall vs native (calls / thread)\n")
        print("| block | algo | pure us | overlap | overall vs native |")
        print("|---|---|---:|---:|---:|")
        keys = list(modes["calls"][0].keys())
        for key in keys:
            cells = []
            for i, fmt in ((0, "{:.0f}"), (1, "{:.0f}%"), (2, "{:.2f}x")):
                cells.append(" / ".join(fmt.format(statistics.median(r[key][i] for r in modes[m]))
                                        for m in ("calls", "thread")))
            print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


def petsc(data):
    for path in sorted(glob.glob(os.path.join(data, "petsc-*its.csv"))):
        by = {}
        for r in csv.DictReader(open(path)):
            by.setdefault(r["mode"], {})[int(r["run"])] = r
        runs = sorted(by["native"])
        print(f"\n{os.path.basename(path)}: {len(runs)} runs a mode, {by['native'][runs[0]]['scatters']} scatters a run\n")
        print("| phase | native | nbrcoll calls | nbrcoll thread | paired calls | paired thread |")
        print("|---|---:|---:|---:|---:|---:|")
        for ph in ("scatter_us", "matmult_us", "vecnorm_us", "solve_ms"):
            med = [statistics.median(float(by[m][r][ph]) for r in runs) for m in ("native", "calls", "thread")]
            paired = []
            for m in ("calls", "thread"):
                q = [float(by["native"][r][ph]) / float(by[m][r][ph]) for r in runs]
                paired.append(f"{statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f})")
            print(f"| {ph} | " + " | ".join(f"{x:.1f}" for x in med) + " | " + " | ".join(paired) + " |")


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    overlap(data)
    petsc(data)


if __name__ == "__main__":
    main()
